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
    let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /users/{userId} {
              allow read: if request.auth != null;
              allow create, update: if request.auth != null && request.auth.uid == userId
                && request.resource.data.keys().hasOnly(['name', 'age', 'email']);
              match /notes/{noteId} {
                allow write: if request.auth != null && request.auth.uid == userId;
              }
            }
          }
        }
        """
    let header = Base64.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8), alphabet: .urlSafe, padding: false)
    let payload = Base64.encode(Array(#"{"user_id":"bench","sub":"bench"}"#.utf8), alphabet: .urlSafe, padding: false)
    let headers = HTTPHeaders([("Authorization", "Bearer \(header).\(payload).")])
    let body = Array(#"{"fields":{"name":{"stringValue":"Ada"},"age":{"integerValue":"36"},"email":{"stringValue":"a@example.com"}}}"#.utf8)
    let root = "projects/bench/databases/(default)/documents"
    var s = #"{"writes":["#
    for i in 0..<500 {
        if i > 0 { s += "," }
        let path = i == 0 ? "users/bench" : "users/bench/notes/n\(i)"
        s += #"{"update":{"name":"\#(root)/\#(path)","fields":{"name":{"stringValue":"n\#(i)"}}}}"#
    }
    s += "]}"
    let batch = Array(s.utf8)

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
