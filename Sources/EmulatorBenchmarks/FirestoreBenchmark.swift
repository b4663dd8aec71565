import EmulatorHTTP
import Glibc
import EmulatorStorage
import EmulatorSupport
import FirestoreEmulator

/// Firestore REST through the router (no sockets), release build:
/// 1. load 100k documents `{city, score, name, active}` (100 cities) in 500-write commits;
/// 2. `where city == x orderBy score desc limit 10`: p50 / p99 over 2,000 queries;
/// 3. one query answering 10,000 documents: size check and time;
/// 4. 500-document commits into a fresh collection up to 1M documents (quick: 100k): docs/s per
///    100k slice and overall (server time only; request bodies are built outside the clock).
func runFirestoreBenchmark(quick: Bool) {
    let emulator = FirestoreEmulator(storage: StorageEngine(), configuration: .init(projectID: "bench"))
    let router = emulator.router
    let root = "projects/bench/databases/(default)/documents"

    func post(_ method: String, _ body: [UInt8]) -> HTTPResponse {
        // resolved(): a paced answer (runQuery) is taken whole, so the timings include encoding it.
        router.respond(to: HTTPRequest(method: .post, target: "/v1/\(root):\(method)", body: body)).resolved()
    }
    func commitBody(collection: String, from start: Int, count: Int) -> [UInt8] {
        var s = #"{"writes":["#
        for i in start..<(start + count) {
            if i > start { s += "," }
            s += #"{"update":{"name":"\#(root)/\#(collection)/d\#(i)","fields":{"city":{"stringValue":"city\#(i % 100)"},"score":{"integerValue":"\#((i &* 7919) % 100_000)"},"name":{"stringValue":"user \#(i)"},"active":{"booleanValue":\#(i % 3 == 0)}}}}"#
        }
        s += "]}"
        return Array(s.utf8)
    }

    // 1. Load.
    let loadStart = MonotonicClock.nanoseconds()
    var i = 0
    while i < 100_000 {
        let r = post("commit", commitBody(collection: "cities", from: i, count: 500))
        guard r.status.code == 200 else {
            print("load failed: \(String(decoding: r.bodyBytes, as: UTF8.self).prefix(200))")
            return
        }
        i += 500
    }
    let loadSeconds = Double(MonotonicClock.nanoseconds() - loadStart) / 1e9
    print("firestore load: 100000 docs in \(format(loadSeconds)) s (\(Int(100_000 / loadSeconds)) docs/s incl. body building)")

    // 2. Equality + order + limit.
    var latencies: [Double] = []
    var first = 0.0
    for q in 0..<2_000 {
        let body = Array(#"{"structuredQuery":{"from":[{"collectionId":"cities"}],"where":{"fieldFilter":{"field":{"fieldPath":"city"},"op":"EQUAL","value":{"stringValue":"city\#(q % 100)"}}},"orderBy":[{"field":{"fieldPath":"score"},"direction":"DESCENDING"}],"limit":10}}"#.utf8)
        let t0 = MonotonicClock.nanoseconds()
        let r = post("runQuery", body)
        let ms = Double(MonotonicClock.nanoseconds() - t0) / 1e6
        if q == 0 {
            first = ms
            let n = (try? JSONReader.parse(r.bodyBytes)).flatMap { if case .array(let a) = $0 { a.count } else { nil } }
            if n != 10 { print("query answered \(n ?? -1) results, expected 10") }
        } else {
            latencies.append(ms)
        }
    }
    latencies.sort()
    print("firestore query city==x orderBy score limit 10 over 100k: first (builds index) \(format(first)) ms, p50 \(format(latencies[latencies.count / 2])) ms, p99 \(format(latencies[latencies.count * 99 / 100])) ms")

    // 3. A 10k-result query (the first run builds the order index).
    let bigBody = Array(#"{"structuredQuery":{"from":[{"collectionId":"cities"}],"orderBy":[{"field":{"fieldPath":"score"}}],"limit":10000}}"#.utf8)
    for run in ["first", "second"] {
        let b0 = MonotonicClock.nanoseconds()
        let big = post("runQuery", bigBody)
        let bigMs = Double(MonotonicClock.nanoseconds() - b0) / 1e6
        var count = -1
        if case .array(let items)? = try? JSONReader.parse(big.bodyBytes) {
            count = items.filter { $0[member: "document"] != nil }.count
        }
        print("firestore 10k-result query (\(run)): \(count) documents, \(big.bodyBytes.count) bytes, \(format(bigMs)) ms")
    }

    // 4. Sustained commits.
    let total = quick ? 100_000 : 1_000_000
    var serverNanos: UInt64 = 0
    var sliceNanos: UInt64 = 0
    var cpuNanos: UInt64 = 0
    var written = 0
    while written < total {
        let body = commitBody(collection: "bulk", from: written, count: 500)
        let c0 = threadCPUNanoseconds()
        let t0 = MonotonicClock.nanoseconds()
        let r = post("commit", body)
        let dt = MonotonicClock.nanoseconds() - t0
        cpuNanos += threadCPUNanoseconds() - c0
        guard r.status.code == 200 else {
            print("commit failed at \(written): \(String(decoding: r.bodyBytes, as: UTF8.self).prefix(200))")
            return
        }
        serverNanos += dt
        sliceNanos += dt
        written += 500
        if written % 100_000 == 0 {
            print("firestore commits: \(written) docs, last 100k at \(Int(100_000 / (Double(sliceNanos) / 1e9))) docs/s")
            sliceNanos = 0
        }
    }
    print("firestore commits of 500 docs: \(total) docs, \(Int(Double(total) / (Double(serverNanos) / 1e9))) docs/s overall (wall), \(Int(Double(total) / (Double(cpuNanos) / 1e9))) docs/s per CPU-second")
}

/// CPU time of the calling thread: throughput independent of other processes on a shared machine.
private func threadCPUNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

private func format(_ x: Double) -> String {
    let scaled = (x * 100).rounded() / 100
    return "\(scaled)"
}
