import EmulatorHTTP
import EmulatorStorage
import EmulatorSupport
import FirestoreEmulator
import SecurityRules

/// What tracing rules decisions costs (coverage counts, the Emulator UI's Requests log): Firestore
/// single-document PATCH writes and 500-write commits through the router with the typical rule of
/// `rules-throughput`, in four modes measured in the same run: rules without any trace (the
/// baseline), with coverage counting (the default), with coverage and the UI's request log while
/// no page watches, and while a page watches (the log then keeps each write's documents).
/// Prints the best writes/s of three alternating rounds per mode.
func runRulesTraceBenchmark(quick: Bool) {
    let singles = quick ? 5_000 : 50_000
    let batches = quick ? 10 : 100
    let rules = TypicalFirestoreWrites.rules
    let headers = HTTPHeaders([("Authorization", "Bearer \(unsignedToken(uid: "bench"))")])
    let body = TypicalFirestoreWrites.body
    let root = TypicalFirestoreWrites.root
    let batch = TypicalFirestoreWrites.commit

    enum Mode: CaseIterable { case plain, coverage, logUnwatched, logWatched }
    func router(_ mode: Mode) -> Router {
        let log = mode == .logUnwatched || mode == .logWatched ? RulesRequestLog() : nil
        if mode == .logWatched { _ = log?.records(after: 0, limit: 0) }
        let gate = FirestoreRulesEngine.compile(rules, requestLog: log, coverage: mode != .plain).gate ?? .denyAll
        return FirestoreEmulator(storage: StorageEngine(), configuration: .init(projectID: "bench", rules: gate)).router
    }
    func runSingles(_ mode: Mode) -> Double {
        let router = router(mode)
        let t0 = MonotonicClock.nanoseconds()
        for _ in 0..<singles {
            let r = router.respond(to: HTTPRequest(method: .patch, target: "/v1/\(root)/users/bench", headers: headers, body: body))
            if r.status.code != 200 { print("firestore write failed: \(r.status.code)"); return 0 }
        }
        return Double(singles) / (Double(MonotonicClock.nanoseconds() - t0) / 1e9)
    }
    func runBatches(_ mode: Mode) -> Double {
        let router = router(mode)
        let t0 = MonotonicClock.nanoseconds()
        for _ in 0..<batches {
            let r = router.respond(to: HTTPRequest(method: .post, target: "/v1/\(root):commit", headers: headers, body: batch))
            if r.status.code != 200 { print("firestore commit failed: \(r.status.code)"); return 0 }
        }
        return Double(batches * 500) / (Double(MonotonicClock.nanoseconds() - t0) / 1e9)
    }
    func compare(_ name: String, _ run: (Mode) -> Double) {
        _ = run(.plain)  // warm up
        var best: [Mode: Double] = [:]
        for _ in 0..<3 {
            for mode in Mode.allCases { best[mode] = max(best[mode] ?? 0, run(mode)) }
        }
        let base = best[.plain] ?? 0
        func cell(_ mode: Mode) -> String {
            let v = best[mode] ?? 0
            return "\(Int(v)) (\(base > 0 ? Int((v / base * 100).rounded()) : 0) %)"
        }
        print("\(name): no trace \(Int(base)) writes/s; coverage \(cell(.coverage)); + request log unwatched \(cell(.logUnwatched)); watched \(cell(.logWatched))")
    }
    compare("firestore PATCH one document", runSingles)
    compare("firestore commit of 500 writes", runBatches)
}
