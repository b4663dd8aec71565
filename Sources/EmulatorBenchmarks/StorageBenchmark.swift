import EmulatorStorage
import Glibc
import Synchronization

/// Storage engine figures: bulk insert (with and without a subscriber), point reads, memory
/// per 100k documents and clearing 100k documents. Run from a release build.
func runStorageBenchmark(quick: Bool) {
    let total = quick ? 100_000 : 1_000_000
    let batchSize = 500
    print("== storage: \(total) docs of 80 B in \(batchSize)-doc commits ==")
    measureMemory(docs: 100_000)
    measureIndexedQuery(docs: 100_000)

    var generator = BenchmarkRandom(seed: 42)
    let (ids, values) = bulkInput(total, &generator)
    let namespace: NamespaceID = "firestore/bench/(default)"
    let collection = StorageKey("docs")
    let keys = ids.map { collection.appending($0) }

    let engine = StorageEngine()
    let plain = bulkInsert(engine, namespace, keys, values, batchSize: batchSize)
    print(plain.report(label: "bulk insert"))
    // The reads below start at once, while the last merges may still run on another core
    // (`storage-read` waits for them): say so.
    print("levels when the reads start: \(engine.levelSummary(namespace))")

    // Point reads of random keys on a held snapshot and with a fresh snapshot each time. Each
    // key's bytes are read just before the clock starts, as a server's key, decoded from the
    // request, would be in the cache; picked cold out of a million keys made long ago, fetching
    // it costs two more cache misses (the array slot and its bytes), shown on the "cold key" line.
    var order = Array(keys.indices)
    order.shuffle(using: &generator)
    let reads = min(200_000, total)
    var held: [Int64] = []
    var fresh: [Int64] = []
    var cold: [Int64] = []
    held.reserveCapacity(reads)
    fresh.reserveCapacity(reads)
    cold.reserveCapacity(reads)
    var found = 0
    var touched = 0
    if let snapshot = try? engine.snapshot() {
        for index in order.prefix(reads) {
            let key = keys[index]
            touch(key, &touched)
            let start = monotonicNanos()
            if snapshot.get(namespace, key) != nil { found += 1 }
            held.append(monotonicNanos() - start)
        }
        // Other keys than the loop above read (at 1M), so none of their nodes is cached by it.
        for index in order.suffix(reads) {
            let start = monotonicNanos()
            if snapshot.get(namespace, keys[index]) != nil { found += 1 }
            cold.append(monotonicNanos() - start)
        }
    }
    for index in order.prefix(reads) {
        let key = keys[index]
        touch(key, &touched)
        let start = monotonicNanos()
        if (try? engine.snapshot())?.get(namespace, key) != nil { found += 1 }
        fresh.append(monotonicNanos() - start)
    }
    print("point read (held snapshot): p50 \(percentile(held, 0.5)) ns, p99 \(percentile(held, 0.99)) ns")
    print("point read (snapshot + get): p50 \(percentile(fresh, 0.5)) ns, p99 \(percentile(fresh, 0.99)) ns (\(found) found)")
    print("point read (held snapshot, cold key): p50 \(percentile(cold, 0.5)) ns, p99 \(percentile(cold, 0.99)) ns")

    // Clearing 100k documents in their own namespace.
    let small: NamespaceID = "firestore/bench-clear/(default)"
    _ = bulkInsert(engine, small, Array(keys.prefix(100_000)), values, batchSize: batchSize)
    // The same reads on a tenth of the data: how much of a read's cost is the size of the tree.
    if let snapshot = try? engine.snapshot() {
        var smallReads: [Int64] = []
        smallReads.reserveCapacity(reads)
        for index in order.prefix(reads) where index < 100_000 {
            let key = keys[index]
            touch(key, &touched)
            let start = monotonicNanos()
            if snapshot.get(small, key) == nil { print("missing key in the 100k namespace") }
            smallReads.append(monotonicNanos() - start)
        }
        print("point read at 100k docs (held snapshot): p50 \(percentile(smallReads, 0.5)) ns, p99 \(percentile(smallReads, 0.99)) ns")
    }
    keepAlive(touched)
    let clearStart = monotonicNanos()
    engine.clear(small)
    let clearNanos = monotonicNanos() - clearStart
    print("clear 100k docs (namespace): \(fixed(Double(clearNanos) / 1e6, 3)) ms")
    _ = bulkInsert(engine, small, Array(keys.prefix(100_000)), values, batchSize: batchSize)
    let subtreeStart = monotonicNanos()
    engine.clear(small, subtree: collection)
    print("clear 100k docs (subtree): \(fixed(Double(monotonicNanos() - subtreeStart) / 1e6, 3)) ms")

    // The same bulk insert with one subscriber watching the whole collection.
    engine.clear(namespace)
    let watcher = StorageEngine()
    let heard = Mutex(0)
    let subscription = watcher.subscribe(namespace, prefix: collection) { batch in
        heard.withLock { $0 += batch.changes.count }
    }
    let watched = bulkInsert(watcher, namespace, keys, values, batchSize: batchSize)
    print(watched.report(label: "bulk insert, 1 subscriber"))
    print("subscriber heard \(heard.withLock { $0 }) changes")
    subscription.cancel()
}

