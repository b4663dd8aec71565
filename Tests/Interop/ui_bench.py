#!/usr/bin/env python3
"""The Emulator UI's benchmark (issue 25), in one run of one suite and one headless Chromium:

1. memory of the page (JS heap, DevTools `Performance.getMetrics`) and of the suite (VmRSS)
   while the Requests view is open and the emulators make rules decisions at a target rate
   (default 10,000/s: RTDB REST GETs by a signed-in user, pipelined on keep-alive connections
   of several processes, each one a decision of `auth != null`); says what rate was reached;
2. time to first render of a Firestore collection view at 1,000 / 100,000 / 1,000,000 documents
   and of an RTDB node with 100,000 children (seeded through REST: 500-document commits, one
   PUT), from navigation start to the first row and to the full first page (100 rows),
   median of `--runs` loads.

    python3 Tests/Interop/ui_bench.py .build/release/emulators [--sizes 1000,100000,1000000]
        [--children 100000] [--rate 10000] [--seconds 10] [--runs 3]
        [--processes 4] [--connections 16] [--depth 256] [--requests-only]

The streaming part also prints the CPU the suite and the generator spent per decision, to tell
which of them bounds the rate reached. The generator keeps at most processes × connections ×
depth requests unanswered: on a loaded machine 2 × 8 × 64 (1,024) held the rate to 4,000–8,700/s
by round-trip time alone, with the suite's CPU far from saturated.

Standard library only; Chromium is Debian's `chromium` (tests/chromium.py drives it).
"""

import argparse
import base64
import http.client
import json
import multiprocessing
import os
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "tests"))
from chromium import Browser, chromium_binary  # noqa: E402

