"""The Realtime Database WebSocket protocol (v5), as the JS SDK speaks it to `useEmulator(host, port)`.

A minimal stdlib WebSocket client replays the JS client's session (`/.ws?v=5&ns=<ns>`): hello,
stats, credentials, listens, writes, onDisconnect. REST writes must arrive as `d` pushes, and
WebSocket writes must be visible over REST. Each test uses its own namespace.
"""

import base64
import hashlib
import json
import os
import socket
import struct
import time
import uuid

import pytest
import requests

OWNER = {"Authorization": "Bearer owner"}


class WireClient:
    """A tiny RFC 6455 client (masked text frames) with RTDB framing (count-prefixed pieces)."""

    def __init__(self, host, port, namespace):
        self.sock = socket.create_connection((host, port), timeout=5)
        self.buffer = b""
        self.next_id = 0
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET /.ws?v=5&ns={namespace} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                "User-Agent: Firebase/5/interop/python/Node\r\n\r\n"
            ).encode()
        )
        while b"\r\n\r\n" not in self.buffer:
            self._read()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode().split("\r\n")
        assert lines[0].startswith("HTTP/1.1 101"), lines[0]
        headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
        expected = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
        assert headers["sec-websocket-accept"] == expected.decode()

    def _read(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        self.buffer += chunk

    def send_frame(self, text):
        payload = text.encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        elif len(payload) < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(payload))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def send(self, message):
        self.send_frame(json.dumps(message, separators=(",", ":")))

    def request(self, action, body):
        self.next_id += 1
        self.send({"t": "d", "d": {"r": self.next_id, "a": action, "b": body}})
        return self.next_id

    def frame(self):
        while True:
            if len(self.buffer) >= 2:
                length, offset = self.buffer[1] & 0x7F, 2
                if length == 126 and len(self.buffer) >= 4:
                    length, offset = struct.unpack(">H", self.buffer[2:4])[0], 4
                elif length == 127 and len(self.buffer) >= 10:
                    length, offset = struct.unpack(">Q", self.buffer[2:10])[0], 10
                if length < 126 or offset > 2:
                    if len(self.buffer) >= offset + length:
                        opcode = self.buffer[0] & 0x0F
                        assert self.buffer[1] & 0x80 == 0, "server frames are not masked"
                        payload = self.buffer[offset : offset + length]
                        self.buffer = self.buffer[offset + length :]
                        if opcode == 0x1:
                            return payload.decode()
                        if opcode == 0x8:
                            raise ConnectionError("close frame")
                        continue
            self._read()

    def message(self):
        text = self.frame()
        if len(text) <= 6 and text.isdigit() and int(text) > 0:
            text = "".join(self.frame() for _ in range(int(text)))
        return json.loads(text)

    def reply(self, r):
        """Reads until the answer to request `r`; returns (pushes before it, its body)."""
        pushes = []
        while True:
            msg = self.message()
            assert msg["t"] == "d", msg
            if msg["d"].get("r") == r:
                return pushes, msg["d"]["b"]
            pushes.append(msg["d"])

    def close(self):
        self.sock.close()


@pytest.fixture
def namespace(suite):
    return f"interop-ws-{uuid.uuid4().hex[:8]}"


def rest(suite, method, path, namespace, body=None):
    return requests.request(
        method, f"http://{suite.database}{path}.json?ns={namespace}", headers=OWNER, data=None if body is None else json.dumps(body), timeout=5
    )


def connect(suite, namespace):
    client = WireClient(suite.host, suite.database_port, namespace)
    hello = client.message()
    assert hello["t"] == "c" and hello["d"]["t"] == "h"
    assert hello["d"]["d"]["v"] == "5"
    assert hello["d"]["d"]["h"] == f"{suite.host}:{suite.database_port}"
    assert abs(hello["d"]["d"]["ts"] - time.time() * 1000) < 60_000
    return client