/// The bulk insert alone, for each engine layout in turn, `STORAGE_INSERT_ROUNDS` times (default
/// 2), then the median of each layout's figures (on a noisy machine single runs differ by up to
/// 2×; alternating layouts in one process spreads the drift over all of them). Layouts: the
/// levelled engine with its merges in the background (the default) and in the commit
/// (`STORAGE_INSERT_MERGES=background` or `commit` keeps one), and a baseline that keeps every
/// write in one tree (the engine before levels; `STORAGE_INSERT_BASELINE=0` leaves it out).
/// `STORAGE_LEVELS=freshCapacity,freshDivisor,sealSize,recentMinimum,recentDivisor` runs other
/// level sizes (for tuning); several sets separated by `;` run alternately.
func runStorageInsertBenchmark(quick: Bool) {
    let total = quick ? 100_000 : 1_000_000
    var generator = BenchmarkRandom(seed: 42)
    let (ids, values) = bulkInput(total, &generator)
    // STORAGE_INSERT_KEYS=sorted writes the same ids in ascending order (push ids, counters).
    let sorted = environment("STORAGE_INSERT_KEYS") == "sorted"
    let keys = (sorted ? ids.sorted() : ids).map { StorageKey("docs").appending($0) }
    var sizes = [LevelPolicy.standard]
    if let text = environment("STORAGE_LEVELS") {
        sizes = text.split(separator: ";").compactMap { set in
            let numbers = set.split(separator: ",").compactMap { Int($0) }
            guard numbers.count == 5 else { return nil }
            return LevelPolicy(
                freshCapacity: numbers[0], freshDivisor: numbers[1], sealSize: numbers[2], recentMinimum: numbers[3],
                recentDivisor: numbers[4], merges: .background)
        }
    }
    var layouts: [(label: String, policy: LevelPolicy)] = []
    for var policy in sizes {
        let name = sizes.count > 1
            ? "levels \(policy.freshCapacity),\(policy.freshDivisor),\(policy.sealSize),\(policy.recentMinimum),\(policy.recentDivisor)"
            : "levels"
        let merges = environment("STORAGE_INSERT_MERGES")
        if merges != "commit" { layouts.append(("\(name), merges in the background", policy)) }
        policy.merges = .inCommit
        if merges != "background" { layouts.append(("\(name), merges in the commit", policy)) }
    }
    if environment("STORAGE_INSERT_BASELINE") != "0" {
        layouts.append(("one tree", LevelPolicy(freshCapacity: .max, sealSize: .max, recentMinimum: .max, recentDivisor: 1)))
    }
    let rounds = environment("STORAGE_INSERT_ROUNDS").flatMap { Int($0) } ?? 2
    print("== storage-insert: \(total) docs of 80 B in 500-doc commits, \(rounds) rounds ==")
    var results: [[InsertFigures]] = Array(repeating: [], count: layouts.count)
    for _ in 0..<rounds {
        for (index, layout) in layouts.enumerated() {
            let engine = StorageEngine(levels: layout.policy)
            let figures = bulkInsert(engine, "firestore/bench/(default)", keys, values, batchSize: 500)
            print(figures.report(label: "bulk insert, \(layout.label)"))
            results[index].append(figures)
        }
    }
    guard rounds > 1 else { return }
    for (layout, figures) in zip(layouts, results) {
        let median = { (value: (InsertFigures) -> Double) in figures.map(value).sorted()[figures.count / 2] }
        let ratios = figures.map { $0.lastTenth / $0.firstTenth }.sorted()
        print("median of \(rounds), \(layout.label): \(Int(median { Double($0.total) / $0.seconds })) docs/s wall, "
            + "first tenth \(Int(median(\.firstTenth))), last tenth \(Int(median(\.lastTenth))), "
            + "last/first \(fixed(ratios[ratios.count / 2], 2)) (from \(fixed(ratios[0], 2)) to \(fixed(ratios[ratios.count - 1], 2)))")
    }
}

