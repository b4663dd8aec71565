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


def test_both_emulators_answer_on_their_ports(suite):
    # Firestore (REST here; gRPC in test_firestore_grpc.py) and the Realtime Database are wired.
    firestore = requests.get(
        f"http://{suite.firestore}/v1/projects/demo-interop/databases/(default)/documents/users/ada", timeout=5)
    assert firestore.status_code == 404
    assert firestore.json()["error"]["status"] == "NOT_FOUND"
    database = requests.get(f"http://{suite.database}/users/ada.json?ns=demo-interop", timeout=5)
    assert database.status_code == 200


def test_keep_alive_connections_serve_several_requests(suite):
    with requests.Session() as session:
        for _ in range(3):
            assert session.get(f"http://{suite.hub}/", timeout=5).status_code == 200
