"""RunQuery over gRPC with google-cloud-firestore: median time to stream a large collection (not a test).

    FIRESTORE_EMULATOR_HOST=127.0.0.1:8080 GCLOUD_PROJECT=demo-x Tests/Interop/.venv/bin/python \
        Tests/Interop/bench_firestore_query_stream.py [documents] [bytes per document]
"""
import os
import statistics
import sys
import time

os.environ.setdefault("FIRESTORE_EMULATOR_HOST", "127.0.0.1:8080")
from google.cloud import firestore

count = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
size = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
db = firestore.Client(project=os.environ.get("GCLOUD_PROJECT", "demo-bench"))
col = db.collection(f"qs{count}x{size}")
for start in range(0, count, 500):
    batch = db.batch()
    for i in range(start, min(start + 500, count)):
        batch.set(col.document(f"d{i:07d}"), {"i": i, "s": "x" * size})
    batch.commit()
times = []
for _ in range(5):
    t = time.perf_counter()
    n = sum(1 for _ in col.stream())
    times.append(time.perf_counter() - t)
    assert n == count, n
print(f"stream {count} docs of {size} B: median {1000 * statistics.median(times):.0f} ms "
      f"({count / statistics.median(times):.0f} docs/s)")
