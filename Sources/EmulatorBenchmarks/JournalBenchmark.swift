import DatabaseEmulator
import EmulatorHTTP
import EmulatorSnapshot
import EmulatorStorage
import EmulatorSupport
import Glibc
import Synchronization

/// Write throughput with the live data directory against in-memory, through the Realtime
/// Database router (no sockets): N client threads each send `PUT /w/<client>_<i>.json` (a small
/// JSON object) and wait for the answer, as N concurrent HTTP clients would. Modes: in-memory,
/// journal with `write` before the ack (`--data-dir-no-fsync`), journal with `fdatasync` group
/// commit (`--data-dir`). Rounds alternate the modes; medians of 3 (1 with --quick).
///
/// Every client is its own thread, so a client waiting for its sync does not hold up the
/// others (the real server's handlers run on its loop threads instead; see BENCHMARKS.md).
func runJournalBenchmark(quick: Bool) {
    let root = "/tmp/emulators-journal-router-\(getpid())"
    let fs = SnapshotFileSystem()
    try? fs.makeDirectories(root)
    defer { fs.removeTree(root) }
    let seconds = quick ? 1 : 2
    let rounds = quick ? 1 : 3
    print("== journal: RTDB PUT through the router, \(seconds) s per run, medians of \(rounds) ==")
    var medianSync: [(Int, Double)] = []
    for clients in [1, 8, 32, 128] {
        var memory: [Double] = [], written: [Double] = [], synced: [Double] = []
        for round in 0..<rounds {
            memory.append(journalRun(root: root, clients: clients, seconds: seconds, durability: nil, round: round))
            written.append(journalRun(root: root, clients: clients, seconds: seconds, durability: .write, round: round))
            synced.append(journalRun(root: root, clients: clients, seconds: seconds, durability: .sync, round: round))
        }
        let m = journalMedian(memory), w = journalMedian(written), y = journalMedian(synced)
        medianSync.append((clients, y))
        print("journal \(clients) clients: in-memory \(Int(m)) writes/s; write before ack \(Int(w)) writes/s = \(Int((w / m * 100).rounded()))%; fdatasync group commit \(Int(y)) writes/s = \(Int((y / m * 100).rounded()))%")
    }
    print("fdatasync latency on this disk (one 200 B append + fdatasync, median of 50): \(fdatasyncLatencyMicros(root)) µs")
}

private func journalMedian(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

private final class JournalClient: Sendable {
    let router: Router, id: Int, deadline: Int64, done: Mutex<Int>
    init(router: Router, id: Int, deadline: Int64) {
        self.router = router; self.id = id; self.deadline = deadline; self.done = Mutex(0)
    }

    func run() {
        var n = 0
        while journalNanos() < deadline {
            let request = HTTPRequest(
                method: .put, target: "/w/c\(id)_\(n & 4095).json?ns=bench", body: Array("{\"name\":\"Ada\",\"n\":\(n)}".utf8))
            if router.respond(to: request).status.code == 200 { n += 1 }
        }
        done.withLock { $0 = n }
    }
}

private func journalRun(root: String, clients: Int, seconds: Int, durability: DataDirectory.Durability?, round: Int) -> Double {
    let engine = StorageEngine()
    let directory = root + "/live-\(clients)-\(round)-\(durability.map { $0 == .sync ? "sync" : "write" } ?? "memory")"
    var data: DataDirectory?
    if let durability {
        do throws(SnapshotError) { data = try DataDirectory.open(directory, engine: engine, durability: durability) } catch {
            print("journal: cannot open \(directory): \(error)")
            return 0
        }
    }
    let emulator = DatabaseEmulator(storage: engine, configuration: DatabaseEmulatorConfiguration(keepAliveSeconds: nil))
    let start = journalNanos()
    let deadline = start + Int64(seconds) * 1_000_000_000
    let jobs = (0..<clients).map { JournalClient(router: emulator.router, id: $0, deadline: deadline) }
    let threads = jobs.compactMap { job in PosixThread.start { job.run() } }
    for thread in threads { thread.join() }
    let elapsed = Double(journalNanos() - start) / 1e9
    data?.close()
    SnapshotFileSystem().removeTree(directory)
    return Double(jobs.reduce(0) { $0 + $1.done.withLock { $0 } }) / elapsed
}

private func fdatasyncLatencyMicros(_ root: String) -> Int {
    let path = root + "/fdatasync-probe"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return -1 }
    defer { close(fd); unlink(path) }
    var samples: [Int64] = []
    let bytes = [UInt8](repeating: 0x61, count: 200)
    for _ in 0..<50 {
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let t = journalNanos()
        fdatasync(fd)
        samples.append(journalNanos() - t)
    }
    return Int(samples.sorted()[samples.count / 2] / 1000)
}

private func journalNanos() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}
