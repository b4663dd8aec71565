"""Soak: the running suite under mixed load from several kinds of client for a while.

Clients (one thread each): Firestore gRPC writes (official Python client) with an `on_snapshot`
listener, Firestore REST writes, RTDB REST writes, an RTDB SSE listener, RTDB WebSocket writes
(wire protocol v5); every minute an export through the hub, every 45 s both rules reloaded.
Writers overwrite a bounded key space, so the data stops growing after warm-up. Every 10 s the
server's RSS and open descriptors are sampled. At the end every key must hold the last value
whose write was acknowledged.

Run through Tests/Soak/run, which starts the suite and passes the ports.
"""

import argparse
import base64
import json
import os
import socket
import struct
import sys
import threading
import time

import requests

OWNER = {"Authorization": "Bearer owner"}
KEYS = 2000


class Soak:
    def __init__(self, args):
        self.args = args
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.errors = {}
        self.counts = {}
        self.acked = {}  # (kind, key) -> value
        self.fs = f"http://127.0.0.1:{args.firestore}/v1/projects/{args.project}/databases/(default)/documents"
        self.db = f"http://127.0.0.1:{args.database}"
        self.ns = f"{args.project}-default-rtdb"

    def error(self, kind, exc):
        with self.lock:
            self.errors[kind] = self.errors.get(kind, 0) + 1
            if self.errors[kind] <= 3:
                print(f"  error in {kind}: {exc!r}", flush=True)

    def ack(self, kind, key, value):
        with self.lock:
            self.acked[(kind, key)] = value
            self.counts[kind] = self.counts.get(kind, 0) + 1

    def count(self, kind, n=1):
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + n

    def loop(self, kind, body, pause=0.0):
        i = 0
        session = requests.Session()
        while not self.stop.is_set():
            try:
                body(session, i)
            except Exception as exc:  # a soak counts failures; it does not stop at the first
                self.error(kind, exc)
                time.sleep(0.2)
            i += 1
            if pause:
                time.sleep(pause)

    # Writers ---------------------------------------------------------------------------------
    def firestore_rest(self, session, i):
        key = f"k{i % KEYS}"
        r = session.patch(f"{self.fs}/soakrest/{key}", json={"fields": {"n": {"integerValue": str(i)}}},
                          headers=OWNER, timeout=30)
        r.raise_for_status()
        self.ack("firestore-rest", key, i)

    def rtdb_rest(self, session, i):
        key = f"k{i % KEYS}"
        r = session.put(f"{self.db}/soak/rest/{key}.json?ns={self.ns}", data=str(i), headers=OWNER, timeout=30)
        r.raise_for_status()
        self.ack("rtdb-rest", key, i)

    def firestore_grpc(self):
        os.environ["FIRESTORE_EMULATOR_HOST"] = f"127.0.0.1:{self.args.firestore}"
        from google.cloud import firestore

        client = firestore.Client(project=self.args.project)
        seen = []

        def on_snapshot(snapshot, changes, read_time):
            self.count("grpc-listener-changes", len(changes))

        watch = client.collection("soakgrpc").on_snapshot(on_snapshot)
        i = 0
        while not self.stop.is_set():
            try:
                batch = client.batch()
                keys = []
                for j in range(20):
                    key = f"k{(i * 20 + j) % KEYS}"
                    batch.set(client.collection("soakgrpc").document(key), {"n": i * 20 + j})
                    keys.append((key, i * 20 + j))
                batch.commit()
                for key, value in keys:
                    self.ack("firestore-grpc", key, value)
            except Exception as exc:
                self.error("firestore-grpc", exc)
                time.sleep(0.2)
            i += 1
        watch.unsubscribe()
        seen.clear()

    # Listeners -------------------------------------------------------------------------------
    def rtdb_sse(self):
        while not self.stop.is_set():
            try:
                with requests.get(f"{self.db}/soak/rest.json?ns={self.ns}", headers={**OWNER, "Accept": "text/event-stream"},
                                  stream=True, timeout=30) as r:
                    for line in r.iter_lines():
                        if self.stop.is_set():
                            return
                        if line.startswith(b"event: put") or line.startswith(b"event: patch"):
                            self.count("rtdb-sse-events")
            except Exception as exc:
                if not self.stop.is_set():
                    self.error("rtdb-sse", exc)
                    time.sleep(0.5)

    # WebSocket -------------------------------------------------------------------------------
    def rtdb_websocket(self):
        while not self.stop.is_set():
            try:
                client = Wire("127.0.0.1", self.args.database, self.ns)
                client.request("auth", {"cred": "owner"})
                i = 0
                while not self.stop.is_set() and i < 5000:  # reconnect now and then
                    key = f"k{i % KEYS}"
                    reply = client.request("p", {"p": f"/soak/ws/{key}", "d": i})
                    if reply.get("s") != "ok":
                        raise RuntimeError(f"put answered {reply}")
                    self.ack("rtdb-websocket", key, i)
                    i += 1
                client.close()
            except Exception as exc:
                if not self.stop.is_set():
                    self.error("rtdb-websocket", exc)
                    time.sleep(0.5)

    # Administration --------------------------------------------------------------------------
    def admin(self):
        rules_fs = open(os.path.join(self.args.project_dir, "firestore.rules")).read()
        rules_db = open(os.path.join(self.args.project_dir, "database.rules.json")).read()
        started = time.time()
        next_export, next_rules, n = started + 60, started + 45, 0
        while not self.stop.wait(1):
            now = time.time()
            try:
                if now >= next_export:
                    n += 1
                    path = os.path.join(self.args.work, f"export-{n % 2}")
                    r = requests.post(f"http://127.0.0.1:{self.args.hub}/_admin/export", json={"path": path}, timeout=300)
                    r.raise_for_status()
                    self.count("exports")
                    next_export = now + 60
                if now >= next_rules:
                    r = requests.put(f"http://127.0.0.1:{self.args.firestore}/emulator/v1/projects/{self.args.project}:securityRules",
                                     json={"rules": {"files": [{"name": "firestore.rules", "content": rules_fs}]}}, timeout=30)
                    r.raise_for_status()
                    r = requests.put(f"{self.db}/.settings/rules.json?ns={self.ns}", data=rules_db, headers=OWNER, timeout=30)
                    r.raise_for_status()
                    self.count("rules-reloads")
                    next_rules = now + 45
            except Exception as exc:
                self.error("admin", exc)

    # Monitor ---------------------------------------------------------------------------------
    def sample(self):
        pid = self.args.pid
        with open(f"/proc/{pid}/status") as f:
            rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) // 1024
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        return rss, fds

    def verify(self):
        lost = 0
        session = requests.Session()
        expected = {}
        for (kind, key), value in self.acked.items():
            expected.setdefault(kind, {})[key] = value
        for key, value in expected.get("firestore-rest", {}).items():
            got = session.get(f"{self.fs}/soakrest/{key}", headers=OWNER, timeout=30).json()
            if int(got.get("fields", {}).get("n", {}).get("integerValue", -1)) != value:
                lost += 1
        for key, value in expected.get("firestore-grpc", {}).items():
            got = session.get(f"{self.fs}/soakgrpc/{key}", headers=OWNER, timeout=30).json()
            if int(got.get("fields", {}).get("n", {}).get("integerValue", -1)) != value:
                lost += 1
        for kind, folder in (("rtdb-rest", "rest"), ("rtdb-websocket", "ws")):
            tree = session.get(f"{self.db}/soak/{folder}.json?ns={self.ns}", headers=OWNER, timeout=60).json() or {}
            for key, value in expected.get(kind, {}).items():
                if tree.get(key) != value:
                    lost += 1
        return lost, sum(len(v) for v in expected.values())

    def run(self):
        workers = [
            threading.Thread(target=self.loop, args=("firestore-rest", self.firestore_rest)),
            threading.Thread(target=self.loop, args=("rtdb-rest", self.rtdb_rest)),
            threading.Thread(target=self.firestore_grpc),
            threading.Thread(target=self.rtdb_sse),
            threading.Thread(target=self.rtdb_websocket),
            threading.Thread(target=self.admin),
        ]
        for w in workers:
            w.daemon = True
            w.start()
        started = time.time()
        samples = []
        print(f"{'min':>6} {'RSS MiB':>8} {'fds':>5}  writes acknowledged", flush=True)
        while time.time() - started < self.args.minutes * 60:
            time.sleep(min(10, max(0.1, self.args.minutes * 60 - (time.time() - started))))
            rss, fds = self.sample()
            samples.append((time.time() - started, rss, fds))
            with self.lock:
                summary = " ".join(f"{k}={v}" for k, v in sorted(self.counts.items()))
            print(f"{(time.time() - started) / 60:6.1f} {rss:8d} {fds:5d}  {summary}", flush=True)
        self.stop.set()
        for w in workers:
            w.join(timeout=30)
        lost, keys = self.verify()
        warm = [s for s in samples if s[0] >= self.args.minutes * 60 * 0.25] or samples
        print()
        print(f"RSS after warm-up: {warm[0][1]} MiB, at the end: {samples[-1][1]} MiB, peak: {max(s[1] for s in samples)} MiB")
        print(f"descriptors after warm-up: {warm[0][2]}, at the end: {samples[-1][2]}")
        print(f"errors: {self.errors or 'none'}")
        print(f"acknowledged keys checked: {keys}, lost: {lost}")
        return 0 if lost == 0 and not self.errors else 1