func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

/// `total` auto-ids and 64 values of 80 random bytes (documents cycle through them).
func bulkInput(_ total: Int, _ generator: inout BenchmarkRandom) -> (ids: [String], values: [[UInt8]]) {
    let ids = (0..<total).map { _ in generator.autoID() }
    var values: [[UInt8]] = []
    for _ in 0..<64 {
        var value: [UInt8] = []
        for _ in 0..<80 { value.append(UInt8(truncatingIfNeeded: generator.next())) }
        values.append(value)
    }
    return (ids, values)
}

/// RSS growth for `docs` documents built on the fly (fresh key and value arrays, as a server
/// decoding requests would have), measured first so no freed memory is reused.
private func measureMemory(docs: Int) {
    var generator = BenchmarkRandom(seed: 7)
    let namespace: NamespaceID = "firestore/bench-memory/(default)"
    let before = residentBytes()
    let engine = StorageEngine()
    var written = 0
    while written < docs {
        _ = try? engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            for _ in 0..<500 {
                var value: [UInt8] = []
                value.reserveCapacity(80)
                for _ in 0..<10 { withUnsafeBytes(of: generator.next()) { value.append(contentsOf: $0) } }
                try txn.put(namespace, StorageKey("docs").appending(generator.autoID()), value)
            }
        }
        written += 500
    }
    let after = residentBytes()
    let perHundredK = Double(after - before) / Double(docs) * 100_000 / 1_048_576
    print("memory: \(fixed(perHundredK, 1)) MiB per 100k docs of 80 B (RSS \(before >> 20) → \(after >> 20) MiB), "
        + "\((try? engine.snapshot())?.count(namespace) ?? 0) docs")
}

/// `city == c ORDER BY score LIMIT 10` over `docs` documents: through an index vs a full scan.
/// Values: byte 0 is the city (one of 16), bytes 1...4 the score (big-endian), then filler.
private func measureIndexedQuery(docs: Int) {
    var generator = BenchmarkRandom(seed: 9)
    let namespace: NamespaceID = "firestore/bench-query/(default)"
    let engine = StorageEngine()
    var written = 0
    while written < docs {
        _ = try? engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            for _ in 0..<500 {
                var value = [UInt8](repeating: 0, count: 80)
                let random = generator.next()
                value[0] = UInt8(random & 15)
                for byte in 0..<4 { value[1 + byte] = UInt8(truncatingIfNeeded: random >> (8 + 8 * UInt64(byte))) }
                try txn.put(namespace, StorageKey("cities").appending(generator.autoID()), value)
            }
        }
        written += 500
    }
    let buildStart = monotonicNanos()
    engine.ensureIndex(namespace, IndexDefinition(id: "city,score", scope: StorageKey("cities")) { _, value in
        value.count >= 5 ? [Array(value[0..<5])] : []
    })
    let buildNanos = monotonicNanos() - buildStart
    var indexed: [Int64] = []
    var scanned: [Int64] = []
    for round in 0..<20 {
        let city = UInt8(round & 15)
        var start = monotonicNanos()
        guard let snapshot = try? engine.snapshot(),
              let hits = try? snapshot.scanIndex(namespace, "city,score", .prefix([city]))
        else { return }
        let top = hits.prefix(10).compactMap { snapshot.get(namespace, $0.key) }
        indexed.append(monotonicNanos() - start)
        start = monotonicNanos()
        let all = snapshot.scan(namespace, .descendants(of: StorageKey("cities"))).filter { $0.value.first == city }
        let sorted = all.sorted { ($0.value[1], $0.value[2], $0.value[3], $0.value[4]) < ($1.value[1], $1.value[2], $1.value[3], $1.value[4]) }
        scanned.append(monotonicNanos() - start)
        if top.map(\.key) != sorted.prefix(10).map(\.key) { print("query mismatch for city \(city)") }
    }
    print("query city==c order by score limit 10 over \(docs) docs: index p50 \(percentile(indexed, 0.5) / 1000) µs, "
        + "full scan p50 \(percentile(scanned, 0.5) / 1000) µs; index build \(fixed(Double(buildNanos) / 1e6, 1)) ms")
}

