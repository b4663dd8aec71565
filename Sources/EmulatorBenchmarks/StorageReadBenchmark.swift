import EmulatorStorage
import Glibc

/// Only the point reads of `storage`, repeated (for profiling a read): the 1M bulk insert, a
/// pause for the background merges to finish, a line on how the entries are spread over the
/// levels, then `STORAGE_READ_ROUNDS` rounds (default 5) of 200k reads of random keys on a held
/// snapshot. Each round times every read with its key in the cache (as a server's freshly
/// decoded key is; the figure `storage` reports), with the key cold (other keys, fetched from
/// the array of a million: two more cache misses), and the whole loop (the mean, without clock reads).
func runStorageReadBenchmark(quick: Bool) {
    let total = quick ? 100_000 : 1_000_000
    var generator = BenchmarkRandom(seed: 42)
    let (ids, values) = bulkInput(total, &generator)
    let namespace: NamespaceID = "firestore/bench/(default)"
    let keys = ids.map { StorageKey("docs").appending($0) }
    let engine = StorageEngine()
    _ = bulkInsert(engine, namespace, keys, values, batchSize: 500)
    usleep(200_000)
    let rounds = environment("STORAGE_READ_ROUNDS").flatMap { Int($0) } ?? 5
    print("== storage-read: \(total) docs, \(rounds) rounds of 200k point reads ==")
    print(engine.levelSummary(namespace))
    let order = Array(keys.indices).shuffled(using: &generator)
    let sliceCount = max(1, total / 200_000)
    let keysOfSlice = { (slice: Int) in order[slice * 200_000..<min(total, (slice + 1) * 200_000)] }
    guard let snapshot = try? engine.snapshot() else { return }
    var medians: [Int64] = []
    var found = 0
    var touched = 0
    var reads = order.prefix(0)
    for round in 0..<rounds {
        // Each round reads other keys: reading the same ones again would find some of their
        // nodes still in the cache.
        let slice = round % sliceCount
        reads = keysOfSlice(slice)
        var warm: [Int64] = []
        var cold: [Int64] = []
        warm.reserveCapacity(reads.count)
        cold.reserveCapacity(reads.count)
        for index in reads {
            let key = keys[index]
            touch(key, &touched)
            let start = monotonicNanos()
            if snapshot.get(namespace, key) != nil { found += 1 }
            warm.append(monotonicNanos() - start)
        }
        // The cold-key reads take the next slice's keys (at 1M), so the loop above cached none
        // of their nodes.
        for index in keysOfSlice((slice + 1) % sliceCount) {
            let start = monotonicNanos()
            if snapshot.get(namespace, keys[index]) != nil { found += 1 }
            cold.append(monotonicNanos() - start)
        }
        let loopStart = monotonicNanos()
        for index in reads where snapshot.get(namespace, keys[index]) != nil { found += 1 }
        let mean = (monotonicNanos() - loopStart) / Int64(reads.count)
        medians.append(percentile(warm, 0.5))
        print("round \(round + 1): p50 \(percentile(warm, 0.5)) ns, p99 \(percentile(warm, 0.99)) ns; "
            + "cold key p50 \(percentile(cold, 0.5)) ns; mean of a loop without clocks \(mean) ns")
    }
    keepAlive(touched)
    print("point read p50 at \(total) docs, median of \(rounds) rounds: \(medians.sorted()[medians.count / 2]) ns "
        + "(\(found) of \(3 * rounds * reads.count) found)")
    // One key read over and over: everything it touches stays in the cache, so this is the
    // read's cost apart from memory latency.
    let hot = keys[reads.first ?? 0]
    var hits = 0
    let hotStart = monotonicNanos()
    let hotReads = environment("STORAGE_READ_HOT").flatMap { Int($0) } ?? reads.count
    for _ in 0..<hotReads where snapshot.get(namespace, hot) != nil { hits += 1 }
    print("one key read \(hits) times: mean \((monotonicNanos() - hotStart) / Int64(max(1, hotReads))) ns")
}
