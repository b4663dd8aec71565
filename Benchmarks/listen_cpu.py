"""Firestore Listen cost (issue 23), against a release build of `emulators start` spawned here on
free loopback ports. The server's CPU is its user + system time from /proc/<pid>/stat (all its
threads, exited ones included), which stays readable on a loaded machine. Needs google-cloud-firestore (its grpcio drives the raw Listen).

    python3 -m venv /tmp/listen-venv && /tmp/listen-venv/bin/pip install google-cloud-firestore==2.34.1
    /tmp/listen-venv/bin/python Benchmarks/listen_cpu.py bulk .build/release/emulators --docs 100000 --runs 3
    /tmp/listen-venv/bin/python Benchmarks/listen_cpu.py many .build/release/emulators --writes 500

bulk: the official Python client writes --docs documents in 500-document batches (auto ids, one
      collection), alternately (ABBA) without and with one raw gRPC Listen on the collection in another
      process (it only counts DocumentChange messages). Prints per run the server CPU and the
      end-to-end time (first batch sent until the writer is done and, with the listener, until it
      holds every document), then medians and the ratios with/without.
many: 10, 100 and 1,000 listeners (half single-document targets, half queries on a small
      collection of their own; one Listen stream each, over 10 gRPC connections), plus a writer
      committing one document at a time: the server CPU per write when no listener watches the
      written document, and per write to a watched one (with the latency until its listener has
      it), each against the same writes with no listeners in the same run.
"""
import argparse, asyncio, json, os, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from client_batch_python import write_books  # noqa: E402
from harness.common import free_ports  # noqa: E402


# --- protobuf by hand (only what these requests need) ---------------------------------------------

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, payload):
    """A length-delimited field."""
    if isinstance(payload, str):
        payload = payload.encode()
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def listen_query(database, parent, collection, target_id):
    query = field(1, parent) + field(2, field(2, field(2, collection)))
    target = field(2, query) + varint(5 << 3) + varint(target_id)
    return field(1, database) + field(2, target)


def listen_documents(database, names, target_id):
    target = field(3, b"".join(field(2, n) for n in names)) + varint(5 << 3) + varint(target_id)
    return field(1, database) + field(2, target)


def commit_one(database, name, n):
    value = varint(2 << 3) + varint(n)  # integer_value
    document = field(1, name) + field(2, field(1, "n") + field(2, value))
    return field(1, database) + field(2, field(1, document))


# --- the server -------------------------------------------------------------------------------------

