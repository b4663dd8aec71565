"""Baseline: mock-firestore (PyPI), the in-process Python fake, on the same workloads.

Run with the venv's Python: `python mock_firestore_baseline.py BULK_N QUERY_N RUNS`. Prints one
JSON object: set rate for BULK_N documents, RSS per 100k documents, and the median times of the
filter+order+limit query and of the 10k-result query over QUERY_N documents. The documents and
the queries are the ones the harness sends to the emulator.
"""

import json
import statistics
import sys
import time

from mockfirestore import MockFirestore

CITIES = [f"c{i}" for i in range(10)]


def rss_kib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def document(i):
    return {"city": CITIES[i % 10], "score": (i * 7919) % 100_000, "name": f"user{i}", "age": i % 90}


def main():
    bulk_n, query_n, runs = (int(a) for a in sys.argv[1:4])
    db = MockFirestore()
    before = rss_kib()
    bulk = db.collection("bulk")
    start = time.perf_counter()
    for i in range(bulk_n):
        bulk.document(f"d{i}").set(document(i))
    set_seconds = time.perf_counter() - start
    per_100k_mib = (rss_kib() - before) / bulk_n * 100_000 / 1024

    query = db.collection("q")
    for i in range(query_n):
        query.document(f"d{i}").set(document(i))
    limited, full = [], []
    for _ in range(runs):
        start = time.perf_counter()
        found = list(query.where("city", "==", "c3").order_by("score").limit(10).stream())
        limited.append((time.perf_counter() - start) * 1000)
        assert len(found) == min(10, query_n // 10)
        start = time.perf_counter()
        everything = list(query.where("city", "==", "c3").order_by("score").stream())
        full.append((time.perf_counter() - start) * 1000)
    print(json.dumps({
        "set_per_s": bulk_n / set_seconds,
        "rss_per_100k_mib": per_100k_mib,
        "query_ms": statistics.median(limited),
        "query_all_ms": statistics.median(full),
        "query_all_count": len(everything),
    }))


if __name__ == "__main__":
    main()
