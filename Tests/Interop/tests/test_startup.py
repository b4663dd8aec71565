"""What `emulators start` prints and serves before any emulator is implemented."""

import socket

import pytest
import requests

BOX = """\
┌─────────────────────────────────────────────────────────────┐
│ ✔  All emulators ready! It is now safe to connect your app. │
└─────────────────────────────────────────────────────────────┘
"""


def test_ready_banner_is_the_official_box_and_table(suite):
    log = suite.log.read_text()
    assert BOX in log
    firestore = f"127.0.0.1:{suite.firestore_port}"
    database = f"127.0.0.1:{suite.database_port}"
    width = max(len(firestore), len(database), len("Host:Port")) + 2
    assert f"│ Firestore │ {firestore.ljust(width - 1)}│" in log
    assert f"│ Database  │ {database.ljust(width - 1)}│" in log
    assert f"  Emulator Hub host: 127.0.0.1 port: {suite.hub_port}\n" in log


def test_log_lines_use_the_official_prefixes(suite):
    log = suite.log.read_text()
    assert "i  emulators: Starting emulators: firestore, database" in log


@pytest.mark.parametrize("port_name", ["firestore_port", "database_port", "hub_port"])
def test_every_port_accepts_connections(suite, port_name):
    with socket.create_connection(("127.0.0.1", getattr(suite, port_name)), timeout=5):
        pass


@pytest.mark.parametrize(
    "url",
    [
        "http://{firestore}/v1/projects/demo-interop/databases/(default)/documents/users/ada",
    ],
)
def test_unimplemented_emulators_answer_501_json(suite, url):
    response = requests.get(url.format(firestore=suite.firestore, database=suite.database), timeout=5)
    assert response.status_code == 501
    assert "not implemented yet" in response.json()["error"]


def test_keep_alive_connections_serve_several_requests(suite):
    with requests.Session() as session:
        for _ in range(3):
            assert session.get(f"http://{suite.hub}/", timeout=5).status_code == 200
