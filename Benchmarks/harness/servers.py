"""The processes a run starts: the emulator suite, nginx, the raw Swift server, an echo server;
and the wrk load generator. Every process is stopped by its PID when the run ends."""

import json
import os
import re
import stat
import time

from .common import PROJECT, free_port, free_ports, memory_kib, stop_process, wait_for_port
from .rawhttp import Connection

READY_BANNER = "All emulators ready!"

# A small Firestore-shaped document (about 220 B, the size of a typical small document).
STATIC_DOCUMENT = (
    '{"name":"projects/demo/databases/(default)/documents/users/ada","fields":'
    '{"name":{"stringValue":"Ada"},"age":{"integerValue":"36"},"city":{"stringValue":"London"}},'
    '"createTime":"2026-11-22T00:00:00Z","updateTime":"2026-11-22T00:00:00Z"}'
)


class Suite:
    """`emulators start` in a temporary project directory with a generated firebase.json."""

    def __init__(self, bench, name, import_dir=None, pinned=True):
        self.bench = bench
        self.pinned = pinned
        self.dir = os.path.join(bench.tmp, f"suite-{name}-{time.monotonic_ns()}")
        os.makedirs(self.dir)
        self.firestore_port, self.database_port, self.hub_port = free_ports(3)
        self.import_dir = import_dir
        self.process = None
        self.log = os.path.join(self.dir, "emulators.log")
        config = {
            "emulators": {
                "firestore": {"host": "127.0.0.1", "port": self.firestore_port},
                "database": {"host": "127.0.0.1", "port": self.database_port},
                "hub": {"host": "127.0.0.1", "port": self.hub_port},
                "ui": {"enabled": False},
            }
        }
        with open(os.path.join(self.dir, "firebase.json"), "w") as file:
            json.dump(config, file, indent=2)

    def argv(self):
        argv = (self.bench.pin_server if self.pinned else []) + [self.bench.emulators, "start", "--project", PROJECT]
        if self.import_dir:
            argv += ["--import", self.import_dir]
        return argv

    def start(self, timeout=120.0):
        """Starts the suite and waits for the ready banner; returns seconds to the banner."""
        started = time.perf_counter()
        self.process = self.bench.spawn(self.argv(), cwd=self.dir, log_path=self.log)
        while time.perf_counter() - started < timeout:
            if self.process.poll() is not None:
                raise RuntimeError(f"emulators exited with {self.process.returncode}:\n{self.log_tail()}")
            if READY_BANNER in self.log_text():
                return time.perf_counter() - started
            time.sleep(0.005)
        raise RuntimeError(f"no ready banner after {timeout:.0f} s:\n{self.log_tail()}")

    def stop(self):
        if self.process is not None:
            stop_process(self.process)

    def log_text(self):
        try:
            with open(self.log, encoding="utf-8", errors="replace") as file:
                return file.read()
        except OSError:
            return ""

    def log_tail(self, lines=15):
        return "\n".join(self.log_text().splitlines()[-lines:])

    def memory(self):
        return memory_kib(self.process.pid)

    def firestore(self):
        return Connection(self.firestore_port)

    def database(self):
        return Connection(self.database_port)

    def hub(self):
        return Connection(self.hub_port)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()


class Nginx:
    """nginx serving the 223 B static document, with `workers` worker processes."""

    def __init__(self, bench, workers):
        self.bench = bench
        self.workers = workers
        self.port = free_port()
        self.dir = os.path.join(bench.tmp, f"nginx-{workers}-{time.monotonic_ns()}")
        os.makedirs(os.path.join(self.dir, "www"))
        os.makedirs(os.path.join(self.dir, "logs"))
        with open(os.path.join(self.dir, "www", "doc.json"), "w") as file:
            file.write(STATIC_DOCUMENT)
        self.conf = os.path.join(self.dir, "nginx.conf")
        with open(self.conf, "w") as file:
            file.write(f"""worker_processes {workers};
daemon off;
pid {self.dir}/nginx.pid;
error_log {self.dir}/logs/error.log;
events {{ worker_connections 16384; }}
http {{
    access_log off;
    client_body_temp_path {self.dir}/body;
    # Tuned as a ceiling: cached open file, plain write for a tiny body (measured here: about
    # twice the default config's rate for this file).
    sendfile off;
    open_file_cache max=64 inactive=60s;
    tcp_nodelay on;
    keepalive_requests 1000000;
    server {{
        listen 127.0.0.1:{self.port};
        location / {{ root {self.dir}/www; default_type application/json; }}
    }}
}}
""")
        # Workers drop to an unprivileged user when started as root: let them read the files.
        for root, dirs, files in os.walk(self.dir):
            os.chmod(root, 0o755)
            for name in files:
                os.chmod(os.path.join(root, name), 0o644)
        parent = self.dir
        while parent not in ("/", "") and parent != os.path.dirname(bench.tmp):
            mode = os.stat(parent).st_mode
            os.chmod(parent, mode | stat.S_IXOTH | stat.S_IXGRP)
            parent = os.path.dirname(parent)
        self.process = None

    def __enter__(self):
        argv = self.bench.pin_server + [self.bench.nginx, "-p", self.dir, "-c", self.conf, "-e",
                                        f"{self.dir}/logs/error.log"]
        self.process = self.bench.spawn(argv, log_path=os.path.join(self.dir, "logs", "stdout.log"))
        if not wait_for_port(self.port, timeout=10):
            raise RuntimeError("nginx did not start: " + open(os.path.join(self.dir, "logs", "stdout.log")).read())
        return self

    def __exit__(self, *exc):
        stop_process(self.process)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/doc.json"


