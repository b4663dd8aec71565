"""Security rules against the built binary: denials with the official messages, the owner bypass,
unsigned tokens, and hot reload of firebase.json's rules files that really takes effect
(firebase-tools#2603 printed "Rules updated." and kept the old rules)."""

import base64
import json
import os
import re
import signal
import subprocess
import time
import uuid
from pathlib import Path

import firebase_admin
import pytest
import requests
from firebase_admin import db

from conftest import free_ports, wait_for_line

READY = "All emulators ready"
PROJECT = "demo-rules-interop"

FIRESTORE_RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /open/{id} { allow read, write: if true; }
    match /once/{id} {
      allow read, create: if true;
      allow update: if false;
    }
    match /users/{uid} { allow read, write: if request.auth != null && request.auth.uid == uid; }
  }
}
"""

LOCKED_FIRESTORE_RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /open/{id} { allow read: if true; }
  }
}
"""

DATABASE_RULES = """{
  // comments are allowed
  "rules": {
    "open": { ".read": true, ".write": true },
    "users": { "$uid": { ".read": "auth != null && auth.uid == $uid", ".write": "auth != null && auth.uid == $uid" } }
  }
}
"""


def unsigned_token(uid: str) -> str:
    """An `alg: none` ID token, as the SDKs' mockUserToken makes it."""

    def part(value: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none', 'type': 'JWT'})}.{part({'sub': uid, 'user_id': uid, 'iat': 0, 'exp': 4102444800})}."


class RulesSuite:
    """A suite started in its own project directory whose firebase.json names both rules files."""

    def __init__(self, binary: str, directory: Path):
        self.firestore, self.database, self.hub = free_ports(3)
        self.directory = directory
        (directory / "firestore.rules").write_text(FIRESTORE_RULES)
        (directory / "database.rules.json").write_text(DATABASE_RULES)
        config = {
            "firestore": {"rules": "firestore.rules"},
            "database": {"rules": "database.rules.json"},
            "emulators": {
                "firestore": {"port": self.firestore},
                "database": {"port": self.database},
                "hub": {"port": self.hub},
                "ui": {"enabled": False},
            },
        }
        (directory / "firebase.json").write_text(json.dumps(config))
        (directory / "tmp").mkdir(exist_ok=True)
        self.log = directory / "suite.log"
        env = dict(os.environ, TMPDIR=str(directory / "tmp"))
        self.process = subprocess.Popen(
            [binary, "start", "--project", PROJECT], cwd=directory, env=env, stdout=self.log.open("w"),
            stderr=subprocess.STDOUT)
        wait_for_line(self.log, READY, self.process)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=30)

    def doc(self, path: str, project: str = PROJECT) -> str:
        return f"http://127.0.0.1:{self.firestore}/v1/projects/{project}/databases/(default)/documents/{path}"

    def rtdb(self, path: str) -> str:
        return f"http://127.0.0.1:{self.database}/{path}.json?ns={PROJECT}-default-rtdb"

    def patch(self, path: str, headers=None, project: str = PROJECT) -> requests.Response:
        return requests.patch(self.doc(path, project), json={"fields": {"n": {"integerValue": "1"}}}, headers=headers or {}, timeout=10)

    def output(self) -> str:
        return self.log.read_text()


@pytest.fixture
def rules_suite(suite, tmp_path):
    running = RulesSuite(suite.binary, tmp_path)
    yield running
    running.stop()


