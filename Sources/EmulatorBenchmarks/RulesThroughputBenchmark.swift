import DatabaseEmulator
import EmulatorHTTP
import EmulatorStorage
import EmulatorSupport
import FirestoreEmulator

/// Write throughput with a typical rule against no rules, in process through each emulator's
/// router (release build). Firestore: single-document PATCH writes and 500-write commits under
/// `users/{uid}` "owner writes, known keys only" with an unsigned token; RTDB: PUT under
/// `users/$uid` with `.write` + `.validate`. Prints the best writes/s of three alternating rounds per mode and the ratio.
func runRulesThroughputBenchmark(quick: Bool) {
    let singles = quick ? 5_000 : 50_000
    let batches = quick ? 10 : 100
    let firestoreRules = TypicalFirestoreWrites.rules
    let token = unsignedToken(uid: "bench")
    let body = TypicalFirestoreWrites.body
    let root = TypicalFirestoreWrites.root

    func firestore(_ rules: Bool) -> Router {
        let gate = rules ? FirestoreRulesEngine.compile(firestoreRules).gate ?? .denyAll : .allowAll
        return FirestoreEmulator(storage: StorageEngine(), configuration: .init(projectID: "bench", rules: gate)).router
    }
    func firestoreSingles(_ rules: Bool) -> Double {
        let router = firestore(rules)
        let headers = rules ? HTTPHeaders([("Authorization", "Bearer \(token)")]) : HTTPHeaders([])
        let t0 = MonotonicClock.nanoseconds()
        for _ in 0..<singles {
            // One user's document, written again and again (create once, then updates).
            let r = router.respond(to: HTTPRequest(method: .patch, target: "/v1/\(root)/users/bench", headers: headers, body: body))
            if r.status.code != 200 { print("firestore write failed: \(r.status.code)"); return 0 }
        }
        return Double(singles) / (Double(MonotonicClock.nanoseconds() - t0) / 1e9)
    }
    func firestoreBatches(_ rules: Bool) -> Double {
        let router = firestore(rules)
        let headers = rules ? HTTPHeaders([("Authorization", "Bearer \(token)")]) : HTTPHeaders([])
        let batch = TypicalFirestoreWrites.commit
        let t0 = MonotonicClock.nanoseconds()
        for _ in 0..<batches {
            let r = router.respond(to: HTTPRequest(method: .post, target: "/v1/\(root):commit", headers: headers, body: batch))
            if r.status.code != 200 { print("firestore commit failed: \(r.status.code)"); return 0 }
        }
        return Double(batches * 500) / (Double(MonotonicClock.nanoseconds() - t0) / 1e9)
    }

    let databaseRules = """
        {"rules": {"users": {"$uid": {
          ".read": "auth != null && auth.uid == $uid",
          ".write": "auth != null && auth.uid == $uid",
          ".validate": "newData.hasChildren(['name']) && newData.child('name').isString()"
        }}}}
        """
    func databaseSingles(_ rules: Bool) -> Double {
        let emulator = DatabaseEmulator(
            storage: StorageEngine(), configuration: .init(defaultNamespace: "bench", keepAliveSeconds: nil))
        if rules { try? emulator.setRules(Array(databaseRules.utf8), namespace: "bench") }
        let router = emulator.router
        // The Admin SDK and other REST clients send the token in the header.
        let headers = rules ? HTTPHeaders([("Authorization", "Bearer \(token)")]) : HTTPHeaders([])
        let value = Array(#"{"name":"Ada","age":36}"#.utf8)
        let t0 = MonotonicClock.nanoseconds()
        for _ in 0..<singles {
            let r = router.respond(to: HTTPRequest(method: .put, target: "/users/bench.json?ns=bench", headers: headers, body: value))
            if r.status.code != 200 { print("database write failed: \(r.status.code)"); return 0 }
        }
        return Double(singles) / (Double(MonotonicClock.nanoseconds() - t0) / 1e9)
    }

    func compare(_ name: String, _ run: (Bool) -> Double) {
        // Alternating rounds, best of each: the machine is shared, so single runs are noisy.
        _ = run(false)  // warm up
        var open = 0.0
        var ruled = 0.0
        for _ in 0..<3 {
            open = max(open, run(false))
            ruled = max(ruled, run(true))
        }
        let ratio = open > 0 ? ruled / open * 100 : 0
        print("\(name): no rules \(Int(open)) writes/s, typical rule \(Int(ruled)) writes/s (\(Int(ratio.rounded())) %)")
    }
    compare("firestore PATCH one document", firestoreSingles)
    compare("firestore commit of 500 writes", firestoreBatches)
    compare("database PUT one location", databaseSingles)
}

/// An `alg: none` ID token for `uid`, as the SDKs' mockUserToken makes it.
func unsignedToken(uid: String) -> String {
    let header = Base64.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8), alphabet: .urlSafe, padding: false)
    let payload = Base64.encode(Array(#"{"user_id":"\#(uid)","sub":"\#(uid)"}"#.utf8), alphabet: .urlSafe, padding: false)
    return "\(header).\(payload)."
}

/// The Firestore workload of `rules-throughput` and `rules-trace`: the typical rule ("owner writes,
/// known keys only" under `users/{uid}`), one user's document written by PATCH, and a commit of
/// the user's own document and 499 notes below it.
enum TypicalFirestoreWrites {
    static let rules = """
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
    static let root = "projects/bench/databases/(default)/documents"
    static let body = Array(#"{"fields":{"name":{"stringValue":"Ada"},"age":{"integerValue":"36"},"email":{"stringValue":"a@example.com"}}}"#.utf8)
    static let commit: [UInt8] = {
        var s = #"{"writes":["#
        for i in 0..<500 {
            if i > 0 { s += "," }
            let path = i == 0 ? "users/bench" : "users/bench/notes/n\(i)"
            s += #"{"update":{"name":"\#(root)/\#(path)","fields":{"name":{"stringValue":"n\#(i)"}}}}"#
        }
        s += "]}"
        return Array(s.utf8)
    }()
}
