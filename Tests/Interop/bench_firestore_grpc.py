"""Rough throughput of google-cloud-firestore over gRPC against a running suite (not a test).

    FIRESTORE_EMULATOR_HOST=127.0.0.1:8080 GCLOUD_PROJECT=demo-x Tests/Interop/.venv/bin/python Tests/Interop/bench_firestore_grpc.py
"""
import os, time
os.environ.setdefault("FIRESTORE_EMULATOR_HOST", "127.0.0.1:8080")
from google.cloud import firestore
db = firestore.Client(project=os.environ.get("GCLOUD_PROJECT", "demo-bench"))
col = db.collection("bench")
t=time.perf_counter()
for i in range(1000): col.document(f"d{i}").set({"i": i, "s": "x"*50})
t1=time.perf_counter()
for i in range(1000): col.document(f"d{i}").get()
t2=time.perf_counter()
n=sum(1 for _ in col.stream())
t3=time.perf_counter()
print(f"set {1000/(t1-t):.0f}/s get {1000/(t2-t1):.0f}/s stream 1000 docs {1000*(t3-t2):.1f} ms n={n}")
