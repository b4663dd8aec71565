"""Client-side workloads over loopback: bulk loads, serial latency, queries, SSE fan-out, cold start."""

import itertools
import json
import os
import resource
import selectors
import socket
import subprocess
import threading
import time

from .common import PROJECT, RTDB_NAMESPACE, percentile, stop_process
from .rawhttp import Connection, encode_request

DOCUMENTS = f"/v1/projects/{PROJECT}/databases/(default)/documents"
DOCUMENT_NAME = f"projects/{PROJECT}/databases/(default)/documents"
CITIES = [f"c{i}" for i in range(10)]  # 10% selectivity per city


def document_fields(i, payload=0):
    """The benchmark document {city, score, name, age} as Firestore REST fields (JSON text),
    with a `payload` string of `payload` bytes when asked (for large snapshots)."""
    extra = ',"payload":{"stringValue":"%s"}' % ("p" * payload) if payload else ""
    return ('{"city":{"stringValue":"%s"},"score":{"integerValue":"%d"},"name":{"stringValue":"user%d"},'
            '"age":{"integerValue":"%d"}%s}' % (CITIES[i % 10], (i * 7919) % 100_000, i, i % 90, extra))


def commit_body(collection, start, count, payload=0):
    writes = ",".join('{"update":{"name":"%s/%s/d%d","fields":%s}}'
                      % (DOCUMENT_NAME, collection, i, document_fields(i, payload))
                      for i in range(start, start + count))
    return ('{"writes":[%s]}' % writes).encode()


def rtdb_patch_body(start, count):
    children = ",".join('"d%d":{"city":"%s","score":%d,"name":"user%d","age":%d}'
                        % (i, CITIES[i % 10], (i * 7919) % 100_000, i, i % 90) for i in range(start, start + count))
    return ("{%s}" % children).encode()


def firestore_commit_requests(port, collection, total, batch, payload=0, first=0):
    path = f"{DOCUMENTS}:commit"
    return [encode_request("POST", path, port, commit_body(collection, start, min(batch, first + total - start), payload))
            for start in range(first, first + total, batch)]


def rtdb_patch_requests(port, node, total, batch):
    path = f"/{node}.json?ns={RTDB_NAMESPACE}&print=silent"
    return [encode_request("PATCH", path, port, rtdb_patch_body(start, min(batch, total - start)))
            for start in range(0, total, batch)]


def bulk_load(port, requests, docs_per_request, clients=4):
    """Sends pre-encoded requests over `clients` keep-alive connections (threads).

    Returns {"docs_per_s", "first_tenth", "last_tenth", "seconds"}: the overall rate, and the rate
    over the first and the last tenth of completed requests (degradation shows as last < first).
    """
    cursor = itertools.count()
    done_times = []
    failures = []
    lock = threading.Lock()

    def worker():
        connection = Connection(port, timeout=300)
        try:
            while True:
                index = next(cursor)
                if index >= len(requests):
                    return
                status, _, body = connection.exchange(requests[index])
                finished = time.perf_counter()
                with lock:
                    done_times.append(finished)
                    if status >= 300:
                        failures.append((status, body[:300]))
        except Exception as error:
            with lock:
                failures.append((0, str(error).encode()))
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    end = time.perf_counter()
    if failures:
        status, body = failures[0]
        raise RuntimeError(f"{len(failures)} of {len(requests)} requests failed; first: {status} {body!r}")
    done_times.sort()
    docs = len(requests) * docs_per_request
    first_rate = last_rate = None
    if len(done_times) >= 20:  # tenths of fewer requests say nothing
        tenth = len(done_times) // 10
        first_rate = tenth * docs_per_request / (done_times[tenth - 1] - start)
        last_rate = tenth * docs_per_request / (end - done_times[-tenth - 1])
    return {
        "docs_per_s": docs / (end - start),
        "first_tenth": first_rate,
        "last_tenth": last_rate,
        "seconds": end - start,
        "start": start,
    }


def serial_latency(port, raw_requests, count):
    """Sends `count` requests one at a time (cycling `raw_requests`); returns (p50_us, p99_us, errors)."""
    connection = Connection(port)
    samples = []
    errors = 0
    clock = time.perf_counter_ns
    try:
        for _ in range(min(100, count)):  # warm-up
            connection.exchange(raw_requests[0])
        for i in range(count):
            raw = raw_requests[i % len(raw_requests)]
            start = clock()
            status, _, _ = connection.exchange(raw)
            samples.append(clock() - start)
            if status >= 300:
                errors += 1
    finally:
        connection.close()
    return percentile(samples, 0.5) / 1000, percentile(samples, 0.99) / 1000, errors


