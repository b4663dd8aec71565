"""Scenarios 1–3 and the transport rows: cold start, bulk import, REST latency and throughput."""

import contextlib
import json
import threading
import time

from . import baselines
from .baselines import Missing
from .common import RTDB_NAMESPACE, Row, median
from .features import PENDING, export
from .rawhttp import Connection, encode_request
from .servers import STATIC_DOCUMENT, Nginx, RawServer, Suite, grpc_unary_body, run_h2load, run_wrk, wrk_script
from .workloads import (DOCUMENT_NAME, DOCUMENTS, bulk_load, cold_start, drop_page_cache, document_fields, firestore_commit_requests,
                        rtdb_patch_requests, serial_latency)


def baseline_or_note(compute):
    """(value, label note) for a baseline that may be missing a tool."""
    try:
        return compute(), ""
    except Missing as missing:
        return None, str(missing)


# Transport ------------------------------------------------------------------------------------

def transport(bench, features):
    """The HTTP ceilings of this machine, measured now: nginx, the bare transport, the suite's hub.

    All servers run at once (pinned to the server CPU, idle while not loaded) and wrk visits them
    in turn on every run, so a burst of noise on a shared machine hits them alike.
    """
    size = len(STATIC_DOCUMENT)
    if not bench.wrk:
        bench.add(Row("3", "HTTP GET ceiling, 32 conns (wrk)", "req/s", status="skipped: wrk not installed "
                      "(apt-get install -y wrk)"))
    else:
        with contextlib.ExitStack() as stack:
            targets = []
            if bench.nginx:
                for workers in (1, 2):
                    nginx = stack.enter_context(Nginx(bench, workers))
                    targets.append((f"nginx{workers}", nginx.url))
            raw = stack.enter_context(RawServer(bench))
            targets.append(("raw-get", raw.url))
            suite = stack.enter_context(Suite(bench, "hub"))
            targets.append(("hub", f"http://127.0.0.1:{suite.hub_port}/"))
            figures = {key: [] for key, _ in targets}
            for _ in range(bench.runs):
                for key, url in targets:
                    figures[key].append(run_wrk(bench, url)["rps"])
        for key in figures:
            bench.baselines[key] = median(figures[key])
        nginx1 = bench.baselines.get("nginx1")
        note = "" if nginx1 else "nginx not installed (apt-get install -y nginx-light)"
        if nginx1:
            bench.add(Row("3", f"nginx 1 worker, static {size} B file, GET c32", "req/s", value=nginx1,
                          samples=figures["nginx1"]))
            bench.add(Row("3", f"nginx 2 workers, static {size} B file, GET c32", "req/s",
                          value=bench.baselines["nginx2"], baseline=nginx1, baseline_label="nginx 1 worker",
                          samples=figures["nginx2"]))
        bench.add(Row("3", "EmulatorPosix bare server (http-serve), GET c32", "req/s", value=bench.baselines["raw-get"],
                      baseline=nginx1, baseline_label="nginx 1 worker" if nginx1 else note,
                      samples=figures["raw-get"]))
        bench.add(Row("3", "suite hub GET / (JSON), c32", "req/s", value=bench.baselines["hub"], baseline=nginx1,
                      baseline_label="nginx 1 worker" if nginx1 else note, samples=figures["hub"]))
    p50, p99 = baselines.echo_rtt(bench)
    bench.add(Row("3", "raw loopback round trip 256 B (Python echo), p50", "µs", "lower", value=p50))
    bench.add(Row("3", "raw loopback round trip 256 B (Python echo), p99", "µs", "lower", value=p99))
    serial, note = baseline_or_note(lambda: baselines.nginx_serial(bench))
    if serial:
        bench.add(Row("3", "nginx static GET, serial, p50 (harness client)", "µs", "lower", value=serial[0],
                      baseline=p50, baseline_label="raw round trip p50"))


