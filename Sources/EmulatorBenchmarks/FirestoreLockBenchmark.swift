import EmulatorHTTP
import EmulatorStorage
import EmulatorSupport
import FirestoreEmulator
import Foundation
import Synchronization

/// What pessimistic transactions cost, through the REST handler (no sockets), release build:
/// 1. single-document commits outside transactions: through the lock layer (`respondWaiting`,
///    as served) against the same handler without it (`respond`), alternating rounds in one run;
/// 2. 4 threads × N read-modify-write transactions on one counter (begin, batchGet, commit, with
///    `retryTransaction` and rollback after ABORTED, as the server SDKs do): time, attempts.
func runFirestoreLockBenchmark(quick: Bool) {
    let emulator = FirestoreEmulator(storage: StorageEngine(), configuration: .init(projectID: "bench"))
    let rest = emulator.rest
    let root = "projects/bench/databases/(default)/documents"
    @Sendable func request(_ method: String, _ body: String) -> HTTPRequest {
        HTTPRequest(method: .post, target: "/v1/\(root):\(method)", body: Array(body.utf8))
    }
    func write(_ i: Int) -> HTTPRequest {
        request("commit", #"{"writes":[{"update":{"name":"\#(root)/plain/d\#(i % 1000)","fields":{"n":{"integerValue":"\#(i)"}}}}]}"#)
    }

    // 1. Plain commits, with and without the lock layer.
    let perRound = quick ? 5_000 : 20_000
    var with: [Double] = []
    var without: [Double] = []
    var i = 0
    for _ in 0..<(quick ? 3 : 5) {
        for layered in [true, false] {
            let start = MonotonicClock.nanoseconds()
            for _ in 0..<perRound {
                let r = layered ? rest.respondWaiting(to: write(i)) : rest.respond(to: write(i))
                if r.status.code != 200 { print("commit failed"); return }
                i += 1
            }
            let rate = Double(perRound) / (Double(MonotonicClock.nanoseconds() - start) / 1e9)
            if layered { with.append(rate) } else { without.append(rate) }
        }
    }
    let median = { (xs: [Double]) in xs.sorted()[xs.count / 2] }
    print(String(format: "single-write commits/s: with lock layer %.0f, without %.0f (median of %d rounds; %.2fx)",
        median(with), median(without), with.count, median(with) / median(without)))

    // 2. Contended transactions.
    let name = "\(root)/ctr/x"
    _ = rest.respond(to: request("commit", #"{"writes":[{"update":{"name":"\#(name)","fields":{"n":{"integerValue":"0"}}}}]}"#))
    let perThread = quick ? 50 : 250
    let attempts = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let done = Atomic<Int>(0)
    @Sendable func call(_ r: HTTPRequest) -> (Int, JSONValue) {
        let response = rest.respondWaiting(to: r).resolved()
        return (response.status.code, (try? JSONReader.parse(response.bodyBytes)) ?? .null)
    }
    let start = MonotonicClock.nanoseconds()
    for _ in 0..<4 {
        Thread {
            for _ in 0..<perThread {
                var retry = ""
                var committed = false
                for _ in 0..<20 where !committed {
                    attempts.add(1, ordering: .relaxed)
                    let options = retry.isEmpty ? "{}" : #"{"options":{"readWrite":{"retryTransaction":"\#(retry)"}}}"#
                    guard case .string(let t)? = call(request("beginTransaction", options)).1[member: "transaction"] else { break }
                    if retry.isEmpty { retry = t }
                    let (status, got) = call(request("batchGet", #"{"documents":["\#(name)"],"transaction":"\#(t)"}"#))
                    var n: Int?
                    if case .array(let items) = got, case .string(let text)? = items.first?[member: "found"]?[member: "fields"]?[member: "n"]?[member: "integerValue"] {
                        n = Int(text)
                    }
                    if status == 200, let n {
                        let body = #"{"transaction":"\#(t)","writes":[{"update":{"name":"\#(name)","fields":{"n":{"integerValue":"\#(n + 1)"}}}}]}"#
                        if call(request("commit", body)).0 == 200 {
                            committed = true
                            continue
                        }
                    }
                    _ = call(request("rollback", #"{"transaction":"\#(t)"}"#))
                }
                if !committed { failures.add(1, ordering: .relaxed) }
            }
            done.add(1, ordering: .relaxed)
        }.start()
    }
    while done.load(ordering: .relaxed) < 4 { usleep(1_000) }
    let seconds = Double(MonotonicClock.nanoseconds() - start) / 1e9
    let total = 4 * perThread
    print(String(format: "4 threads x %d counter transactions: %.2f s, %.0f transactions/s, %.2f attempts each, %d gave up",
        perThread, seconds, Double(total) / seconds, Double(attempts.load(ordering: .relaxed)) / Double(total),
        failures.load(ordering: .relaxed)))
}