struct InsertFigures {
    var total: Int
    var seconds: Double
    /// CPU time of the whole process (the committing thread and the background merges).
    var cpuSeconds: Double
    var firstTenth: Double
    var lastTenth: Double
    /// The wall-clock rate of each twentieth of the batches, in thousands of docs/s: how the
    /// cost of an insert grows with the tree.
    var twentieths: [Int]

    func report(label: String) -> String {
        let overall = Double(total) / seconds
        let overallCPU = Double(total) / cpuSeconds
        return "\(label): \(Int(overall)) docs/s wall, \(Int(overallCPU)) docs/s of process CPU; first tenth \(Int(firstTenth)) docs/s, "
            + "last tenth \(Int(lastTenth)) docs/s wall (last/first \(fixed(lastTenth / firstTenth, 2)))\n"
            + "  per twentieth of the batches (k docs/s wall): \(twentieths.map(String.init).joined(separator: " "))"
    }
}

/// Commits `keys` in batches and times each batch on the wall clock: with merges on the
/// background queue the committing thread's CPU time would leave their cost out, the wall clock
/// does not (a commit that needs a merge waits for it). Process CPU time counts both threads.
func bulkInsert(
    _ engine: StorageEngine, _ namespace: NamespaceID, _ keys: [StorageKey], _ values: [[UInt8]], batchSize: Int
) -> InsertFigures {
    let batches = (keys.count + batchSize - 1) / batchSize
    var durations: [Int64] = []
    durations.reserveCapacity(batches)
    let start = monotonicNanos()
    let cpuStart = processCPUNanos()
    var offset = 0
    while offset < keys.count {
        let end = min(offset + batchSize, keys.count)
        let batchStart = monotonicNanos()
        _ = try? engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            for index in offset..<end { try txn.put(namespace, keys[index], values[index & 63]) }
        }
        durations.append(monotonicNanos() - batchStart)
        offset = end
    }
    let seconds = Double(monotonicNanos() - start) / 1e9
    let cpuSeconds = Double(processCPUNanos() - cpuStart) / 1e9
    let tenth = max(1, batches / 10)
    let firstNanos = durations.prefix(tenth).reduce(0, +)
    let lastNanos = durations.suffix(tenth).reduce(0, +)
    let docsPerTenth = Double(tenth * batchSize)
    let twentieth = max(1, batches / 20)
    let twentieths = stride(from: 0, to: durations.count, by: twentieth).map { start in
        let slice = durations[start..<min(start + twentieth, durations.count)]
        return Int(Double(slice.count * batchSize) / (Double(max(1, slice.reduce(0, +))) / 1e9) / 1000)
    }
    return InsertFigures(
        total: keys.count, seconds: seconds, cpuSeconds: cpuSeconds, firstTenth: docsPerTenth / (Double(firstNanos) / 1e9),
        lastTenth: docsPerTenth / (Double(lastNanos) / 1e9), twentieths: twentieths)
}

/// `value` with `digits` decimals (no Foundation).
private func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int((value * scale).rounded())
    let whole = scaled / Int(scale)
    let fraction = String(abs(scaled % Int(scale)))
    guard digits > 0 else { return String(whole) }
    return "\(whole)." + String(repeating: "0", count: digits - fraction.count) + fraction
}

/// Reads every byte of `key`, so that a timed read right after finds it in the cache (as a
/// server's key, just decoded from its request, would be), adding them to `sink`.
func touch(_ key: StorageKey, _ sink: inout Int) {
    sink &+= key.encoded.reduce(0) { $0 &+ Int($1) }
}

/// Keeps the compiler from dropping the work that produced `value`.
@inline(never)
func keepAlive(_ value: Int) {
    if value == 0x5EED_0F_1DEA { print("") }
}

func percentile(_ samples: [Int64], _ fraction: Double) -> Int64 {
    guard !samples.isEmpty else { return 0 }
    let sorted = samples.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

func monotonicNanos() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

private func processCPUNanos() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

/// VmRSS from /proc/self/status, in bytes.
func residentBytes() -> Int {
    guard let file = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("VmRSS:") {
            let digits = text.filter(\.isNumber)
            return (Int(digits) ?? 0) * 1024
        }
    }
    return 0
}

/// SplitMix64, seeded, for reproducible document ids and values.
struct BenchmarkRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A 20-character alphanumeric id like a Firestore auto-id.
    mutating func autoID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        return String(decoding: (0..<20).map { _ in alphabet[Int(next() % 62)] }, as: UTF8.self)
    }
}