def wrk_against_nginx(bench, targets):
    """Runs wrk on each (key, url, script) target and on nginx (1 worker, static file) in turn,
    `runs` times, so the baseline sees the same moment of a shared machine. A target whose `url`
    is a function is run by calling it (another load generator); it returns req/s.

    Returns (samples by key, nginx median or None, label for the baseline column).
    """
    with contextlib.ExitStack() as stack:
        plan = list(targets)
        if bench.nginx:
            nginx = stack.enter_context(Nginx(bench, 1))
            plan.insert(0, ("nginx", nginx.url, None))
        samples = {key: [] for key, _, _ in plan}
        for _ in range(bench.runs):
            for key, url, script in plan:
                samples[key].append(url() if callable(url) else run_wrk(bench, url, script=script)["rps"])
    if "nginx" in samples:
        return samples, median(samples.pop("nginx")), "nginx 1 worker GET, interleaved"
    return samples, None, "nginx not installed (apt-get install -y nginx-light)"


# 1. Cold start --------------------------------------------------------------------------------

def cold_start_scenario(bench, features):
    suite = Suite(bench, "cold")
    request = encode_request("GET", f"{DOCUMENTS}/cold/probe", suite.firestore_port)
    times, rss = [], []
    for _ in range(1 if bench.quick else max(bench.runs, 5)):
        ms, vmrss, _ = cold_start(bench, suite.argv(), suite.dir, suite.firestore_port, request)
        times.append(ms)
        rss.append(vmrss)
    raw_ms, raw_rss = baselines.raw_cold_start(bench)
    bench.add(Row("1", "cold start to first answer, empty (emulators start)", "ms", "lower", value=median(times),
                  baseline=raw_ms, baseline_label="bare server cold start", target=100, samples=times))
    bench.add(Row("7", "idle RSS after start and first request", "MiB", "lower", value=median(rss) / 1024,
                  baseline=raw_rss / 1024, baseline_label="bare server idle RSS", target=30))

    name = "cold start to first read, 100k-doc snapshot (--import)"
    if not (features.firestore and features.snapshot):
        bench.add(Row("1", name, "ms", "lower", target=1000, status=PENDING))
        return
    count = bench.size(100_000, 2_000)
    directory = make_export(bench, count, "cold-import")
    importing = Suite(bench, "cold-import", import_dir=directory)
    request = encode_request("GET", f"{DOCUMENTS}/bulk/d0", importing.firestore_port)
    # Warm (the export's pages cached, as right after a buffered export) and cold (dropped from
    # the page cache first, as after a reboot), alternating.
    warm, cold = [], []
    bench.describe(f"before each cold-page-cache start: fsync + posix_fadvise(DONTNEED) on every file of {directory}")
    for _ in range(1 if bench.quick else max(bench.runs, 3)):
        for samples, drop in ((warm, False), (cold, True)):
            if drop:
                drop_page_cache(directory)
            ms, _, _ = cold_start(bench, importing.argv(), importing.dir, importing.firestore_port, request,
                                  ready_status=200)
            samples.append(ms)
    label = name.replace("100k", f"{count // 1000}k")
    bench.add(Row("1", label, "ms", "lower", value=median(warm),
                  baseline=raw_ms, baseline_label="bare server cold start", target=1000, samples=warm))
    bench.add(Row("1", label.replace("(--import)", "(--import), cold page cache"), "ms", "lower", value=median(cold),
                  baseline=raw_ms, baseline_label="bare server cold start", target=1000, samples=cold))


def make_export(bench, count, name, payload=0):
    """Seeds `count` documents into a fresh suite and exports them; returns the export directory."""
    with Suite(bench, f"{name}-seed") as suite:
        requests = firestore_commit_requests(suite.firestore_port, "bulk", count, 500, payload=payload)
        bulk_load(suite.firestore_port, requests, 500)
        directory = f"{suite.dir}/export"
        if export(suite, directory) is None:
            raise RuntimeError("the hub export did not write an export")
    return directory


# 2. Bulk import -------------------------------------------------------------------------------