class Wire:
    """A minimal RFC 6455 client speaking the RTDB wire protocol (requests answered in order)."""

    def __init__(self, host, port, namespace):
        self.sock = socket.create_connection((host, port), timeout=30)
        self.buffer = b""
        self.next_id = 0
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /.ws?v=5&ns={namespace} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        while b"\r\n\r\n" not in self.buffer:
            self._read()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(head)
        self.receive()  # hello

    def _read(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        self.buffer += chunk

    def _frame(self):
        while len(self.buffer) < 2:
            self._read()
        n = self.buffer[1] & 0x7F
        at = 2
        if n == 126:
            while len(self.buffer) < 4:
                self._read()
            n, at = struct.unpack(">H", self.buffer[2:4])[0], 4
        elif n == 127:
            while len(self.buffer) < 10:
                self._read()
            n, at = struct.unpack(">Q", self.buffer[2:10])[0], 10
        while len(self.buffer) < at + n:
            self._read()
        payload, self.buffer = self.buffer[at:at + n], self.buffer[at + n:]
        return payload.decode()

    def receive(self):
        text = self._frame()
        if text.isdigit():  # a message in several frames
            text = "".join(self._frame() for _ in range(int(text)))
        return json.loads(text)

    def send(self, message):
        data = json.dumps(message).encode()
        mask = os.urandom(4)
        head = bytes([0x81])
        head += bytes([0x80 | len(data)]) if len(data) < 126 else bytes([0x80 | 126]) + struct.pack(">H", len(data))
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def request(self, action, body):
        self.next_id += 1
        rid = self.next_id
        self.send({"t": "d", "d": {"r": rid, "a": action, "b": body}})
        while True:
            message = self.receive()
            d = message.get("d", {})
            if message.get("t") == "d" and d.get("r") == rid:
                return d.get("b", {})

    def close(self):
        self.sock.close()


def main():
    parser = argparse.ArgumentParser()
    for name in ("firestore", "database", "hub", "pid"):
        parser.add_argument(f"--{name}", type=int, required=True)
    parser.add_argument("--project", default="demo-soak")
    parser.add_argument("--project-dir", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--minutes", type=float, default=30)
    sys.exit(Soak(parser.parse_args()).run())


if __name__ == "__main__":
    main()
