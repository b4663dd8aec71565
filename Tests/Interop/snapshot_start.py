"""Start-up with a snapshot: time from spawning `emulators start --import <dir>` to the hub's
first 200 (the hub binds after the import, so this is "ready with the data loaded").

    swift build -c release && python3 Tests/Interop/snapshot_start.py .build/release/emulators [documents]

Builds the snapshot first (default 100,000 five-field documents, written through the REST
`:commit` endpoint in 500-write batches, then `emulators export`), then prints the median and
max of 5 starts and the RSS after the first answer. Not part of pytest: it prints, it does not assert.
"""

import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

PROJECT = "demo-snapshot-start"


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def get_ok(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            return s.recv(16).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def write_project(directory):
    firestore, database, hub = free_ports(3)
    config = {"firestore": {}, "database": {}, "emulators": {
        "firestore": {"port": firestore}, "database": {"port": database}, "hub": {"port": hub}, "ui": {"enabled": False}}}
    with open(os.path.join(directory, "firebase.json"), "w") as f:
        json.dump(config, f)
    os.makedirs(os.path.join(directory, "tmp"), exist_ok=True)
    return firestore, hub


def build_snapshot(binary, directory, count):
    firestore, hub = write_project(directory)
    env = dict(os.environ, TMPDIR=os.path.join(directory, "tmp"))
    process = subprocess.Popen([binary, "start", "--project", PROJECT], cwd=directory, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not get_ok(hub):
            time.sleep(0.01)
        base = f"projects/{PROJECT}/databases/(default)/documents"
        url = f"http://127.0.0.1:{firestore}/v1/{base}:commit"
        cities = ["London", "Paris", "Tokyo", "Lagos", "Lima", "Oslo", "Pune", "Quito"]
        for start in range(0, count, 500):
            writes = [{"update": {"name": f"{base}/users/u{i}", "fields": {
                "name": {"stringValue": f"user-{i}"}, "age": {"integerValue": str(18 + i % 60)},
                "city": {"stringValue": cities[i % 8]}, "score": {"doubleValue": (i % 1000) / 10},
                "tags": {"arrayValue": {"values": [{"stringValue": f"a{i % 7}"}, {"stringValue": f"b{i % 11}"}]}}}}}
                for i in range(start, min(start + 500, count))]
            request = urllib.request.Request(url, data=json.dumps({"writes": writes}).encode(), method="POST",
                                             headers={"Authorization": "Bearer owner"})
            urllib.request.urlopen(request, timeout=60).read()
        result = subprocess.run([binary, "export", "snapshot", "--project", PROJECT], cwd=directory, env=env,
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    return os.path.join(directory, "snapshot")


def start_once(binary, snapshot):
    with tempfile.TemporaryDirectory() as project:
        _, hub = write_project(project)
        env = dict(os.environ, TMPDIR=os.path.join(project, "tmp"))
        began = time.perf_counter()
        process = subprocess.Popen([binary, "start", "--project", PROJECT, "--import", snapshot], cwd=project, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while not get_ok(hub):
                if process.poll() is not None:
                    raise SystemExit("the suite exited during start-up")
                time.sleep(0.001)
            elapsed = time.perf_counter() - began
            with open(f"/proc/{process.pid}/status") as f:
                rss = next(line.split()[1] for line in f if line.startswith("VmRSS:"))
            with open(f"/proc/{process.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            return elapsed, int(rss) // 1024, cpu
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=30)


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/release/emulators")
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    with tempfile.TemporaryDirectory() as work:
        began = time.perf_counter()
        snapshot = build_snapshot(binary, work, count)
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(snapshot) for f in files)
        print(f"snapshot of {count} documents: {size / 1e6:.1f} MB, built in {time.perf_counter() - began:.1f} s")
        runs = [start_once(binary, snapshot) for _ in range(5)]
        times = [t for t, _, _ in runs]
        cpus = [c for _, _, c in runs]
        print(f"start with --import, spawn to first hub 200: median {statistics.median(times) * 1000:.0f} ms, "
              f"max {max(times) * 1000:.0f} ms; CPU used by then (user+sys, all threads) median "
              f"{statistics.median(cpus) * 1000:.0f} ms; RSS after start {runs[-1][1]} MiB")


if __name__ == "__main__":
    main()
