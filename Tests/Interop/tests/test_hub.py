"""The hub answers as the official hub does; tools find it through the locator file."""

import json
import os
from pathlib import Path

import requests


def test_root_is_the_locator_plus_host_and_port(suite):
    response = requests.get(f"http://{suite.hub}/", timeout=5)
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("application/json")
    body = response.json()
    assert list(body) == ["version", "origins", "pid", "host", "port"]
    assert body["origins"] == [f"http://{suite.hub}"]
    assert body["pid"] == suite.pid
    assert body["host"] == suite.host
    assert body["port"] == suite.hub_port


def test_json_is_pretty_printed_with_two_spaces(suite):
    text = requests.get(f"http://{suite.hub}/", timeout=5).text
    assert text.startswith('{\n  "version": ')


def test_emulators_lists_every_listener(suite):
    body = requests.get(f"http://{suite.hub}/emulators", timeout=5).json()
    assert set(body) == {"firestore", "database", "hub"}
    for name, port in [("firestore", suite.firestore_port), ("database", suite.database_port), ("hub", suite.hub_port)]:
        info = body[name]
        assert info["name"] == name
        assert info["host"] == suite.host
        assert info["port"] == port
        assert info["pid"] == suite.pid
        assert info["listen"] == [{"address": suite.host, "family": "IPv4", "port": port}]


def test_rules_unit_testing_style_discovery_finds_firestore(suite):
    # @firebase/rules-unit-testing reads FIREBASE_EMULATOR_HUB and calls GET /emulators.
    hub = os.environ["FIREBASE_EMULATOR_HUB"]
    firestore = requests.get(f"http://{hub}/emulators", timeout=5).json()["firestore"]
    assert f"{firestore['host']}:{firestore['port']}" == os.environ["FIRESTORE_EMULATOR_HOST"]


def test_locator_file_names_this_suite(suite):
    locator = Path(os.environ["TMPDIR"]) / f"hub-{suite.project}.json"
    content = json.loads(locator.read_text())
    assert content == {"version": content["version"], "origins": [f"http://{suite.hub}"], "pid": suite.pid}


def test_unknown_hub_path_is_404(suite):
    assert requests.get(f"http://{suite.hub}/nope", timeout=5).status_code == 404


def test_admin_export_refuses_browser_origins(suite, tmp_path):
    response = requests.post(
        f"http://{suite.hub}/_admin/export",
        json={"path": str(tmp_path / "out")},
        headers={"Origin": "http://example.com"},
        timeout=5,
    )
    assert response.status_code == 403


def test_hub_answers_cors_preflights(suite):
    response = requests.options(
        f"http://{suite.hub}/emulators",
        headers={"Origin": "http://localhost:3000", "Access-Control-Request-Method": "GET"},
        timeout=5,
    )
    assert response.status_code in (200, 204)
    assert response.headers["Access-Control-Allow-Origin"] == "http://localhost:3000"
    plain = requests.get(f"http://{suite.hub}/emulators", headers={"Origin": "http://localhost:3000"}, timeout=5)
    assert plain.headers["Access-Control-Allow-Origin"] == "http://localhost:3000"
