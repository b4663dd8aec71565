import EmulatorHTTP
import EmulatorStorage
import EmulatorSupport
import FirestoreEmulator

/// Only the sustained 500-document commits of ``runFirestoreBenchmark(quick:)`` (no load, no
/// queries): the request path a profiler should see. `--quick` writes 20k documents, else 1M.
/// The documents are the harness's bulk documents `{city, score, name, age}`.
///
///     valgrind --tool=callgrind .build/release/EmulatorBenchmarks firestore-commit --quick
func runFirestoreCommitBenchmark(quick: Bool) {
    let emulator = FirestoreEmulator(storage: StorageEngine(), configuration: .init(projectID: "bench"))
    let router = emulator.router
    let root = "projects/bench/databases/(default)/documents"
    let cities = ["Paris", "Tokyo", "Lima", "Oslo", "Cairo", "Delhi", "Quito", "Rome", "Seoul", "Dakar"]
    func commitBody(from start: Int, count: Int) -> [UInt8] {
        var s = #"{"writes":["#
        for i in start..<(start + count) {
            if i > start { s += "," }
            s += #"{"update":{"name":"\#(root)/bulk/d\#(i)","fields":{"city":{"stringValue":"\#(cities[i % 10])"},"score":{"integerValue":"\#((i &* 7919) % 100_000)"},"name":{"stringValue":"user\#(i)"},"age":{"integerValue":"\#(i % 90)"}}}}"#
        }
        s += "]}"
        return Array(s.utf8)
    }
    let total = quick ? 20_000 : 1_000_000
    var nanos: UInt64 = 0
    var written = 0
    while written < total {
        let request = HTTPRequest(method: .post, target: "/v1/\(root):commit", body: commitBody(from: written, count: 500))
        let t0 = MonotonicClock.nanoseconds()
        let r = router.respond(to: request)
        nanos += MonotonicClock.nanoseconds() - t0
        guard r.status.code == 200 else {
            print("commit failed at \(written): \(String(decoding: r.bodyBytes, as: UTF8.self).prefix(200))")
            return
        }
        written += 500
    }
    print("firestore-commit: \(total) docs in 500-doc commits, \(Int(Double(total) / (Double(nanos) / 1e9))) docs/s (router, server time only)")
}
