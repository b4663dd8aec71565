import DatabaseEmulator
import EmulatorHTTP
import EmulatorStorage
import Glibc
import Synchronization

/// Deleting a large subtree through the Realtime Database router: `PUT /.json null`, `DELETE`,
/// `PUT` of a small value over the subtree and a multi-path `PATCH` with null, each after loading
/// `count` children of four leaves (as the harness's clear scenario does), with one event stream
/// on `/` and one on the subtree counting the events they get. Run twice: with the engine
/// deleting key by key (`cutThreshold: .max`, the old behaviour) and cutting subtrees whole.
func runDatabaseClearBenchmark(quick: Bool) {
    print("== database: clear ==")
    let count = quick ? 10_000 : 100_000
    let operations: [(label: String, method: HTTPMethod, target: String, body: String)] = [
        ("PUT /.json null", .put, "/.json?ns=bench&print=silent", "null"),
        ("DELETE /c.json", .delete, "/c.json?ns=bench&print=silent", ""),
        ("PUT /c.json {small}", .put, "/c.json?ns=bench&print=silent", #"{"only":1}"#),
        ("PATCH /.json {c: null}", .patch, "/.json?ns=bench&print=silent", #"{"c":null,"other":1}"#),
    ]
    for (mode, threshold) in [("key by key", Int.max), ("cut whole", 64)] {
        for operation in operations {
            let engine = StorageEngine(cutThreshold: threshold)
            let emulator = DatabaseEmulator(storage: engine, configuration: DatabaseEmulatorConfiguration(keepAliveSeconds: nil))
            let router = emulator.router
            var start = 0
            while start < count {
                let end = min(start + 500, count)
                var body = "{"
                for i in start..<end {
                    if i > start { body += "," }
                    body += #""d\#(i)":{"city":"c\#(i % 10)","score":\#((i * 7919) % 100_000),"name":"user\#(i)","age":\#(i % 90)}"#
                }
                body += "}"
                _ = router.respond(to: HTTPRequest(method: .patch, target: "/c.json?ns=bench&print=silent", body: Array(body.utf8)))
                start = end
            }
            var headers = HTTPHeaders()
            headers.add("Accept", "text/event-stream")
            let writers = [CountingWriter(), CountingWriter()]
            for (writer, path) in zip(writers, ["/.json?ns=bench", "/c.json?ns=bench"]) {
                guard case .stream(let stream) = router.respond(to: HTTPRequest(method: .get, target: path, headers: headers)).body else {
                    print("\(mode), \(operation.label): no stream")
                    return
                }
                stream.start(writer)
                writer.reset()
            }
            if operation.label.hasPrefix("PUT /.json"), let snapshot = try? engine.snapshot() {
                // The engine alone: one commit deleting a copy of the same entries.
                let copy: NamespaceID = "database/bench-copy"
                engine.commit { (txn: inout CommitBuilder) in
                    for entry in snapshot.scan("database/bench") { _ = try? txn.put(copy, entry.key, entry.value) }
                }
                // (The first commit after a big one pays for releasing what it left; not timed.)
                engine.commit { (txn: inout CommitBuilder) in _ = try? txn.put(copy, StorageKey("settle"), [1]) }
                let began = clearNanos()
                let result = engine.commit { (txn: inout CommitBuilder) in txn.deleteSubtree(copy, .root) }
                print("\(mode), engine only: deleteSubtree of \(result.value) entries: \(clearMillis(clearNanos() - began)) ms")
            }
            let began = clearNanos()
            let response = router.respond(
                to: HTTPRequest(method: operation.method, target: operation.target, body: Array(operation.body.utf8)))
            let elapsed = clearNanos() - began
            let left = router.respond(to: HTTPRequest(method: .get, target: "/c.json?ns=bench&shallow=true"))
            print(
                "\(mode), \(operation.label) over \(count) children: \(clearMillis(elapsed)) ms (status \(response.status.code)); "
                    + "events on / and /c: \(writers.map(\.events)); /c now \(String(decoding: left.bodyBytes.prefix(40), as: UTF8.self))")
        }
    }
}

/// A stream writer that counts the events written to it.
private final class CountingWriter: HTTPStreamWriter {
    private let count = Atomic<Int>(0)
    func write(_ bytes: [UInt8]) -> Bool {
        count.add(1, ordering: .relaxed)
        return true
    }
    func reset() { count.store(0, ordering: .relaxed) }
    var events: Int { count.load(ordering: .relaxed) }
    func finish() {}
    var isOpen: Bool { true }
    func onClose(_ handler: @escaping @Sendable () -> Void) {}
}

private func clearNanos() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

private func clearMillis(_ nanos: Int64) -> String {
    let hundredths = (nanos + 5_000) / 10_000
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
