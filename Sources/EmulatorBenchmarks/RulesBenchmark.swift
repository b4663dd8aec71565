import EmulatorSupport
import SecurityRules

/// Rules evaluation cost: the typical Firestore owner rule, a Realtime Database read and write
/// rule, and parsing. Prints nanoseconds per operation (run a release build).
func runRulesBenchmark() {
    let source = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /users/{userId} {
              allow create, update: if request.auth.uid == userId
                && request.resource.data.keys().hasOnly(['name', 'age', 'email']);
            }
          }
        }
        """
    guard case .success(let firestore) = FirestoreRuleset.parse(source, fileName: "bench.rules") else {
        print("rules: firestore parse failed")
        return
    }
    let data: [String: RulesValue] = ["name": .string("Alice"), "age": .int(30), "email": .string("a@example.com")]
    let request = FirestoreRulesRequest(
        method: .update, path: "projects/demo/databases/(default)/documents/users/alice", projectID: "demo",
        auth: AuthContext(uid: "alice"), time: RulesTimestamp(seconds: 1_700_000_000, nanos: 0),
        resource: RulesDocument(name: "projects/demo/databases/(default)/documents/users/alice", data: data),
        newResource: RulesDocument(name: "projects/demo/databases/(default)/documents/users/alice", data: data))
    let empty = EmptyFirestoreRulesDataSource()
    report("firestore typical rule (uid == userId && keys().hasOnly)", iterations: 200_000) {
        firestore.evaluate(request, data: empty).isAllowed
    }
    report("firestore parse (9-line file)", iterations: 20_000) {
        if case .success = FirestoreRuleset.parse(source, fileName: "bench.rules") { return true }
        return false
    }

    let databaseSource = """
        {"rules": {"users": {"$uid": {
          ".read": "auth != null && auth.uid == $uid",
          ".write": "auth != null && auth.uid == $uid",
          ".validate": "newData.hasChildren(['name']) && newData.child('name').isString() && newData.child('name').val().length < 50"
        }}}}
        """
    guard case .success(let database) = DatabaseRuleset.parse(databaseSource, fileName: "bench.json") else {
        print("rules: database parse failed")
        return
    }
    let tree = DatabaseTreeSource(.object([JSONMember("users", .object([JSONMember("alice", .object([JSONMember("name", .string("A"))]))]))]))
    let auth = AuthContext(uid: "alice")
    report("database read rule (auth.uid == $uid)", iterations: 200_000) {
        database.canRead(path: ["users", "alice"], auth: auth, now: 0, data: tree).isAllowed
    }
    let value = JSONValue.object([JSONMember("name", .string("Alice"))])
    report("database write + validate", iterations: 100_000) {
        database.canWrite(path: ["users", "alice"], newValue: value, auth: auth, now: 0, data: tree).isAllowed
    }
}

private func report(_ name: String, iterations: Int, _ body: () -> Bool) {
    var allowed = 0
    for _ in 0..<min(1000, iterations) where body() { allowed += 1 }
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<iterations where body() { allowed += 1 }
    let elapsed = clock.now - start
    let nanos = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    let perOp = nanos / Double(iterations)
    print("rules: \(name): \(Int(perOp)) ns/op (\(allowed == iterations + min(1000, iterations) ? "allowed" : "DENIED"))")
}