class Server:
    def __init__(self, binary, pin):
        self.dir = tempfile.mkdtemp(prefix="listen-bench-")
        self.port, hub = free_ports(2)
        json.dump({"emulators": {"firestore": {"host": "127.0.0.1", "port": self.port},
                                 "hub": {"host": "127.0.0.1", "port": hub}, "ui": {"enabled": False}}},
                  open(os.path.join(self.dir, "firebase.json"), "w"))
        self.log_path = os.path.join(self.dir, "log")
        log = open(self.log_path, "w")
        argv = ["taskset", "-c", "0"] if pin else []
        self.process = subprocess.Popen(argv + [binary, "start", "--project", "demo-listen", "--only", "firestore"],
                                        cwd=self.dir, stdout=log, stderr=log)
        for _ in range(600):
            if "All emulators ready!" in open(self.log_path).read():
                break
            time.sleep(0.05)
        else:
            self.stop()
            sys.exit("emulators did not start: " + open(self.log_path).read()[-500:])

    def cpu_ms(self):
        """User + system CPU of the whole process, exited threads included (/proc/<pid>/stat)."""
        fields = open(f"/proc/{self.process.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.process.terminate()
        self.process.wait()


# --- bulk -------------------------------------------------------------------------------------------

def listener_process(port, project, collection, expected):
    """Runs in a child process: one raw Listen on the collection; prints `ready`, then `done <time>`."""
    import grpc
    database = f"projects/{project}/databases/(default)"
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    call = channel.stream_stream("/google.firestore.v1.Firestore/Listen")
    stop = __import__("threading").Event()

    def requests():
        yield listen_query(database, database + "/documents", collection, 1)
        stop.wait()

    count = 0
    ready = False
    for message in call(requests(), metadata=[("authorization", "Bearer owner")]):
        if message[:1] == b"\x1a":  # ListenResponse.document_change
            count += 1
            if count == expected:
                print(f"done {time.time():.6f}", flush=True)
                break
        elif not ready and message[:1] == b"\x12":
            ready = True
            print("ready", flush=True)
    stop.set()
    channel.close()


def bulk_run(server, binary_args, docs, with_listener, index, pin):
    project = f"demo-listen-{index}"
    os.environ["FIRESTORE_EMULATOR_HOST"] = f"127.0.0.1:{server.port}"
    from google.cloud import firestore
    listener = None
    if with_listener:
        argv = [sys.executable, os.path.abspath(__file__), "_listener", str(server.port), project, "bulk", str(docs)]
        if pin:
            argv = ["taskset", "-c", "1"] + argv
        listener = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        if listener.stdout.readline().strip() != "ready":
            sys.exit("the listener did not start")
    db = firestore.Client(project=project)
    collection = db.collection("bulk")
    perf = None
    if os.environ.get("PERF") and (with_listener or os.environ["PERF"] == "all"):
        # PERF=1: `perf record -g` of the server during runs with the listener (<tmpdir>/perf.data);
        # PERF=all: also the runs without (<tmpdir>/perf-none.data), to compare the two.
        # PERF_CALLGRAPH=dwarf for whole stacks (Swift's runtime leaves break frame-pointer chains).
        name = "perf.data" if with_listener else "perf-none.data"
        perf = subprocess.Popen(["perf", "record", "-F", "1999", "--call-graph", os.environ.get("PERF_CALLGRAPH", "fp"), "-p", str(server.process.pid), "-o",
                                 os.path.join(server.dir, name)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
    # Build the batches' data first; the client still encodes them inside the clock.
    c0 = server.cpu_ms()
    start = time.time()
    write_books(db, collection, docs)
    written_at = time.time()
    end = written_at
    if listener:
        line = listener.stdout.readline().split()
        listener.wait()
        if not line or line[0] != "done":
            sys.exit("the listener did not see every document")
        end = max(end, float(line[1]))
    time.sleep(0.05)
    cpu = server.cpu_ms() - c0
    if perf:
        perf.send_signal(2)
        perf.wait()
        print(f"perf data: {os.path.join(server.dir, name)}", flush=True)
    return end - start, written_at - start, cpu


def bulk(options):
    server = Server(os.path.abspath(options.binary), options.pin)
    try:
        rows = {False: [], True: []}
        index = 0
        for r in range(options.runs):
            # ABBA: the store grows run by run, so neither side always runs on the larger one.
            for with_listener in ((False, True) if r % 2 == 0 else (True, False)):
                index += 1
                wall, writer, cpu = bulk_run(server, None, options.docs, with_listener, index, options.pin)
                rows[with_listener].append((wall, writer, cpu))
                label = "with listener" if with_listener else "no listener  "
                print(f"run {r + 1} {label}: end-to-end {wall:6.2f} s (writer {writer:6.2f} s), server CPU {cpu / 1000:6.2f} s",
                      flush=True)
        def med(with_listener, i):
            return statistics.median(row[i] for row in rows[with_listener])
        print(f"{options.docs} docs in 500-doc batches (python google-cloud-firestore), medians of {options.runs}:")
        print(f"  server CPU: no listener {med(False, 2) / 1000:.2f} s, with one raw Listen {med(True, 2) / 1000:.2f} s"
              f" = {med(True, 2) / med(False, 2):.2f}x")
        print(f"  end-to-end: no listener {med(False, 0):.2f} s, until the listener holds every document {med(True, 0):.2f} s"
              f" = {med(True, 0) / med(False, 0):.2f}x (writer alone with the listener: {med(True, 1):.2f} s)")
    finally:
        server.stop()


# --- many -------------------------------------------------------------------------------------------

async def many_round(server, listeners, writes, index):
    import grpc
    project = f"demo-many-{index}"
    database = f"projects/{project}/databases/(default)"
    root = database + "/documents"
    metadata = [("authorization", "Bearer owner")]
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{server.port}", options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(10)]
    commit = channels[0].unary_unary("/google.firestore.v1.Firestore/Commit")
    seen = [asyncio.Event() for _ in range(listeners)]
    ready = [asyncio.Event() for _ in range(listeners)]
    tasks = []

    def watched(i):
        # Even listeners watch one document; odd ones query a small collection of their own.
        return f"{root}/docs/d{i}" if i % 2 == 0 else f"{root}/small{i}/x"

    async def listen(i):
        call = channels[i % len(channels)].stream_stream("/google.firestore.v1.Firestore/Listen")
        request = (listen_documents(database, [watched(i)], 1) if i % 2 == 0
                   else listen_query(database, root, f"small{i}", 1))
        stream = call(metadata=metadata)
        await stream.write(request)
        async for message in stream:
            if message[:1] == b"\x12" and not ready[i].is_set():
                ready[i].set()
            elif message[:1] == b"\x1a":
                seen[i].set()

    for i in range(listeners):
        tasks.append(asyncio.ensure_future(listen(i)))
    for e in ready:
        await e.wait()
    await asyncio.sleep(0.2)

    async def phase(names, wait_for):
        c0 = server.cpu_ms()
        latencies = []
        for k in range(writes):
            i = k % len(names)
            if wait_for is not None:
                seen[wait_for(i)].clear()
            t0 = time.perf_counter()
            await commit(commit_one(database, names[i], k), metadata=metadata)
            if wait_for is not None:
                await seen[wait_for(i)].wait()
            latencies.append(time.perf_counter() - t0)
        await asyncio.sleep(0.05)
        return (server.cpu_ms() - c0) * 1000 / writes, statistics.median(latencies) * 1e6

    unwatched = [f"{root}/other/w{k}" for k in range(50)]
    cold = await phase(unwatched, None)  # warm-up
    unaffected = await phase(unwatched, None)
    affected = None
    if listeners:
        targets = list(range(min(listeners, 50)))
        affected = await phase([watched(i) for i in targets], lambda i: targets[i])
    for t in tasks:
        t.cancel()
    for c in channels:
        await c.close()
    return unaffected, affected


def many(options):
    server = Server(os.path.abspath(options.binary), options.pin)
    try:
        counts = [0, 10, 100, 1000]
        results = {n: [] for n in counts}
        for r in range(options.runs):
            for n in counts:
                results[n].append(asyncio.run(many_round(server, n, options.writes, f"{r}-{n}")))
        base = statistics.median(u[0] for u, _ in results[0])
        print(f"one-document commits, {options.writes} per phase, medians of {options.runs} runs "
              f"(server CPU per write; latency = commit sent until the watching listener has it):")
        print(f"  no listeners: {base:.1f} µs CPU per write")
        for n in counts[1:]:
            unaffected = statistics.median(u[0] for u, _ in results[n])
            affected = statistics.median(a[0] for _, a in results[n])
            latency = statistics.median(a[1] for _, a in results[n])
            print(f"  {n:5d} listeners: write no listener watches {unaffected:6.1f} µs CPU ({unaffected / base:.2f}x none); "
                  f"write one listener watches {affected:6.1f} µs CPU, p50 {latency:.0f} µs until it has it")
    finally:
        server.stop()


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "_listener":
        port, project, collection, expected = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
        listener_process(port, project, collection, expected)
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", choices=["bulk", "many"])
    parser.add_argument("binary")
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--writes", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pin", action="store_true", help="server on CPU 0, clients on CPU 1")
    options = parser.parse_args()
    if options.pin:
        os.sched_setaffinity(0, {1})
    (bulk if options.scenario == "bulk" else many)(options)


if __name__ == "__main__":
    main()