PROJECT = "demo-ui-bench"
NAMESPACE = f"{PROJECT}-default-rtdb"
DATABASE_RULES = {"rules": {".read": False, ".write": False, "stream": {"$key": {".read": "auth != null"}}}}
FIRESTORE_RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /{document=**} { allow read, write: if request.auth != null; }
  }
}
"""


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def mock_token(uid):
    def part(value):
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()
    return part({"alg": "none", "typ": "JWT"}) + "." + part(
        {"sub": uid, "user_id": uid, "iat": 0, "exp": 9999999999, "aud": PROJECT, "iss": "bench",
         "firebase": {"sign_in_provider": "custom"}}) + "."


def cpu_seconds(pid):
    """User + system CPU time of process `pid` so far (from /proc/pid/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def fmt_mib(kib):
    return f"{kib / 1024:.1f} MiB"


# ---- seeding ---------------------------------------------------------------------------------

def seed_firestore(port, collection, count, threads=4, batch=500, project=PROJECT):
    """`count` small documents `d0000000…` through 500-write commits on `threads` connections."""
    root = f"projects/{project}/databases/(default)/documents"
    batches = [(start, min(start + batch, count)) for start in range(0, count, batch)]
    lock = threading.Lock()
    failures = []

    def worker():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        while True:
            with lock:
                if not batches:
                    break
                start, end = batches.pop()
            writes = [{"update": {"name": f"{root}/{collection}/d{i:07d}", "fields": {"n": {"integerValue": str(i)}}}}
                      for i in range(start, end)]
            conn.request("POST", f"/v1/{root}:commit", json.dumps({"writes": writes}),
                         {"Authorization": "Bearer owner", "Content-Type": "application/json"})
            reply = conn.getresponse()
            body = reply.read()
            if reply.status != 200:
                failures.append(body[:300])
                break
        conn.close()

    started = time.monotonic()
    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    if failures:
        raise SystemExit(f"seeding {collection} failed: {failures[0]!r}")
    return time.monotonic() - started


def seed_database(port, node, count, namespace=NAMESPACE):
    """`count` leaf children `k000000…` under `/node`, in one PUT."""
    started = time.monotonic()
    body = json.dumps({f"k{i:06d}": i for i in range(count)})
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    conn.request("PUT", f"/{node}.json?ns={namespace}", body, {"Authorization": "Bearer owner"})
    reply = conn.getresponse()
    text = reply.read()
    if reply.status != 200:
        raise SystemExit(f"seeding /{node} failed: {reply.status} {text[:300]!r}")
    return time.monotonic() - started


# ---- the decision stream ---------------------------------------------------------------------

def stream_worker(port, rate, seconds, connections, depth, result):
    """Sends pipelined GETs at `rate`/s over `connections` keep-alive sockets (at most `depth`
    unanswered on each) for `seconds`; puts (sent, answered, non-200, elapsed, CPU seconds)
    into `result`."""
    token = mock_token("streamer")
    requests = [(f"GET /stream/k{i % 64}.json?ns={NAMESPACE} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 f"Authorization: Bearer {token}\r\n\r\n").encode() for i in range(64)]
    socks = []
    for _ in range(connections):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
        socks.append(s)
    state = {s.fileno(): {"out": b"", "outstanding": 0, "tail": b"", "tail200": b""} for s in socks}
    status, ok = b"HTTP/1.1 ", b"HTTP/1.1 200"
    sent = answered = good = 0
    started = time.monotonic()
    end = started + seconds
    k = 0
    while True:
        now = time.monotonic()
        if now < end:
            due = int((now - started) * rate) - sent
            for s in socks:
                st = state[s.fileno()]
                room = min(due, depth - st["outstanding"])
                if room > 0:
                    st["out"] += b"".join(requests[(k + j) % 64] for j in range(room))
                    k += room
                    st["outstanding"] += room
                    sent += room
                    due -= room
        elif all(st["outstanding"] == 0 for st in state.values()) or now > end + 10:
            break
        writers = []
        for s in socks:
            st = state[s.fileno()]
            if st["out"]:
                try:
                    n = s.send(st["out"])
                    st["out"] = st["out"][n:]
                except BlockingIOError:
                    pass
                if st["out"]:
                    writers.append(s)
        readable, _, _ = select.select(socks, writers, [], 0.002)
        for s in readable:
            st = state[s.fileno()]
            try:
                chunk = s.recv(1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                raise SystemExit("the suite closed a stream connection")
            # A status line split across reads: the kept tail (one byte shorter than the
            # pattern) never holds a whole one, so nothing is counted twice.
            data = st["tail"] + chunk
            n = data.count(status)
            st["tail"] = data[-(len(status) - 1):]
            data200 = st["tail200"] + chunk
            good += data200.count(ok)
            st["tail200"] = data200[-(len(ok) - 1):]
            st["outstanding"] -= n
            answered += n
    elapsed = time.monotonic() - started
    for s in socks:
        s.close()
    cpu = os.times()
    result.put((sent, answered, answered - good, elapsed, cpu.user + cpu.system))


def stream_decisions(port, rate, seconds, processes=4, connections=16, depth=256):
    result = multiprocessing.Queue()
    workers = [multiprocessing.Process(target=stream_worker, args=(port, rate / processes, seconds, connections, depth, result))
               for _ in range(processes)]
    for w in workers:
        w.start()
    return workers, result


# ---- the page --------------------------------------------------------------------------------

MARKS = r"""
(() => {
  const want = {
    fsFirst: '#fs-document-list a', fsPage: '#fs-document-list .more, #fs-document-list a:nth-child(100)',
    dbFirst: '#db-tree .children .node', dbPage: '#db-tree > .node[data-render-ms]',
  };
  window.__marks = {};
  const check = () => {
    for (const [name, selector] of Object.entries(want)) {
      if (!(name in window.__marks) && document.querySelector(selector)) window.__marks[name] = performance.now();
    }
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-render-ms'] });
})();
"""


def time_view(browser, url, first, page, runs):
    firsts, pages = [], []
    for _ in range(runs):
        browser.open("about:blank")
        time.sleep(0.3)
        browser.open(url)
        browser.wait_for(f"window.__marks && window.__marks.{page} !== undefined", timeout=120)
        marks = browser.evaluate("window.__marks")
        firsts.append(marks[first])
        pages.append(marks[page])
    return statistics.median(firsts), statistics.median(pages), firsts, pages


def heap(browser):
    metrics = {m["name"]: m["value"] for m in browser.call("Performance.getMetrics", session=browser.session)["metrics"]}
    return metrics.get("JSHeapUsedSize", 0) / 1024, metrics.get("JSHeapTotalSize", 0) / 1024, metrics.get("Nodes", 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--sizes", default="1000,100000,1000000")
    parser.add_argument("--children", type=int, default=100000)
    parser.add_argument("--rate", type=int, default=10000)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--processes", type=int, default=4, help="generator processes")
    parser.add_argument("--connections", type=int, default=16, help="keep-alive connections per generator process")
    parser.add_argument("--depth", type=int, default=256, help="unanswered requests per connection at most")
    parser.add_argument("--requests-only", action="store_true", help="only the Requests view part")
    parser.add_argument("--screenshots", help="directory for screenshots")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    binary = os.path.abspath(args.binary)
    chromium = chromium_binary()
    if not chromium:
        raise SystemExit("ui_bench: chromium is not installed")

    work = Path(tempfile.mkdtemp(prefix="ui-bench-"))
    firestore, database, hub, ui = free_ports(4)
    (work / "database.rules.json").write_text(json.dumps(DATABASE_RULES))
    (work / "firestore.rules").write_text(FIRESTORE_RULES)
    (work / "firebase.json").write_text(json.dumps({
        "firestore": {"rules": "firestore.rules"}, "database": {"rules": "database.rules.json"},
        "emulators": {"firestore": {"port": firestore}, "database": {"port": database}, "hub": {"port": hub}, "ui": {"port": ui}}}))
    (work / "tmp").mkdir()
    log = work / "suite.log"
    suite = subprocess.Popen([binary, "start", "--project", PROJECT], cwd=work, env=dict(os.environ, TMPDIR=str(work / "tmp")),
                             stdout=log.open("w"), stderr=subprocess.STDOUT)
    browser = None
    try:
        deadline = time.monotonic() + 60
        while "All emulators ready" not in log.read_text():
            if suite.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("ui_bench: the suite did not start:\n" + log.read_text())
            time.sleep(0.05)
        base = f"http://127.0.0.1:{ui}"
        print(f"ui_bench: {binary}, chromium {chromium}, load average {os.getloadavg()[0]:.1f}")
        browser = Browser(chromium, work / "profile")
        browser.call("Performance.enable", session=browser.session)
        browser.call("Page.addScriptToEvaluateOnNewDocument", {"source": MARKS}, session=browser.session)

        # 1. The Requests view while decisions stream in.
        conn = http.client.HTTPConnection("127.0.0.1", database)
        conn.request("PUT", f"/stream.json?ns={NAMESPACE}", json.dumps({f"k{i}": i for i in range(64)}), {"Authorization": "Bearer owner"})
        conn.getresponse().read()
        browser.open(base + "/requests")
        browser.wait_for("document.querySelector('#requests-table')")
        time.sleep(2)
        browser.call("HeapProfiler.collectGarbage", session=browser.session)
        idle_heap, _, idle_nodes = heap(browser)
        idle_rss = rss_kib(suite.pid)
        seq_before = json.loads(urllib_get(base + "/api/requests?after=0&limit=1"))["last"]
        suite_cpu_before = cpu_seconds(suite.pid)
        workers, results = stream_decisions(database, args.rate, args.seconds, args.processes, args.connections, args.depth)
        samples = []
        started = time.monotonic()
        while any(w.is_alive() for w in workers) and time.monotonic() - started < args.seconds + 15:
            used, total, nodes = heap(browser)
            rows = browser.evaluate("document.querySelectorAll('#requests-table tr.req').length")
            samples.append((time.monotonic() - started, used, total, nodes, rss_kib(suite.pid), rows))
            time.sleep(1)
        totals = [results.get(timeout=30) for _ in workers]
        for w in workers:
            w.join()
        suite_cpu = cpu_seconds(suite.pid) - suite_cpu_before
        seq_after = json.loads(urllib_get(base + "/api/requests?after=0&limit=1"))["last"]
        sent = sum(t[0] for t in totals)
        answered = sum(t[1] for t in totals)
        bad = sum(t[2] for t in totals)
        elapsed = max(t[3] for t in totals)
        generator_cpu = sum(t[4] for t in totals)
        decisions = seq_after - seq_before
        if answered != sent or bad:
            raise SystemExit(f"ui_bench: {sent} sent, {answered} answered, {bad} not 200")
        during = [s for s in samples if 1 <= s[0] <= args.seconds]
        if not during:
            during = samples
        print(f"\nRequests view streaming: target {args.rate}/s for {args.seconds:.0f} s; sent {sent}, answered {answered} "
              f"({bad} not 200) in {elapsed:.1f} s: {answered / elapsed:,.0f}/s reached; decisions recorded {decisions}")
        print(f"  CPU: suite {suite_cpu:.1f} s ({suite_cpu / max(answered, 1) * 1e6:.0f} µs per decision), generator "
              f"{generator_cpu:.1f} s ({generator_cpu / max(answered, 1) * 1e6:.0f} µs per request; {args.processes} processes × "
              f"{args.connections} connections × depth {args.depth}); {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
        print(f"  page JS heap: idle {fmt_mib(idle_heap)}, while streaming median {fmt_mib(statistics.median(s[1] for s in during))}, "
              f"max {fmt_mib(max(s[1] for s in samples))}; DOM nodes idle {idle_nodes:.0f}, max {max(s[3] for s in samples):.0f}; "
              f"rows shown max {max(s[5] for s in samples)}")
        print(f"  suite VmRSS: idle {fmt_mib(idle_rss)}, while streaming median {fmt_mib(statistics.median(s[4] for s in during))}, "
              f"max {fmt_mib(max(s[4] for s in samples))}")
        assert browser.errors() == [], browser.errors()
        if args.screenshots:
            browser.screenshot(Path(args.screenshots) / "bench-requests.png")

        if args.requests_only:
            return
        # 2. First render of big collections and a big node.
        rows = []
        for size in sizes:
            name = f"c{size}"
            # No view open while seeding: the Firestore view re-reads its page every 3 s.
            browser.open("about:blank")
            took = seed_firestore(firestore, name, size)
            print(f"seeded {size:,} documents in {took:.1f} s ({size / took:,.0f}/s); suite VmRSS {fmt_mib(rss_kib(suite.pid))}")
            first, page, firsts, pages = time_view(browser, f"{base}/firestore/default/data/{name}", "fsFirst", "fsPage", args.runs)
            rows.append((f"Firestore collection, {size:,} documents", first, page, firsts, pages))
            count = browser.evaluate("document.querySelectorAll('#fs-document-list a').length")
            assert count == min(size, 100), count
        browser.open("about:blank")
        took = seed_database(database, "big", args.children)
        print(f"seeded {args.children:,} RTDB children in {took:.1f} s; suite VmRSS {fmt_mib(rss_kib(suite.pid))}")
        first, page, firsts, pages = time_view(browser, f"{base}/database/{NAMESPACE}/data/big", "dbFirst", "dbPage", args.runs)
        rows.append((f"RTDB node, {args.children:,} children", first, page, firsts, pages))
        if args.screenshots:
            browser.screenshot(Path(args.screenshots) / "bench-database.png")
        print(f"\nTime to first render (ms from navigation start; median of {args.runs}; same run):")
        for label, first, page, firsts, pages in rows:
            print(f"  {label:42} first row {first:7.0f} ms   first page {page:7.0f} ms   (pages: {', '.join(f'{p:.0f}' for p in pages)})")
        print(f"  page JS heap after all: {fmt_mib(heap(browser)[0])}; suite VmRSS {fmt_mib(rss_kib(suite.pid))}")
        errors = browser.errors()
        if errors:
            raise SystemExit(f"ui_bench: JavaScript errors: {errors}")
    finally:
        if browser:
            browser.close()
        suite.terminate()
        suite.wait(timeout=30)


def urllib_get(url):
    import urllib.request
    with urllib.request.urlopen(url, timeout=30) as reply:
        return reply.read()


if __name__ == "__main__":
    main()