def test_js_client_session(suite, namespace):
    assert rest(suite, "PUT", "/", namespace, {"rooms": {"r1": {"title": "Lobby"}}, "msgs": {"m8": {"ts": 8}, "m9": {"ts": 9}}}).ok
    client = connect(suite, namespace)
    try:
        stats = client.request("s", {"c": {"sdk.js.10-14-0": 1}})
        assert client.reply(stats) == ([], {"s": "ok", "d": ""})
        auth = client.request("gauth", {"cred": "owner"})
        assert client.reply(auth)[1]["s"] == "ok"

        listen = client.request("q", {"p": "/rooms/r1", "h": ""})
        assert client.reply(listen) == ([{"a": "d", "b": {"p": "rooms/r1", "d": {"title": "Lobby"}}}], {"s": "ok", "d": {}})
        tagged = client.request("q", {"p": "/msgs", "q": {"i": "ts", "l": 1, "vf": "r"}, "t": 1, "h": ""})
        assert client.reply(tagged) == ([{"a": "d", "b": {"p": "msgs", "d": {"m9": {"ts": 9}}, "t": 1}}], {"s": "ok", "d": {}})

        # A REST write arrives as a `d` push at the written location.
        assert rest(suite, "PUT", "/rooms/r1/title", namespace, "Hall").ok
        assert client.message() == {"t": "d", "d": {"a": "d", "b": {"p": "rooms/r1/title", "d": "Hall"}}}

        # A WebSocket write (server timestamp included) is pushed first, acked, and visible over REST.
        put = client.request("p", {"p": "/msgs/m10", "d": {"ts": 10, "at": {".sv": "timestamp"}}})
        pushes, body = client.reply(put)
        assert body == {"s": "ok", "d": ""}
        assert len(pushes) == 1 and pushes[0]["a"] == "m" and pushes[0]["b"]["t"] == 1
        assert pushes[0]["b"]["d"]["m9"] is None and pushes[0]["b"]["d"]["m10"]["ts"] == 10
        stored = rest(suite, "GET", "/msgs/m10", namespace).json()
        assert stored["ts"] == 10 and abs(stored["at"] - time.time() * 1000) < 60_000

        merge = client.request("m", {"p": "/rooms", "d": {"r2/title": "Side", "r1/open": True}})
        pushes, body = client.reply(merge)
        assert body["s"] == "ok"
        assert pushes == [{"a": "d", "b": {"p": "rooms/r1/open", "d": True}}]
        assert rest(suite, "GET", "/rooms", namespace).json() == {"r1": {"title": "Hall", "open": True}, "r2": {"title": "Side"}}

        # Ping/pong and the bare keepalive.
        client.send({"t": "c", "d": {"t": "p", "d": {}}})
        assert client.message() == {"t": "c", "d": {"t": "o", "d": {}}}
        client.send_frame("0")

        # A long value goes out as a count frame plus pieces.
        long_text = "y" * 40_000
        get = client.request("g", {"p": "/big", "q": {}})
        assert client.reply(get)[1] == {"s": "ok", "d": None}
        assert rest(suite, "PUT", "/rooms/r1/title", namespace, long_text).ok
        assert client.message()["d"]["b"]["d"] == long_text
    finally:
        client.close()


def test_transaction_and_on_disconnect(suite, namespace):
    assert rest(suite, "PUT", "/", namespace, {"count": 41, "presence": {"ada": True}}).ok
    client = connect(suite, namespace)
    watcher = connect(suite, namespace)
    try:
        watch = watcher.request("q", {"p": "/presence", "h": ""})
        assert watcher.reply(watch)[1]["s"] == "ok"

        # hash(41) matches: written. hash(41) again: stale.
        h41 = base64.b64encode(hashlib.sha1(("number:" + struct.pack(">d", 41.0).hex()).encode()).digest()).decode()
        assert client.reply(client.request("p", {"p": "/count", "d": 42, "h": h41}))[1] == {"s": "ok", "d": ""}
        assert client.reply(client.request("p", {"p": "/count", "d": 43, "h": h41}))[1]["s"] == "datastale"
        assert rest(suite, "GET", "/count", namespace).json() == 42

        assert client.reply(client.request("o", {"p": "/presence/ada", "d": None}))[1]["s"] == "ok"
        assert client.reply(client.request("om", {"p": "/last", "d": {"ada": {".sv": "timestamp"}}}))[1]["s"] == "ok"
        client.close()  # abrupt: no close frame
        # The last child went, so the listened location itself is now null.
        assert watcher.message() == {"t": "d", "d": {"a": "d", "b": {"p": "presence", "d": None}}}
        assert rest(suite, "GET", "/presence", namespace).json() is None
        assert isinstance(rest(suite, "GET", "/last/ada", namespace).json(), int)
    finally:
        watcher.close()


def test_rules_answer_permission_denied(suite, namespace):
    rules = {"rules": {"public": {".read": True, ".write": True}, "private": {".read": "auth != null", ".write": "auth != null"}}}
    assert requests.put(
        f"http://{suite.database}/.settings/rules.json?ns={namespace}", headers=OWNER, data=json.dumps(rules), timeout=5
    ).ok
    client = connect(suite, namespace)
    try:
        assert client.reply(client.request("q", {"p": "/private", "h": ""})) == (
            [],
            {"s": "permission_denied", "d": "Permission denied"},
        )
        assert client.reply(client.request("p", {"p": "/private/x", "d": 1}))[1]["s"] == "permission_denied"
        assert client.reply(client.request("p", {"p": "/public/x", "d": 1}))[1]["s"] == "ok"
        # An unsigned JWT (as the SDKs' mock tokens) is a signed-in user.
        header = base64.urlsafe_b64encode(b'{"alg":"none","type":"JWT"}').rstrip(b"=").decode()
        payload = base64.urlsafe_b64encode(json.dumps({"sub": "ada", "user_id": "ada", "iat": int(time.time())}).encode()).rstrip(b"=").decode()
        authed = client.reply(client.request("auth", {"cred": f"{header}.{payload}."}))[1]
        assert authed["s"] == "ok" and authed["d"]["auth"]["uid"] == "ada"
        assert client.reply(client.request("p", {"p": "/private/x", "d": 2}))[1]["s"] == "ok"
        assert client.reply(client.request("auth", {"cred": "garbage"}))[1]["s"] == "invalid_token"
    finally:
        client.close()