def bulk_scenario(bench, features):
    total = bench.bulk_docs
    mock, note = baseline_or_note(lambda: baselines.mock_firestore(bench))
    mock_rate = mock["set_per_s"] if mock else None
    mock_label = "mock-firestore set()" if mock else note
    label = f"{total // 1000}k" if total < 1_000_000 else f"{total // 1_000_000}M"

    name = f"Firestore REST commit, {label} docs in 500-doc batches, 4 clients"
    if not features.firestore:
        bench.add(Row("2", name, "docs/s", target=50_000, status=PENDING))
        bench.add(Row("2", "Firestore REST single-doc create (POST), c32", "req/s", target=20_000, status=PENDING))
    else:
        requests = None
        rates, ratios = [], []
        for _ in range(bench.runs):
            with Suite(bench, "bulk-firestore") as suite:
                requests = requests or firestore_commit_requests(suite.firestore_port, "bulk", total, 500)
                bench.describe(f"POST {DOCUMENTS}:commit ×{len(requests)} (500 writes each), 4 keep-alive clients")
                result = bulk_load(suite.firestore_port, requests, 500)
            rates.append(result["docs_per_s"])
            if result["first_tenth"]:
                ratios.append(result["last_tenth"] / result["first_tenth"])
        requests = None
        bench.add(Row("2", name, "docs/s", value=median(rates), baseline=mock_rate, baseline_label=mock_label,
                      target=50_000, samples=rates))
        bench.add(Row("2", "  same: last-tenth rate / first-tenth rate", "×", value=median(ratios), target=0.8,
                      status="" if ratios else "n/a (fewer than 20 batches)"))
        post_c32(bench)

    name = f"RTDB REST PATCH, {label} children in 500-child batches, 4 clients"
    if not features.database:
        bench.add(Row("2", name, "docs/s", target=50_000, status=PENDING))
        bench.add(Row("2", name + ", 1 SSE listener", "docs/s", target=50_000, status=PENDING))
        return
    plain, heard = [], []
    requests = None
    for listen in (False, True):
        for _ in range(bench.runs):
            with Suite(bench, "bulk-rtdb") as suite:
                requests = requests or rtdb_patch_requests(suite.database_port, "bulk", total, 500)
                bench.describe(f"PATCH /bulk.json ×{len(requests)} (500 children each), 4 keep-alive clients, "
                               f"listener: {'1 SSE stream on /bulk.json' if listen else 'none'}")
                listener = Listener(suite.database_port, "bulk", len(requests)) if listen else None
                result = bulk_load(suite.database_port, requests, 500)
                if listener:
                    seconds = listener.finish() - result["start"]
                    heard.append(total / max(seconds, result["seconds"]))
                else:
                    plain.append(result["docs_per_s"])
    bench.add(Row("2", name, "docs/s", value=median(plain), baseline=mock_rate, baseline_label=mock_label,
                  target=50_000, samples=plain))
    bench.add(Row("2", name + ", 1 SSE listener (until it heard all)", "docs/s", value=median(heard),
                  baseline=median(plain), baseline_label="RTDB without listener", target=50_000, samples=heard))


class Listener:
    """One SSE stream drained by a thread, counting `patch` events until `expected` arrived."""

    def __init__(self, port, node, expected):
        self.expected = expected
        self.count = 0
        self.last = None
        self.connection = Connection(port, timeout=600)
        self.connection.sock.sendall(encode_request("GET", f"/{node}.json?ns={RTDB_NAMESPACE}", port,
                                                    headers={"Accept": "text/event-stream"}))
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self.drain, daemon=True)
        self.thread.start()
        if not self.ready.wait(30):
            raise RuntimeError("the SSE listener got no initial event")

    def drain(self):
        marker = b"event: patch"
        tail = b""
        while self.count < self.expected:
            chunk = self.connection.sock.recv(1 << 20)
            if not chunk:
                break
            if not self.ready.is_set() and b"event: put" in tail + chunk:
                self.ready.set()
            window = tail + chunk
            self.count += window.count(marker) - tail.count(marker)
            tail = window[-len(marker):]
            self.last = time.perf_counter()
        self.ready.set()

    def finish(self, timeout=600):
        self.thread.join(timeout)
        self.connection.close()
        if self.count < self.expected:
            raise RuntimeError(f"the SSE listener heard {self.count} of {self.expected} patch events")
        return self.last


