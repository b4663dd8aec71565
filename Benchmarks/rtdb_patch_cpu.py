#!/usr/bin/env python3
"""RTDB bulk PATCH over HTTP, the harness's bulk scenario without the rest: for each build folder
(holding `emulators`), alternated `--rounds` times, start the suite pinned to CPU 0, send the
harness's `PATCH /bulk.json` requests (500 children each, 4 keep-alive clients) and print the
wall-clock rate, the children per second of the server's CPU time (from /proc/<pid>/stat, which
other load on the machine skews less than the wall clock) and the RSS added per 100k children.

    python3 Benchmarks/rtdb_patch_cpu.py --docs 200000 --rounds 3 /tmp/main-build .build/release
"""

import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness.servers import Suite  # noqa: E402
from harness.workloads import bulk_load, rtdb_patch_requests  # noqa: E402


class Bench:
    """The little of the harness's `Bench` that `Suite` uses."""

    def __init__(self, bin_dir, tmp):
        self.bin_dir = bin_dir
        self.tmp = tmp
        self.pin_server = ["taskset", "-c", "0"] if (os.cpu_count() or 1) >= 2 else []

    @property
    def emulators(self):
        return os.path.join(self.bin_dir, "emulators")

    def spawn(self, argv, cwd=None, log_path=None):
        import subprocess
        out = open(log_path, "wb") if log_path else subprocess.DEVNULL
        return subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bin_dirs", nargs="+")
    parser.add_argument("--docs", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    tmp = tempfile.mkdtemp()
    for _ in range(options.rounds):
        for bin_dir in options.bin_dirs:
            with Suite(Bench(bin_dir, tmp), "rtdb-patch") as suite:
                requests = rtdb_patch_requests(suite.database_port, "bulk", options.docs, 500)
                pid = suite.process.pid
                rss, cpu = rss_mib(pid), cpu_seconds(pid)
                result = bulk_load(suite.database_port, requests, 500)
                cpu, rss = cpu_seconds(pid) - cpu, rss_mib(pid) - rss
                print(f"{bin_dir}: {result['docs_per_s']:,.0f} children/s, {options.docs / cpu:,.0f} per server CPU "
                      f"second ({cpu:.2f} s), RSS +{rss / options.docs * 100_000:.1f} MiB per 100k", flush=True)


if __name__ == "__main__":
    main()