class RawServer:
    """`EmulatorBenchmarks http-serve`: this repo's epoll HTTP transport answering a tiny JSON body."""

    def __init__(self, bench):
        self.bench = bench
        self.port = free_port()
        self.process = None

    def argv(self):
        return self.bench.pin_server + [self.bench.benchmarks, "http-serve", "--port", str(self.port)]

    def __enter__(self):
        self.process = self.bench.spawn(self.argv())
        if not wait_for_port(self.port, timeout=10):
            raise RuntimeError("EmulatorBenchmarks http-serve did not start")
        return self

    def __exit__(self, *exc):
        stop_process(self.process)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/doc"


ECHO_SERVER = """
import socket, sys
server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", int(sys.argv[1]))); server.listen(16)
while True:
    connection, _ = server.accept()
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while True:
        data = connection.recv(65536)
        if not data: break
        connection.sendall(data)
    connection.close()
"""


class EchoServer:
    """A raw TCP echo server (Python), for the loopback round-trip floor."""

    def __init__(self, bench):
        self.bench = bench
        self.port = free_port()

    def __enter__(self):
        import sys
        self.process = self.bench.spawn(self.bench.pin_server + [sys.executable, "-c", ECHO_SERVER, str(self.port)])
        if not wait_for_port(self.port, timeout=10):
            raise RuntimeError("echo server did not start")
        return self

    def __exit__(self, *exc):
        stop_process(self.process)


# wrk -------------------------------------------------------------------------------------

_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


def wrk_script(bench, name, method, path_expression, body, content_type="application/json", variants=100):
    """Writes a wrk Lua script sending `method` to `variants` paths built by `path_expression`
    (Lua, with `counter` = 1…variants). The requests are formatted once and cycled, so Lua costs
    an index per request rather than a string build."""
    script = os.path.join(bench.tmp, f"{name}.lua")
    with open(script, "w") as file:
        file.write(f"""-- {name}: generated by Benchmarks/run
wrk.method = "{method}"
wrk.headers["Content-Type"] = "{content_type}"
wrk.headers["Authorization"] = "Bearer owner"
local body = {json.dumps(body)}
local requests = {{}}
for counter = 1, {variants} do
  requests[counter] = wrk.format("{method}", {path_expression}, nil, body)
end
local index = 0
request = function()
  index = index % {variants} + 1
  return requests[index]
end
""")
    return script


def run_wrk(bench, url, connections=32, script=None, seconds=None):
    """Runs wrk once; returns {"rps", "p50_ms", "p99_ms", "errors"}."""
    argv = bench.pin_load + [bench.wrk, f"-t{min(bench.wrk_threads, connections)}", f"-c{connections}",
                             f"-d{seconds or bench.wrk_seconds}s", "--latency"]
    if script:
        argv += ["-s", script]
    argv.append(url)
    output = bench.run(argv, timeout=120)
    figures = {"errors": 0}
    if match := re.search(r"Requests/sec:\s+([\d.]+)", output):
        figures["rps"] = float(match.group(1))
    for label, key in (("50%", "p50_ms"), ("99%", "p99_ms")):
        if match := re.search(rf"^\s+{re.escape(label)}\s+([\d.]+)(us|ms|s)\s*$", output, re.M):
            figures[key] = float(match.group(1)) * _UNITS[match.group(2)]
    if match := re.search(r"Non-2xx or 3xx responses: (\d+)", output):
        figures["errors"] += int(match.group(1))
    if match := re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output):
        figures["errors"] += sum(int(g) for g in match.groups())
    if "rps" not in figures:
        raise RuntimeError("could not parse wrk output:\n" + output)
    return figures


# h2load (gRPC) ---------------------------------------------------------------------------

def grpc_unary_body(bench, name, message):
    """Writes one gRPC request body (the 5-byte prefix, then `message`, a serialized protobuf) to a
    file for h2load's `-d`; returns its path."""
    path = os.path.join(bench.tmp, f"{name}.grpc")
    with open(path, "wb") as file:
        file.write(b"\x00" + len(message).to_bytes(4, "big") + message)
    return path


def run_h2load(bench, url, body_file, streams=32, seconds=None):
    """Runs h2load once: one connection, `streams` concurrent unary gRPC calls (POST of
    `body_file`) for the run's duration. Returns {"rps", "succeeded", "data_bytes"}; h2load counts
    a call as succeeded on HTTP status 200, so `data_bytes` (response DATA) tells answers from
    trailers-only errors."""
    argv = bench.pin_load + [bench.h2load, "-c1", f"-m{streams}", "-t1", f"-D{seconds or bench.wrk_seconds}",
                             "-d", body_file, "-H", "content-type: application/grpc", "-H", "te: trailers",
                             "-H", "authorization: Bearer owner", url]
    output = bench.run(argv, timeout=120)
    return parse_h2load(output)


def parse_h2load(output):
    """The figures of h2load's summary (see ``run_h2load``)."""
    rate = re.search(r"finished in [\d.]+\w*, ([\d.]+) req/s", output)
    done = re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed", output)
    data = re.search(r"traffic: .*, [\d.]+\w* \((\d+)\) data", output)
    if not rate or not done:
        raise RuntimeError("could not parse h2load output:\n" + output)
    succeeded, failed = int(done.group(1)), int(done.group(2))
    if failed:
        raise RuntimeError(f"h2load: {failed} calls failed:\n" + output)
    return {"rps": float(rate.group(1)), "succeeded": succeeded, "data_bytes": int(data.group(1)) if data else None}
