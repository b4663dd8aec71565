#!/usr/bin/env python3
"""Regenerates the repository's emulator-data/ example snapshot with our own binary.

    swift build && python3 Tests/Interop/seed_emulator_data.py [path/to/emulators]

Starts the suite on free ports in a scratch project (project demo-emulators, as .firebaserc),
writes the documents of the "Map Cloud Firestore data with Swift Codable" guide (books, colors,
programming languages) and the users / posts / user-posts tree of the Realtime Database guide
through the REST APIs, runs `emulators export`, and replaces emulator-data/ with the result.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECT = "demo-emulators"
NAMESPACE = f"{PROJECT}-default-rtdb"


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def request(method, url, body):
    data = json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Authorization": "Bearer owner"})
    with urllib.request.urlopen(req, timeout=10) as reply:
        assert reply.status == 200, (url, reply.status)


def string(v): return {"stringValue": v}
def integer(v): return {"integerValue": str(v)}
def timestamp(v): return {"timestampValue": v}
def array(*values): return {"arrayValue": {"values": list(values)}}
def mapping(**fields): return {"mapValue": {"fields": fields}}


DOCUMENTS = {
    "books/hitchhiker": {
        "title": string("The Hitchhiker's Guide to the Galaxy"),
        "numberOfPages": integer(816),
        "author": string("Douglas Adams"),
        "genres": array(string("Science Fiction"), string("Comedy")),
        "cover": mapping(
            small=string("https://example.com/covers/hitchhiker-small.png"),
            medium=string("https://example.com/covers/hitchhiker-medium.png"),
            large=string("https://example.com/covers/hitchhiker-large.png")),
        "tags": array(mapping(title=string("funny"), color=string("#FFD700FF")),
                      mapping(title=string("space"), color=string("#1E90FFFF"))),
    },
    "books/restaurant": {
        "title": string("The Restaurant at the End of the Universe"),
        "numberOfPages": integer(208),
        "author": string("Douglas Adams"),
        "genres": array(string("Science Fiction"), string("Comedy")),
    },
    # The guide's view model fetches this id to show a decoding failure: numberOfPages is not a number.
    "books/invalid-data": {
        "title": string("A book whose page count is text"),
        "numberOfPages": string("a great many"),
        "author": string("Unknown"),
    },
    "colors/red": {"name": string("Red"), "color": string("#FF0000FF")},
    "colors/green": {"name": string("Green"), "color": string("#00FF00FF")},
    "colors/blue": {"name": string("Blue"), "color": string("#0000FFFF")},
    "programming-languages/ada": {"language_name": string("Ada"), "year": timestamp("1843-01-01T00:00:00Z")},
    "programming-languages/swift": {"language_name": string("Swift"), "year": timestamp("2014-06-02T00:00:00Z")},
}

POST = {"uid": "ada", "author": "ada", "title": "Hello, Realtime Database",
        "body": "Written with updateChildValues: /posts and /user-posts at once.", "starCount": 1,
        "stars": {"grace": True}}
SECOND = {"uid": "grace", "author": "grace", "title": "Transactions", "body": "starCount moves atomically.",
          "starCount": 0}
DATABASE = {
    "users": {"ada": {"username": "ada"}, "grace": {"username": "grace"}},
    "posts": {"-NkFirstPost0000000": POST, "-NkSecondPost000000": SECOND},
    "user-posts": {"ada": {"-NkFirstPost0000000": POST}, "grace": {"-NkSecondPost000000": SECOND}},
}


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / ".build/debug/emulators")
    work = Path(tempfile.mkdtemp(prefix="emulators-seed-"))
    firestore, database, hub = free_ports(3)
    (work / "firebase.json").write_text(json.dumps({
        "firestore": {}, "database": {},
        "emulators": {"firestore": {"port": firestore}, "database": {"port": database}, "hub": {"port": hub},
                      "ui": {"enabled": False}}}))
    (work / "tmp").mkdir()
    env = dict(os.environ, TMPDIR=str(work / "tmp"))
    log = (work / "suite.log").open("w")
    process = subprocess.Popen([binary, "start", "--project", PROJECT], cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while "All emulators ready" not in (work / "suite.log").read_text():
            if process.poll() is not None or time.monotonic() > deadline:
                sys.exit("the suite did not start:\n" + (work / "suite.log").read_text())
            time.sleep(0.05)
        for path, fields in DOCUMENTS.items():
            request("PATCH", f"http://127.0.0.1:{firestore}/v1/projects/{PROJECT}/databases/(default)/documents/{path}",
                    {"fields": fields})
        request("PUT", f"http://127.0.0.1:{database}/.json?ns={NAMESPACE}", DATABASE)
        result = subprocess.run([binary, "export", "export", "--project", PROJECT], cwd=work, env=env,
                                capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            sys.exit("export failed:\n" + result.stdout + result.stderr)
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    target = ROOT / "emulator-data"
    # Only export entries live there, so --export-on-exit may replace the directory.
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(work / "export", target)
    shutil.rmtree(work, ignore_errors=True)
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
