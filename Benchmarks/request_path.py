#!/usr/bin/env python3
"""Benchmarks/request_path.py: the request path of one or more builds against nginx, alternating.

Each round runs wrk on nginx's static file, then for every build: Firestore REST GET and PATCH of
1 KB documents and the Realtime Database REST GET of a 1 KB node (wrk, 32 connections, the
harness's Lua bodies; `--only` picks among get, patch, rtdb) and, with --grpc, the gRPC unary
GetDocument with h2load (32 streams on one connection). Every PATCH changes its document, as a
user's does: the 100 precomputed requests write 50 documents, each alternately with two bodies of
the same size (`n` 1 or 2), so no write finds its content already stored. Servers on CPU 0, load on CPU 1, as
Benchmarks/run pins them. Besides req/s (and the ratio to nginx in the same round) it prints
each build's server CPU per request (utime + stime from /proc/<pid>/stat over the run ÷ requests),
and nginx's (master + worker), which compares builds better than wall-clock rates on a shared
machine.

With --paired, nginx runs again right before every measurement, and each ratio is to that
adjacent nginx run instead of to the round's first: on a shared VM the machine's speed drifts
within a round's half minute, and a ratio to a run 30 s earlier carries that drift. It takes
twice as long.

    Benchmarks/request_path.py --bin main=../main/.build/release/emulators --bin new=.build/release/emulators \
        --rounds 5 --duration 4 --grpc [--paired]
"""
import argparse, json, os, re, shutil, signal, socket, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from harness.common import PROJECT, RTDB_NAMESPACE, free_ports, wait_for_port  # noqa: E402
from harness.servers import STATIC_DOCUMENT as STATIC  # noqa: E402

DOCS = f"/v1/projects/{PROJECT}/databases/(default)/documents"
NAME = f"projects/{PROJECT}/databases/(default)/documents"
PIN_S = ["taskset", "-c", "0"]
PIN_L = ["taskset", "-c", "1"]
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def tree_cpu_seconds(pid):
    """CPU of `pid` and its children (nginx: master + worker)."""
    total = cpu_seconds(pid)
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            total += sum(cpu_seconds(int(c)) for c in f.read().split())
    except OSError:
        pass
    return total


def rtdb_node(i):
    return json.dumps({"payload": "x" * 900, "n": i})


def body(i):
    return '{"fields":{"payload":{"stringValue":"%s"},"n":{"integerValue":"%d"}}}' % ("x" * 900, i)


def lua(path, method, path_expr, bodies, body_expr="1"):
    """wrk script cycling through 100 precomputed requests; request `counter` (1...100) goes to
    `path_expr` with `bodies[body_expr]` (Lua expressions of `counter`)."""
    with open(path, "w") as f:
        f.write(f"""wrk.method = "{method}"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer owner"
local bodies = {{{", ".join(json.dumps(b) for b in bodies)}}}
local requests = {{}}
for counter = 1, 100 do
  requests[counter] = wrk.format("{method}", {path_expr}, nil, bodies[{body_expr}])
end
local index = 0
request = function()
  index = index % 100 + 1
  return requests[index]
end
""")


def wrk(url, seconds, script=None):
    argv = PIN_L + ["wrk", "-t1", "-c32", f"-d{seconds}s"] + (["-s", script] if script else []) + [url]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    errors = 0
    if m := re.search(r"Non-2xx or 3xx responses: (\d+)", out):
        errors += int(m.group(1))
    return rps, total, errors


def h2load(port, seconds, datafile, streams=32):
    argv = PIN_L + ["h2load", "-c1", f"-m{streams}", "-t1", f"-D{seconds}", "-d", datafile,
                    "-H", "content-type: application/grpc", "-H", "te: trailers", "-H", "authorization: Bearer owner",
                    f"http://127.0.0.1:{port}/google.firestore.v1.Firestore/GetDocument"]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120).stdout
    m = re.search(r"finished in ([\d.]+)s, ([\d.]+) req/s", out)
    done = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed", out)
    if not m or not done:
        raise RuntimeError(out)
    return float(m.group(2)), int(done.group(4)), int(done.group(5))