def echo_latency(port, count, size=256):
    """Round trip of `size` bytes through a raw loopback echo server; returns (p50_us, p99_us)."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    payload = b"x" * size
    samples = []
    clock = time.perf_counter_ns
    try:
        for i in range(count + 100):
            start = clock()
            sock.sendall(payload)
            received = 0
            while received < size:
                chunk = sock.recv(65536)
                if not chunk:
                    raise RuntimeError("echo server closed")
                received += len(chunk)
            if i >= 100:
                samples.append(clock() - start)
    finally:
        sock.close()
    return percentile(samples, 0.5) / 1000, percentile(samples, 0.99) / 1000


def structured_query(collection, city, limit=None):
    query = {
        "from": [{"collectionId": collection}],
        "where": {"fieldFilter": {"field": {"fieldPath": "city"}, "op": "EQUAL", "value": {"stringValue": city}}},
        "orderBy": [{"field": {"fieldPath": "score"}, "direction": "ASCENDING"}],
    }
    if limit is not None:
        query["limit"] = limit
    return json.dumps({"structuredQuery": query}).encode()


def run_query(connection, collection, city, limit=None):
    """Runs one runQuery; returns (milliseconds, documents returned)."""
    body = structured_query(collection, city, limit)
    start = time.perf_counter()
    status, _, response = connection.request("POST", f"{DOCUMENTS}:runQuery", body)
    elapsed = (time.perf_counter() - start) * 1000
    if status != 200:
        raise RuntimeError(f"runQuery answered {status}: {response[:300]!r}")
    return elapsed, response.count(b'"document"')


def raise_file_limit(wanted):
    """Raises RLIMIT_NOFILE (soft, and hard when allowed) to at least `wanted`; returns the soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= wanted:
        return soft
    if hard != resource.RLIM_INFINITY and hard < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, wanted))
            return wanted
        except (ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            return hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return wanted


class StreamSet:
    """K Server-Sent-Event streams on one RTDB path, read with epoll."""

    def __init__(self, port, node, count):
        self.port = port
        self.selector = selectors.EpollSelector()
        self.sockets = []
        request = encode_request("GET", f"/{node}.json?ns={RTDB_NAMESPACE}", port,
                                 headers={"Accept": "text/event-stream"})
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            sock.sendall(request)
            sock.setblocking(False)
            self.sockets.append(sock)
            # Registered once: (un)registering 10,000 sockets costs CPython ~90 ms, which would
            # otherwise fall inside every timed round.
            self.selector.register(sock, selectors.EVENT_READ)
        # Every stream first gets the response head and the initial `put` event.
        self.wait_all(b"event: put", timeout=60)

    def wait_all(self, marker, timeout):
        """Reads every stream until each has received `marker`; returns arrival times (perf_counter)."""
        pending = {}
        for index, sock in enumerate(self.sockets):
            pending[sock.fileno()] = (index, sock, bytearray())
        arrivals = [None] * len(self.sockets)
        deadline = time.perf_counter() + timeout
        while pending and time.perf_counter() < deadline:
            for key, _ in self.selector.select(timeout=1.0):
                entry = pending.get(key.fd)
                if entry is None:
                    # Done this round: drain it so level-triggered epoll stops reporting it.
                    try:
                        if not key.fileobj.recv(65536):
                            raise RuntimeError("a stream was closed by the server")
                    except BlockingIOError:
                        pass
                    continue
                index, sock, seen = entry
                try:
                    chunk = sock.recv(65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    raise RuntimeError("a stream was closed by the server")
                seen += chunk
                if marker in seen:
                    arrivals[index] = time.perf_counter()
                    del pending[key.fd]
                elif len(seen) > 8192:
                    del seen[:-len(marker)]
        if pending:
            raise RuntimeError(f"{len(pending)} of {len(self.sockets)} streams got no event within {timeout} s")
        return arrivals

    def close(self):
        for sock in self.sockets:
            sock.close()
        self.selector.close()


def fan_out_round(streams, writer, node, round_number):
    """PUTs one small value at the streams' path; returns (ms until all have it, p50 ms)."""
    marker = b'"round":%d' % round_number
    body = b'{"round":%d,"text":"fan-out"}' % round_number
    raw = encode_request("PUT", f"/{node}.json?ns={RTDB_NAMESPACE}&print=silent", writer.port, body)
    start = time.perf_counter()
    writer.sock.sendall(raw)
    arrivals = streams.wait_all(marker, timeout=120)
    status, _, response = writer.read_response()
    if status >= 300:
        raise RuntimeError(f"PUT answered {status}: {response[:200]!r}")
    delays = sorted((t - start) * 1000 for t in arrivals)
    return delays[-1], percentile(delays, 0.5)


def drop_page_cache(directory):
    """Syncs every file under `directory` and drops its pages from the page cache
    (posix_fadvise DONTNEED; no root needed), so the next read of it comes from disk."""
    for root, _, files in os.walk(directory):
        for name in files:
            fd = os.open(os.path.join(root, name), os.O_RDONLY)
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def cold_start(bench, argv, cwd, port, request, ready_status=None, timeout=60.0, on_ready=None):
    """Spawns `argv`, polls connect() every 1 ms, then sends `request` until it is answered
    (with `ready_status` when given). Returns (ms to the first answer, VmRSS KiB, VmHWM KiB);
    `on_ready(pid)`, when given, runs the moment the answer came, before the process is stopped."""
    bench.record(argv, cwd)
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        deadline = start + timeout
        while time.perf_counter() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"{os.path.basename(argv[-1])} exited with {process.returncode} during start")
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                probe.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if probe.connect_ex(("127.0.0.1", port)) != 0:
                    time.sleep(0.001)
                    continue
                try:
                    probe.sendall(request)
                    head = probe.recv(65536)
                except OSError:
                    time.sleep(0.001)
                    continue
                if not head.startswith(b"HTTP/1."):
                    time.sleep(0.001)
                    continue
                status = int(head.split(b" ", 2)[1])
                if ready_status is not None and status != ready_status:
                    time.sleep(0.001)
                    continue
                elapsed = (time.perf_counter() - start) * 1000
                if on_ready is not None:
                    on_ready(process.pid)
                figures = {}
                with open(f"/proc/{process.pid}/status") as file:
                    for line in file:
                        key, _, rest = line.partition(":")
                        if key in ("VmRSS", "VmHWM"):
                            figures[key] = int(rest.split()[0])
                return elapsed, figures.get("VmRSS"), figures.get("VmHWM")
        raise RuntimeError(f"no answer within {timeout} s")
    finally:
        stop_process(process)