def eventually(condition, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_firestore_denial_names_the_rule_and_line(rules_suite):
    assert rules_suite.patch("once/a").status_code == 200
    denied = rules_suite.patch("once/a")
    assert denied.status_code == 403
    assert denied.json()["error"] == {"code": 403, "message": "\nfalse for 'update' @ L7", "status": "PERMISSION_DENIED"}


def test_firestore_owner_bypasses_and_tokens_become_request_auth(rules_suite):
    rules_suite.patch("once/a")
    assert rules_suite.patch("once/a", {"Authorization": "Bearer owner"}).status_code == 200
    assert rules_suite.patch("once/a", {"Authorization": "bearer OWNER"}).status_code == 200
    ada = {"Authorization": f"Bearer {unsigned_token('ada')}"}
    assert rules_suite.patch("users/ada", ada).status_code == 200
    assert rules_suite.patch("users/bob", ada).status_code == 403
    assert requests.get(rules_suite.doc("users/ada"), timeout=10).status_code == 403
    malformed = requests.get(rules_suite.doc("users/ada"), headers={"Authorization": "Bearer nope"}, timeout=10)
    assert malformed.status_code == 400
    assert malformed.json()["error"]["status"] == "INVALID_ARGUMENT"
    query = {"structuredQuery": {"from": [{"collectionId": "users"}]}}
    url = f"http://127.0.0.1:{rules_suite.firestore}/v1/projects/{PROJECT}/databases/(default)/documents:runQuery"
    assert requests.post(url, json=query, timeout=10).status_code == 403


def test_database_denials_and_owner_bypass(rules_suite):
    assert requests.put(rules_suite.rtdb("open/x"), json=1, timeout=10).status_code == 200
    denied = requests.put(rules_suite.rtdb("secret"), json=1, timeout=10)
    assert denied.status_code == 401
    assert denied.json() == {"error": "Permission denied"}
    assert requests.get(rules_suite.rtdb("secret"), headers={"Accept": "text/event-stream"}, timeout=10).status_code == 401
    assert requests.put(rules_suite.rtdb("secret") + "&access_token=owner", json=2, timeout=10).status_code == 200
    token = unsigned_token("ada")
    assert requests.put(rules_suite.rtdb("users/ada") + f"&auth={token}", json=3, timeout=10).status_code == 200
    assert requests.put(rules_suite.rtdb("users/bob") + f"&auth={token}", json=3, timeout=10).status_code == 401
    # The Admin SDK sends `Bearer owner`.
    app = firebase_admin.initialize_app(
        options={"projectId": PROJECT, "databaseURL": f"http://127.0.0.1:{rules_suite.database}?ns={PROJECT}-default-rtdb"},
        name="rules-admin")
    try:
        assert db.reference("secret", app=app).get() == 2
        db.reference("users/bob", app=app).set(4)
        assert db.reference("users/bob", app=app).get() == 4
    finally:
        firebase_admin.delete_app(app)


def test_hot_reload_takes_effect_for_every_project(rules_suite):
    assert rules_suite.patch("open/a").status_code == 200
    (rules_suite.directory / "firestore.rules").write_text(LOCKED_FIRESTORE_RULES)
    assert eventually(lambda: rules_suite.patch("open/a").status_code == 403)
    assert rules_suite.patch("open/a", project="another-project").status_code == 403
    assert "Rules updated." in rules_suite.output()

    assert requests.put(rules_suite.rtdb("open/x"), json=1, timeout=10).status_code == 200
    (rules_suite.directory / "database.rules.json").write_text('{"rules": {"open": {".read": true}}}')
    assert eventually(lambda: requests.put(rules_suite.rtdb("open/x"), json=2, timeout=10).status_code == 401)
    assert f"Change detected, updating rules for {PROJECT}-default-rtdb..." in rules_suite.output()


def test_a_broken_rules_file_keeps_the_previous_rules(rules_suite):
    path = rules_suite.directory / "firestore.rules"
    path.write_text("rules_version = '2';\nservice cloud.firestore {\n  match /x { allow read: if ; }\n}\n")
    assert eventually(lambda: re.search(re.escape(str(path)) + r":3:\d+ - ERROR ", rules_suite.output()) is not None)
    assert rules_suite.patch("open/a").status_code == 200
    assert requests.get(rules_suite.doc("users/ada"), timeout=10).status_code == 403

    broken = rules_suite.directory / "database.rules.json"
    broken.write_text('{"rules": {\n  ".read": "auth."\n}}')
    assert eventually(lambda: f"{broken}:2:" in rules_suite.output())
    assert requests.put(rules_suite.rtdb("open/x"), json=1, timeout=10).status_code == 200
    assert requests.get(rules_suite.rtdb("secret"), timeout=10).status_code == 401


def test_the_shared_suite_reads_tokens_under_the_repository_rules(suite):
    """The repository's rules end in a catch-all "test mode" match, so any caller may write; a
    token that is not a JWT is still the official error, and the owner always passes."""
    url = f"http://{suite.firestore}/v1/projects/{suite.project}/databases/(default)/documents/posts?documentId=p{uuid.uuid4().hex[:8]}"
    body = {"fields": {"title": {"stringValue": "hi"}}}
    malformed = requests.post(url, json=body, headers={"Authorization": "Bearer not-a-token"}, timeout=10)
    assert malformed.status_code == 400
    assert malformed.json()["error"]["message"] == "invalid jwt"
    assert requests.post(url, json=body, headers={"Authorization": f"Bearer {unsigned_token('ada')}"}, timeout=10).status_code == 200
    assert requests.get(url.split("?")[0] + "/missing", headers={"Authorization": "Bearer owner"}, timeout=10).status_code == 404


def test_the_python_client_over_grpc_is_the_owner(rules_suite, monkeypatch):
    """google-cloud-firestore talks gRPC to the emulator with `Bearer owner`: rules do not apply."""
    from google.cloud import firestore

    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", f"127.0.0.1:{rules_suite.firestore}")
    client = firestore.Client(project=PROJECT)
    assert rules_suite.patch("once/a").status_code == 200
    assert rules_suite.patch("once/a").status_code == 403
    client.document("once/a").set({"n": 2})
    client.document("users/bob").set({"n": 3})
    assert client.document("once/a").get().to_dict() == {"n": 2}
    assert [d.id for d in client.collection("users").stream()] == ["bob"]
