import DatabaseEmulator
import EmulatorHTTP
import EmulatorStorage
import EmulatorSupport
import Glibc

/// Bulk writes into the Realtime Database through its router, as the harness's bulk scenario
/// sends them over sockets: `PATCH /bulk.json` with 500 children `{city, score, name, age}` per
/// request (`print=silent`), one client, bodies built before timing. Prints children/s (server
/// time only, and per second of this thread's CPU time, which other processes on a shared machine
/// do not skew) and the resident memory the data added per 100k children. `--quick` writes 50k
/// children, else 1M. For profiling:
///
///     valgrind --tool=callgrind .build/release/EmulatorBenchmarks database-bulk --quick
func runDatabaseBulkBenchmark(quick: Bool) {
    let emulator = DatabaseEmulator(
        storage: StorageEngine(keepsHistory: { !DatabaseStorageMapping.isDatabaseNamespace($0) }),
        configuration: DatabaseEmulatorConfiguration(keepAliveSeconds: nil))
    let router = emulator.router
    let cities = ["Paris", "Tokyo", "Lima", "Oslo", "Cairo", "Delhi", "Quito", "Rome", "Seoul", "Dakar"]
    func body(from start: Int, count: Int) -> [UInt8] {
        var s = "{"
        for i in start..<(start + count) {
            if i > start { s += "," }
            s += #""d\#(i)":{"city":"\#(cities[i % 10])","score":\#((i &* 7919) % 100_000),"name":"user\#(i)","age":\#(i % 90)}"#
        }
        s += "}"
        return Array(s.utf8)
    }
    let total = quick ? 50_000 : 1_000_000
    let batch = 500
    let requests = stride(from: 0, to: total, by: batch).map { start in
        HTTPRequest(method: .patch, target: "/bulk.json?ns=bench&print=silent", body: body(from: start, count: min(batch, total - start)))
    }
    let before = residentBytes()
    var nanos: UInt64 = 0
    let cpuBefore = threadCPUNanos()
    for (index, request) in requests.enumerated() {
        let t0 = MonotonicClock.nanoseconds()
        let response = router.respond(to: request)
        nanos += MonotonicClock.nanoseconds() - t0
        guard response.status.code / 100 == 2 else {
            print("PATCH failed at batch \(index): \(String(decoding: response.bodyBytes, as: UTF8.self).prefix(200))")
            return
        }
    }
    let cpu = threadCPUNanos() - cpuBefore
    let added = residentBytes() - before
    let rate = Int(Double(total) / (Double(nanos) / 1e9))
    let perHundredK = Int((Double(added) / Double(total) * 100_000 / 1_048_576 * 10).rounded())
    print("database-bulk: \(total) children in \(batch)-child PATCHes, \(rate) children/s (router, server time only), \(Int(Double(total) / (Double(cpu) / 1e9))) children per CPU second")
    print("database-bulk: RSS +\(added / 1_048_576) MiB, \(perHundredK / 10).\(perHundredK % 10) MiB per 100k children")
}

/// This thread's CPU time in nanoseconds.
private func threadCPUNanos() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
