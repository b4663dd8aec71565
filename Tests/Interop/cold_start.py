"""Cold start: spawn `emulators start`, poll the hub's GET / every 1 ms, report time to first 200.

    swift build -c release && python3 Tests/Interop/cold_start.py .build/release/emulators

Prints the median and max of 5 runs (empty state), and the RSS after the first answer.
Not part of pytest (benchmarks print figures; they are not asserted).
"""

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time


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


def once(binary):
    with tempfile.TemporaryDirectory() as project:
        firestore, database, hub = free_ports(3)
        with open(os.path.join(project, "firebase.json"), "w") as f:
            json.dump({"emulators": {"firestore": {"port": firestore}, "database": {"port": database},
                                     "hub": {"port": hub}}}, f)
        env = dict(os.environ, TMPDIR=project)
        started = time.perf_counter()
        process = subprocess.Popen([binary, "start", "--log-verbosity", "QUIET"], cwd=project, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while not get_ok(hub):
            time.sleep(0.001)
        elapsed = time.perf_counter() - started
        with open(f"/proc/{process.pid}/status") as f:
            rss = next(line.split()[1] for line in f if line.startswith("VmRSS:"))
        process.terminate()
        process.wait(timeout=10)
        return elapsed * 1000, int(rss) / 1024


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/release/emulators")
    runs = [once(binary) for _ in range(5)]
    times = [t for t, _ in runs]
    print(f"cold start to first hub 200: median {statistics.median(times):.1f} ms, max {max(times):.1f} ms; "
          f"RSS {statistics.median(r for _, r in runs):.1f} MiB (nproc {os.cpu_count()})")


if __name__ == "__main__":
    main()
