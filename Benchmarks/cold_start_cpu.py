#!/usr/bin/env python3
"""Cold start with a 100k-document snapshot: wall time AND the server's CPU time at the first read.

On a loaded machine wall time mostly measures the neighbours; the process's own CPU time
(utime + stime of all its threads, from /proc/<pid>/stat, read the moment the first
`GET …/bulk/d0` answers 200) stays readable. Seeds one export with the harness (kept in
--export-dir and reused), then starts `emulators start --import` --runs times, pinned like the
harness. Compare two builds by running it once per binary, interleaved:

    Benchmarks/cold_start_cpu.py --bin .build/release/emulators --runs 9
    Benchmarks/cold_start_cpu.py --bin /path/to/other/emulators --runs 9
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from harness import scenarios_service  # noqa: E402
from harness.common import Bench  # noqa: E402
from harness.rawhttp import encode_request  # noqa: E402
from harness.servers import Suite  # noqa: E402
from harness.workloads import DOCUMENTS, cold_start, drop_page_cache  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.path.join(REPO, ".build", "release", "emulators"))
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--payload", type=int, default=0, help="bytes of text per seeded document (900: ~1 KB docs)")
    parser.add_argument("--export-dir", default=os.path.join(tempfile.gettempdir(), "emulators-cold-start-cpu-export"))
    parser.add_argument("--cold", action="store_true",
                        help="drop the export's pages from the page cache before every start (reads come from disk)")
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="emulators-cold-start-cpu-")
    bench_options = types.SimpleNamespace(quick=False, runs=1, only=None, duration=None, bulk_docs=None, snapshot_mb=None)
    bench = Bench(bench_options, REPO, os.path.dirname(os.path.abspath(options.bin)), work)
    try:
        if not os.path.exists(os.path.join(options.export_dir, "firebase-export-metadata.json")):
            shutil.copytree(scenarios_service.make_export(bench, options.docs, "cold-import", payload=options.payload), options.export_dir)
        walls, cpus, peaks = [], [], []
        size = sum(os.path.getsize(os.path.join(root, name)) for root, _, files in os.walk(options.export_dir)
                   for name in files)
        tick = os.sysconf("SC_CLK_TCK")

        def cpu_at_first_read(pid):
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            cpus.append((int(fields[11]) + int(fields[12])) * 1000 / tick)

        for _ in range(options.runs):
            suite = Suite(bench, "cold", import_dir=options.export_dir)
            request = encode_request("GET", f"{DOCUMENTS}/bulk/d0", suite.firestore_port)
            if options.cold:
                drop_page_cache(options.export_dir)
            wall, _, hwm = cold_start(bench, suite.argv(), suite.dir, suite.firestore_port, request, ready_status=200,
                                      on_ready=cpu_at_first_read)
            walls.append(wall)
            peaks.append(hwm * 1024 / max(size, 1))
        print(f"binary: {options.bin} ({'cold: export dropped from the page cache before each start' if options.cold else 'warm'})")
        print(f"load average: {os.getloadavg()[0]:.1f}")
        print("wall ms:", [round(w) for w in walls], "median", round(statistics.median(walls)))
        print("cpu ms: ", [round(c) for c in cpus], "median", round(statistics.median(cpus)))
        print(f"peak RSS (VmHWM) / export size ({size / 1e6:.0f} MB):", [round(p, 2) for p in peaks],
              "median", round(statistics.median(peaks), 2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