def send_all(port, requests):
    """Sends each (request line without version, extra header lines, body) on one connection,
    reading each answer whole; fails unless every answer is a 2xx."""
    s = socket.create_connection(("127.0.0.1", port))
    for line, headers, b in requests:
        s.sendall(f"{line} HTTP/1.1\r\nHost: x\r\n{headers}Content-Length: {len(b)}\r\n\r\n".encode() + b)
        data = b""
        while b"\r\n\r\n" not in data:
            data += s.recv(65536)
        head, rest = data.split(b"\r\n\r\n", 1)
        m = re.search(rb"Content-Length: (\d+)", head, re.I)
        n = int(m.group(1)) if m else 0
        while len(rest) < n:
            rest += s.recv(65536)
        assert head.startswith(b"HTTP/1.1 20"), head
    s.close()


class Suite:
    def __init__(self, binary, tmp, label):
        self.dir = os.path.join(tmp, label)
        os.makedirs(self.dir)
        self.port, self.dport, hport = free_ports(3)
        dport = self.dport
        with open(os.path.join(self.dir, "firebase.json"), "w") as f:
            json.dump({"emulators": {"firestore": {"host": "127.0.0.1", "port": self.port},
                                     "database": {"host": "127.0.0.1", "port": dport},
                                     "hub": {"host": "127.0.0.1", "port": hport}, "ui": {"enabled": False}}}, f)
        self.log = open(os.path.join(self.dir, "log"), "w")
        self.proc = subprocess.Popen(PIN_S + [binary, "start", "--project", PROJECT], cwd=self.dir,
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while "All emulators ready!" not in open(os.path.join(self.dir, "log")).read():
            if time.time() > deadline or self.proc.poll() is not None:
                raise RuntimeError("suite did not start")
            time.sleep(0.05)
        self.seed()

    def seed(self):
        """100 Firestore documents and 100 RTDB nodes of about 1 KB, one connection each."""
        auth = "Authorization: Bearer owner\r\nContent-Type: application/json\r\n"
        send_all(self.port, [(f"PATCH {DOCS}/lat/d{i}", auth, body(i).encode()) for i in range(100)])
        send_all(self.dport, [(f"PUT /lat/d{i}.json?ns={RTDB_NAMESPACE}&print=silent", "", rtdb_node(i).encode())
                              for i in range(100)])

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", action="append", required=True)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--duration", type=int, default=5)
    p.add_argument("--grpc", action="store_true")
    p.add_argument("--only", default="get,patch,rtdb", help="comma-separated: get, patch, rtdb")
    p.add_argument("--paired", action="store_true", help="nginx right before every measurement, ratios to it")
    a = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="reqbench-")
    www = os.path.join(tmp, "nginx", "www")
    os.makedirs(www)
    os.makedirs(os.path.join(tmp, "nginx", "logs"))
    with open(os.path.join(www, "doc.json"), "w") as f:
        f.write(STATIC)
    nport, = free_ports(1)
    conf = os.path.join(tmp, "nginx", "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""worker_processes 1; daemon off; pid {tmp}/nginx/nginx.pid; error_log {tmp}/nginx/logs/error.log;
events {{ worker_connections 16384; }}
http {{ access_log off; client_body_temp_path {tmp}/nginx/body; sendfile off; open_file_cache max=64 inactive=60s;
tcp_nodelay on; keepalive_requests 1000000;
server {{ listen 127.0.0.1:{nport}; location / {{ root {www}; default_type application/json; }} }} }}
""")
    for root, dirs, files in os.walk(tmp):
        os.chmod(root, 0o755)
        for n in files:
            os.chmod(os.path.join(root, n), 0o644)
    nginx = subprocess.Popen(PIN_S + ["nginx", "-p", os.path.join(tmp, "nginx"), "-c", conf], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    assert wait_for_port(nport, 10)
    get_lua = os.path.join(tmp, "get.lua")
    patch_lua = os.path.join(tmp, "patch.lua")
    lua(get_lua, "GET", f'"{DOCS}/lat/d" .. (counter % 100)', [""])
    # Requests k and k + 50 write document d<k % 50> with bodies 1 and 2 (same size), so each
    # document alternates and every PATCH changes it.
    lua(patch_lua, "PATCH", f'"{DOCS}/lat/d" .. (counter % 50)', [body(1), body(2)], "counter <= 50 and 1 or 2")
    rtdb_lua = os.path.join(tmp, "rtdb.lua")
    lua(rtdb_lua, "GET", f'"/lat/d" .. (counter % 100) .. ".json?ns={RTDB_NAMESPACE}"', [""])
    grpc_data = os.path.join(tmp, "get.grpc")
    msg = f"{NAME}/lat/d1".encode()
    pb = b"\x0a" + bytes([len(msg)]) + msg
    with open(grpc_data, "wb") as f:
        f.write(b"\x00" + len(pb).to_bytes(4, "big") + pb)
    suites = []
    try:
        for spec in a.bin:
            label, path = spec.split("=", 1)
            suites.append((label, Suite(path, tmp, label)))
        results = {}
        kinds = a.only.split(",")
        print(f"load at start: {os.getloadavg()[0]:.1f}", flush=True)

        def nginx_run():
            before = tree_cpu_seconds(nginx.pid)
            rps, total, _ = wrk(f"http://127.0.0.1:{nport}/doc.json", a.duration)
            nus = (tree_cpu_seconds(nginx.pid) - before) / max(total, 1) * 1e6
            results.setdefault("nginx", []).append((rps, nus, rps))
            return rps, nus

        for r in range(a.rounds):
            rps, nus = nginx_run()
            line = [f"round {r + 1}: nginx {rps:,.0f} ({nus:.1f} us cpu/req)"]
            first = True
            for label, suite in suites:
                for kind in kinds + (["grpc"] if a.grpc else []):
                    if a.paired and not first:
                        rps, nus = nginx_run()
                        line.append(f"nginx {rps:,.0f}")
                    first = False
                    before = cpu_seconds(suite.proc.pid)
                    if kind == "grpc":
                        krps, total, errs = h2load(suite.port, a.duration, grpc_data)
                    elif kind == "rtdb":
                        krps, total, errs = wrk(f"http://127.0.0.1:{suite.dport}/", a.duration, rtdb_lua)
                    else:
                        script = get_lua if kind == "get" else patch_lua
                        krps, total, errs = wrk(f"http://127.0.0.1:{suite.port}/", a.duration, script)
                    cpu = cpu_seconds(suite.proc.pid) - before
                    us = cpu / max(total, 1) * 1e6
                    results.setdefault(f"{label} {kind}", []).append((krps, us, rps))
                    line.append(f"{label} {kind} {krps:,.0f} ({krps / rps:.2f}x, {us:.1f} us cpu/req{', ERR ' + str(errs) if errs else ''})")
            print("; ".join(line) + f"; load {os.getloadavg()[0]:.1f}", flush=True)
        print("summary (min-max" + (", each ratio to the nginx run right before it):" if a.paired else "):"))
        ncpus = [c for _, c, _ in results["nginx"]]
        ncpu = sorted(ncpus)[len(ncpus) // 2]
        for key, vals in results.items():
            rates = [x for x, _, _ in vals]
            cpus = [c for _, c, _ in vals]
            ratios = [x / n for x, _, n in vals]
            median_cpu = sorted(cpus)[len(cpus) // 2]
            print(f"  {key:14s} {min(rates):>9,.0f}-{max(rates):>9,.0f} req/s  ratio {min(ratios):.2f}-{max(ratios):.2f}"
                  f"  cpu/req {min(cpus):.1f}-{max(cpus):.1f} us (median {median_cpu:.1f};"
                  f" nginx/this {ncpu / max(median_cpu, 1e-9):.2f})")
    finally:
        for _, s in suites:
            s.stop()
        nginx.terminate()
        nginx.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