def post_c32(bench):
    if not bench.wrk:
        bench.add(Row("2", "Firestore REST single-doc create (POST), c32", "req/s", target=20_000,
                      status="skipped: wrk not installed"))
        return
    body = '{"fields":%s}' % document_fields(7)
    script = wrk_script(bench, "firestore-post", "POST", f'"{DOCUMENTS}/posts"', body)
    with Suite(bench, "post") as suite:
        samples, nginx1, label = wrk_against_nginx(
            bench, [("post", f"http://127.0.0.1:{suite.firestore_port}/", script)])
    bench.add(Row("2", "Firestore REST single-doc create (POST), c32", "req/s", value=median(samples["post"]),
                  baseline=nginx1, baseline_label=label, target=20_000, samples=samples["post"]))


# 3. Latency and throughput --------------------------------------------------------------------

def latency_scenario(bench, features):
    serial, note = baseline_or_note(lambda: baselines.nginx_serial(bench))
    rtt = baselines.echo_rtt(bench)
    base50, base99, label = (serial[0], serial[1], "nginx GET, same client") if serial else (rtt[0], rtt[1],
                                                                                              "raw round trip")
    count = bench.size(5000, 200)
    payload = "x" * 900  # ~1 KB documents

    if not features.firestore:
        for what in ("GET", "PATCH"):
            bench.add(Row("3", f"Firestore {what} 1 KB doc, serial, p50", "µs", "lower", target=200, status=PENDING))
            bench.add(Row("3", f"Firestore {what} 1 KB doc, serial, p99", "µs", "lower", target=1000, status=PENDING))
            bench.add(Row("3", f"Firestore {what} 1 KB doc, c32", "req/s", target=30_000, status=PENDING))
    else:
        with Suite(bench, "latency") as suite:
            port = suite.firestore_port
            body = lambda i: ('{"fields":{"payload":{"stringValue":"%s"},"n":{"integerValue":"%d"}}}'
                              % (payload, i)).encode()
            patches = [encode_request("PATCH", f"{DOCUMENTS}/lat/d{i}", port, body(i)) for i in range(100)]
            gets = [encode_request("GET", f"{DOCUMENTS}/lat/d{i}", port) for i in range(100)]
            serial_rows(bench, "Firestore PATCH 1 KB doc", port, patches, count, base50, base99, label)
            serial_rows(bench, "Firestore GET 1 KB doc", port, gets, count, base50, base99, label)
            if bench.wrk:
                get_script = wrk_script(bench, "firestore-get", "GET", f'"{DOCUMENTS}/lat/d" .. (counter % 100)', "")
                patch_script = wrk_script(bench, "firestore-patch", "PATCH", f'"{DOCUMENTS}/lat/d" .. (counter % 100)',
                                          body(1).decode())
                url = f"http://127.0.0.1:{port}/"
                targets = [("GET", url, get_script), ("PATCH", url, patch_script)]
                if bench.h2load:
                    targets.append(("gRPC", grpc_get_runner(bench, port), None))
                samples, nginx1, nginx_label = wrk_against_nginx(bench, targets)
                for what in ("GET", "PATCH"):
                    bench.add(Row("3", f"Firestore {what} 1 KB doc, c32", "req/s", value=median(samples[what]),
                                  baseline=nginx1, baseline_label=nginx_label, target=30_000, samples=samples[what]))
                name = "Firestore gRPC GetDocument 1 KB doc, 32 streams on 1 connection (h2load)"
                if "gRPC" in samples:
                    bench.add(Row("3", name, "req/s", value=median(samples["gRPC"]), baseline=median(samples["GET"]),
                                  baseline_label="REST GET c32, interleaved", samples=samples["gRPC"]))
                else:
                    bench.add(Row("3", name, "req/s", status="skipped: h2load not installed "
                                  "(apt-get install -y nghttp2-client)"))

    if not features.database:
        bench.add(Row("3", "RTDB GET 1 KB node, serial, p50", "µs", "lower", target=200, status=PENDING))
        bench.add(Row("3", "RTDB GET 1 KB node, c32", "req/s", target=30_000, status=PENDING))
        bench.add(Row("3", "RTDB PUT 1 KB node, c32", "req/s", target=30_000, status=PENDING))
        return
    with Suite(bench, "latency-rtdb") as suite:
        port = suite.database_port
        node = json.dumps({"payload": payload, "n": 1})
        puts = [encode_request("PUT", f"/lat/d{i}.json?ns={RTDB_NAMESPACE}&print=silent", port, node.encode())
                for i in range(100)]
        gets = [encode_request("GET", f"/lat/d{i}.json?ns={RTDB_NAMESPACE}", port) for i in range(100)]
        serial_rows(bench, "RTDB PUT 1 KB node", port, puts, count, base50, base99, label, p99=False)
        serial_rows(bench, "RTDB GET 1 KB node", port, gets, count, base50, base99, label)
        if bench.wrk:
            get_script = wrk_script(bench, "rtdb-get", "GET",
                                    f'"/lat/d" .. (counter % 100) .. ".json?ns={RTDB_NAMESPACE}"', "")
            put_script = wrk_script(bench, "rtdb-put", "PUT",
                                    f'"/lat/d" .. (counter % 100) .. ".json?ns={RTDB_NAMESPACE}&print=silent"', node)
            url = f"http://127.0.0.1:{port}/"
            samples, nginx1, nginx_label = wrk_against_nginx(bench, [("GET", url, get_script), ("PUT", url, put_script)])
            for what in ("GET", "PUT"):
                bench.add(Row("3", f"RTDB {what} 1 KB node, c32", "req/s", value=median(samples[what]), baseline=nginx1,
                              baseline_label=nginx_label, target=30_000, samples=samples[what]))


