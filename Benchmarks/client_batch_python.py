"""The Python side of the `client` scenario of EmulatorBenchmarks: the same Book documents the
Swift client writes with `setData(from:)`, written with google-cloud-firestore in 500-document
batches against the same running Firestore emulator, as documents per second.

    FIRESTORE_EMULATOR_HOST=127.0.0.1:8080 python3 Benchmarks/client_batch_python.py demo-bench 10000
"""
import sys, time


def write_books(db, collection, total):
    """Writes `total` Book documents (auto ids) into `collection` of `db` in 500-document batches
    (also the writer of Benchmarks/listen_cpu.py's bulk runs)."""
    written = 0
    while written < total:
        batch = db.batch()
        for _ in range(min(500, total - written)):
            batch.set(collection.document(), {"title": f"Book {written}", "numberOfPages": written, "author": "Bench"})
            written += 1
        batch.commit()


if __name__ == "__main__":
    from google.cloud import firestore

    project, total = sys.argv[1], int(sys.argv[2])
    start = time.perf_counter()
    db = firestore.Client(project=project)
    write_books(db, db.collection("python-books"), total)
    seconds = time.perf_counter() - start
    print(f"python google-cloud-firestore batch.set in 500-document batches: {total} docs in {seconds:.2f} s = {total / seconds:.0f} docs/s")
