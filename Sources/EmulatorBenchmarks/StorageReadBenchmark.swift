import EmulatorStorage
import Glibc

/// Only the point reads of `storage`, repeated (for profiling a read): the 1M bulk insert, a
/// pause for the background merges to finish, then `STORAGE_READ_ROUNDS` rounds (default 5) of
/// 200k reads of random keys on a held snapshot, each round timed per read (p50) and as a
/// whole (the mean, without the clock reads).
func runStorageReadBenchmark(quick: Bool) {
    let total = quick ? 100_000 : 1_000_000
    var generator = BenchmarkRandom(seed: 42)
    let (ids, values) = bulkInput(total, &generator)
    let namespace: NamespaceID = "firestore/bench/(default)"
    let keys = ids.map { StorageKey("docs").appending($0) }
    let engine = StorageEngine()
    _ = bulkInsert(engine, namespace, keys, values, batchSize: 500)
    usleep(200_000)
    print(engine.levelSummary(namespace))
    let rounds = environment("STORAGE_READ_ROUNDS").flatMap { Int($0) } ?? 5
    print("== storage-read: \(total) docs, \(rounds) rounds of 200k point reads ==")
    var order = Array(keys.indices)
    order.shuffle(using: &generator)
    let reads = order.prefix(200_000)
    guard let snapshot = try? engine.snapshot() else { return }
    var medians: [Int64] = []
    for round in 0..<rounds {
        var samples: [Int64] = []
        samples.reserveCapacity(reads.count)
        var found = 0
        for index in reads {
            let start = monotonicNanos()
            if snapshot.get(namespace, keys[index]) != nil { found += 1 }
            samples.append(monotonicNanos() - start)
        }
        var warm: [Int64] = []
        warm.reserveCapacity(reads.count)
        var touched = 0
        for index in reads {
            let key = keys[index]
            for byte in key.encoded { touched &+= Int(byte) }
            let start = monotonicNanos()
            if snapshot.get(namespace, key) != nil { found += 1 }
            warm.append(monotonicNanos() - start)
        }
        print("  warm key: p50 \(percentile(warm, 0.5)) ns (\(touched & 1))")
        let loopStart = monotonicNanos()
        for index in reads where snapshot.get(namespace, keys[index]) != nil { found += 1 }
        let mean = (monotonicNanos() - loopStart) / Int64(reads.count)
        medians.append(percentile(samples, 0.5))
        print("round \(round + 1): p50 \(percentile(samples, 0.5)) ns, p99 \(percentile(samples, 0.99)) ns, "
            + "mean without clocks \(mean) ns (\(found / 3) found)")
    }
    print("point read p50 at \(total) docs, median of \(rounds) rounds: \(medians.sorted()[medians.count / 2]) ns")
    // One key read over and over: everything it touches stays in the cache, so this is the
    // read's cost apart from memory latency.
    let hot = keys[reads.first ?? 0]
    var found = 0
    let hotStart = monotonicNanos()
    for _ in 0..<reads.count where snapshot.get(namespace, hot) != nil { found += 1 }
    print("one key read \(found) times: mean \((monotonicNanos() - hotStart) / Int64(max(1, reads.count))) ns")
}