def grpc_get_runner(bench, port):
    """A function running h2load's unary `GetDocument` calls on `lat/d1` (one of the 1 KB
    documents the REST rows read), checking each run's answers carried documents."""
    name = f"{DOCUMENT_NAME}/lat/d1".encode()
    body = grpc_unary_body(bench, "firestore-get", b"\x0a" + bytes([len(name)]) + name)  # GetDocumentRequest.name
    url = f"http://127.0.0.1:{port}/google.firestore.v1.Firestore/GetDocument"

    def run():
        figures = run_h2load(bench, url, body)
        if figures["data_bytes"] is not None and figures["data_bytes"] < 900 * figures["succeeded"]:
            raise RuntimeError("h2load: the GetDocument answers carried no documents (a gRPC error?)")
        return figures["rps"]
    return run


def serial_rows(bench, name, port, raw, count, base50, base99, label, p99=True):
    p50s, p99s, errors = [], [], 0
    bench.describe(f"{name}: {count} requests one at a time on 1 keep-alive connection")
    for _ in range(bench.runs):
        p50, p99_, failed = serial_latency(port, raw, count)
        p50s.append(p50)
        p99s.append(p99_)
        errors += failed
    if errors:
        raise RuntimeError(f"{name}: {errors} requests failed")
    bench.add(Row("3", f"{name}, serial, p50", "µs", "lower", value=median(p50s), baseline=base50,
                  baseline_label=label + " p50", target=200, samples=p50s))
    if p99:
        bench.add(Row("3", f"{name}, serial, p99", "µs", "lower", value=median(p99s), baseline=base99,
                      baseline_label=label + " p99", target=1000, samples=p99s))
