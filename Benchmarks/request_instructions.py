#!/usr/bin/env python3
"""Benchmarks/request_instructions.py: instructions a request costs the server, by callgrind.

Wall-clock rates on a shared machine move by half between rounds; instruction counts do not. For
every build and every kind of request (Firestore REST GET and PATCH of 1 KB documents, the RTDB REST
GET of a 1 KB node, the gRPC unary GetDocument) this starts the whole suite under
`valgrind --tool=callgrind`, seeds the 100 documents and nodes of Benchmarks/request_path.py, sends
N requests of that kind, stops the suite with SIGTERM and reads the total instructions. A run that
seeds and sends nothing more is the baseline; (total - baseline) / N is the figure. The requests are
request_path.py's: every PATCH changes its document (50 documents alternately written with two
bodies), GETs cycle through the 100 documents. REST requests go over 4 keep-alive connections, each
waiting for its answer; gRPC is h2load's 32 streams on one connection (as request_path.py runs it).
Only user-space instructions are counted: the kernel's share of a request (read, send, epoll) is not.

    Benchmarks/request_instructions.py --bin main=/tmp/emulators-main --bin new=.build/release/emulators \
        [--requests 2000] [--only get,patch,rtdb,grpc] [--keep DIR]

With --keep, the callgrind.out files stay in DIR for `callgrind_annotate --inclusive=yes`.
"""
import argparse, json, os, re, shutil, signal, subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness.common import PROJECT, RTDB_NAMESPACE, free_ports  # noqa: E402
from request_path import DOCS, NAME, body, rtdb_node, send_all  # noqa: E402


def rest_requests(kind, n):
    auth = "Authorization: Bearer owner\r\nContent-Type: application/json\r\n"
    if kind == "get":
        return [(f"GET {DOCS}/lat/d{i % 100}", auth, b"") for i in range(n)]
    if kind == "patch":
        # Request i writes document d<i % 50> with body 1 for the first 50 of every hundred and body
        # 2 for the next 50, so each write changes its document.
        return [(f"PATCH {DOCS}/lat/d{i % 50}", auth, body(1 if i % 100 < 50 else 2).encode()) for i in range(n)]
    return [(f"GET /lat/d{i % 100}.json?ns={RTDB_NAMESPACE}", "", b"") for i in range(n)]


def run_once(binary, work, kind, n):
    """Starts the suite under callgrind in `work`, seeds it, sends `n` requests of `kind` (0: none),
    stops it; returns the total instructions."""
    os.makedirs(work, exist_ok=True)
    port, dport, hport = free_ports(3)
    with open(os.path.join(work, "firebase.json"), "w") as f:
        json.dump({"emulators": {"firestore": {"host": "127.0.0.1", "port": port},
                                 "database": {"host": "127.0.0.1", "port": dport},
                                 "hub": {"host": "127.0.0.1", "port": hport}, "ui": {"enabled": False}}}, f)
    out = os.path.join(work, f"callgrind.out.{kind}.{n}")
    log_path = os.path.join(work, f"log.{kind}.{n}")
    with open(log_path, "w") as log:
        proc = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                                 binary, "start", "--project", PROJECT],
                                cwd=work, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.time() + 600
            while "All emulators ready!" not in open(log_path).read():
                if time.time() > deadline or proc.poll() is not None:
                    raise RuntimeError(f"suite did not start under valgrind; see {log_path}")
                time.sleep(0.2)
            auth = "Authorization: Bearer owner\r\nContent-Type: application/json\r\n"
            send_all(port, [(f"PATCH {DOCS}/lat/d{i}", auth, body(i).encode()) for i in range(100)])
            send_all(dport, [(f"PUT /lat/d{i}.json?ns={RTDB_NAMESPACE}&print=silent", "", rtdb_node(i).encode())
                             for i in range(100)])
            if n:
                send(kind, n, port, dport, work)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(300)
            except subprocess.TimeoutExpired:
                proc.kill()
                raise
    with open(out) as f:
        text = f.read()
    m = re.search(r"^totals:\s+(\d+)", text, re.M) or re.search(r"^summary:\s+(\d+)", text, re.M)
    if not m:
        raise RuntimeError(f"no instruction total in {out}")
    return int(m.group(1))


def send(kind, n, port, dport, work):
    if kind == "grpc":
        msg = f"{NAME}/lat/d1".encode()
        pb = b"\x0a" + bytes([len(msg)]) + msg
        data = os.path.join(work, "get.grpc")
        with open(data, "wb") as f:
            f.write(b"\x00" + len(pb).to_bytes(4, "big") + pb)
        out = subprocess.run(["h2load", "-c1", "-m32", "-t1", f"-n{n}", "-d", data,
                              "-H", "content-type: application/grpc", "-H", "te: trailers",
                              "-H", "authorization: Bearer owner",
                              f"http://127.0.0.1:{port}/google.firestore.v1.Firestore/GetDocument"],
                             capture_output=True, text=True, timeout=600).stdout
        done = re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded", out)
        if not done or int(done.group(1)) != n:
            raise RuntimeError(f"h2load did not finish {n} calls:\n{out}")
        return
    requests = rest_requests(kind, n)
    target = dport if kind == "rtdb" else port
    errors = []

    def worker(part):
        try:
            send_all(target, part)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(requests[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", action="append", required=True, help="label=path of a release build")
    p.add_argument("--requests", type=int, default=2000)
    p.add_argument("--only", default="get,patch,rtdb,grpc")
    p.add_argument("--keep", help="directory for the callgrind.out files")
    a = p.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install -y valgrind)")
    kinds = a.only.split(",")
    if "grpc" in kinds and shutil.which("h2load") is None:
        sys.exit("h2load is not installed (apt-get install -y nghttp2-client)")
    tmp = tempfile.mkdtemp(prefix="reqinstr-")
    try:
        figures = {}
        for spec in a.bin:
            label, path = spec.split("=", 1)
            path = os.path.abspath(path)
            work = os.path.join(a.keep or tmp, label)
            base = run_once(path, work, "none", 0)
            for kind in kinds:
                total = run_once(path, work, kind, a.requests)
                figures[(label, kind)] = (total - base) / a.requests
                print(f"{label} {kind}: {figures[(label, kind)]:,.0f} instructions a request"
                      f" (total {total:,}, baseline {base:,}, load {os.getloadavg()[0]:.1f})", flush=True)
        labels = [s.split("=", 1)[0] for s in a.bin]
        if len(labels) > 1:
            first = labels[0]
            for label in labels[1:]:
                print(f"{label} / {first}: " + ", ".join(
                    f"{k} {figures[(label, k)] / figures[(first, k)]:.2f}x" for k in kinds))
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
