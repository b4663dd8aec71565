"""A minimal HTTP/1.1 keep-alive client over a raw socket (no library in the timed path)."""

import socket


class HTTPError(Exception):
    pass


def encode_request(method, path, port, body=b"", headers=None):
    """The exact bytes of one request, with `Authorization: Bearer owner` (bypasses rules)."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Authorization: Bearer owner"]
    if body or method in ("POST", "PUT", "PATCH"):
        lines.append("Content-Type: application/json")
        lines.append(f"Content-Length: {len(body)}")
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class Connection:
    """One keep-alive connection to 127.0.0.1:port."""

    def __init__(self, port, timeout=60.0):
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = bytearray()

    def close(self):
        self.sock.close()

    def request(self, method, path, body=b"", headers=None):
        """Sends one request and returns (status, headers, body)."""
        if isinstance(body, str):
            body = body.encode()
        return self.exchange(encode_request(method, path, self.port, body, headers), head=(method == "HEAD"))

    def exchange(self, raw, head=False):
        """Sends pre-encoded request bytes and reads one response."""
        self.sock.sendall(raw)
        return self.read_response(head)

    def _fill(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise HTTPError("connection closed by server")
        self.buffer += chunk

    def read_response(self, head=False):
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end >= 0:
                break
            self._fill()
        lines = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
        del self.buffer[:end + 4]
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[1].isdigit():
            raise HTTPError(f"bad status line {lines[0]!r}")
        status = int(parts[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if head or status in (204, 304) or 100 <= status < 200:
            return status, headers, b""
        if "content-length" in headers:
            length = int(headers["content-length"])
            while len(self.buffer) < length:
                self._fill()
            body = bytes(self.buffer[:length])
            del self.buffer[:length]
            return status, headers, body
        if "chunked" in headers.get("transfer-encoding", "").lower():
            return status, headers, self._read_chunked()
        # Read to close.
        while True:
            try:
                self._fill()
            except HTTPError:
                break
        body = bytes(self.buffer)
        self.buffer.clear()
        return status, headers, body

    def _read_chunked(self):
        body = bytearray()
        while True:
            while (end := self.buffer.find(b"\r\n")) < 0:
                self._fill()
            size = int(bytes(self.buffer[:end]).split(b";")[0], 16)
            del self.buffer[:end + 2]
            if size == 0:
                while (end := self.buffer.find(b"\r\n")) < 0:
                    self._fill()
                # Skip trailers (none expected) up to the empty line.
                while end != 0:
                    del self.buffer[:end + 2]
                    while (end := self.buffer.find(b"\r\n")) < 0:
                        self._fill()
                del self.buffer[:2]
                return bytes(body)
            while len(self.buffer) < size + 2:
                self._fill()
            body += self.buffer[:size]
            del self.buffer[:size + 2]


def request_once(port, method, path, body=b"", headers=None):
    connection = Connection(port)
    try:
        return connection.request(method, path, body, headers)
    finally:
        connection.close()
