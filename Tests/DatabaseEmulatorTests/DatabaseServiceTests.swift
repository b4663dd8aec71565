import EmulatorHTTP
import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import Testing

@testable import DatabaseEmulator

/// `DatabaseService` on its own (no transport), and how its one failure type reads on each wire.
@Suite struct DatabaseServiceTests {
    let service = DatabaseService(
        storage: StorageEngine(keepsHistory: { _ in false }), rulesLogger: nil, now: { 1_700_000_000_000 })

    func path(_ text: String) -> DatabasePath { DatabasePath(keys: text.split(separator: "/").map(String.init)) }

    func value(_ text: String) -> JSONValue {
        (try? JSONReader.parse(Array(text.utf8))) ?? .null
    }

    /// The failure `body` throws, or nil when it succeeds.
    func failure(_ body: () throws -> Void) -> DatabaseFailure? {
        do {
            try body()
            return nil
        } catch {
            return error as? DatabaseFailure
        }
    }

    static let rules = #"""
        {"rules": {
          "open": {".read": true, ".write": true},
          "users": {"$uid": {".read": "auth != null && auth.uid == $uid", ".write": "auth != null && auth.uid == $uid",
                             "age": {".validate": "newData.isNumber()"}}},
          "ranked": {"$id": {".write": true, ".validate": "newData.getPriority() == null || newData.getPriority() < 10"}}
        }}
        """#

    func locked() throws -> DatabaseNamespace {
        try service.setRules(Array(Self.rules.utf8), namespace: "locked")
        return service.namespace("locked")
    }

    static let alice = DatabaseAuth(isAdmin: false, variable: .object([JSONMember("uid", .string("alice"))]))

    // MARK: Set, get, query

    @Test func setThenGetAndQuery() throws {
        let ns = service.namespace("a")
        let written = try service.set(value(#"{"b": 2, "a": 1, "t": {".sv": "timestamp"}}"#), at: path("x"), in: ns, auth: .admin)
        #expect(written.json() == value(#"{"a": 1, "b": 2, "t": 1700000000000}"#))
        #expect(try service.get(path("x/a"), in: ns, auth: .unauthenticated).json() == .int(1))
        let first = try DatabaseQueryParams.parse([("orderBy", "\"$key\""), ("limitToFirst", "1")])
        #expect(try service.query(path("x"), first, in: ns, auth: .admin).json() == value(#"{"a": 1}"#))
    }

    @Test func aPrioritySetAnswersThePriority() throws {
        let ns = service.namespace("p")
        try service.set(.string("v"), at: path("n"), in: ns, auth: .admin)
        let written = try service.set(.int(3), at: path("n"), priority: true, in: ns, auth: .admin)
        #expect(written.json() == .int(3))
        #expect(try service.get(path("n"), in: ns, auth: .admin).json(export: true) == value(#"{".value": "v", ".priority": 3}"#))
        // A priority on nothing sets nothing.
        #expect(try service.set(.int(3), at: path("none"), priority: true, in: ns, auth: .admin).isEmpty)
    }

    // MARK: Multi-path update

    @Test func updateIsAtomicAndAllOrNothing() throws {
        let ns = try locked()
        try service.set(value(#"{"alice": {"age": 1}, "bob": {"age": 2}}"#), at: path("users"), in: ns, auth: .admin)
        let resolved = try service.update(
            [(path("alice/age"), .int(5)), (path("alice/seen"), value(#"{".sv": "timestamp"}"#))], at: path("users"),
            in: ns, auth: Self.alice)
        #expect(resolved.map { $0.json() } == [.int(5), .int(1_700_000_000_000)])
        // One refused location refuses the whole update: nothing is written.
        let refused = failure {
            try service.update([(path("alice/age"), .int(6)), (path("bob/age"), .int(7))], at: path("users"), in: ns, auth: Self.alice)
        }
        #expect(refused == .permissionDenied)
        #expect(try service.get(path("users"), in: ns, auth: .admin).json() == value(
            #"{"alice": {"age": 5, "seen": 1700000000000}, "bob": {"age": 2}}"#))
        // `.validate` sees the update's own values.
        let invalid = failure {
            try service.update([(path("age"), .string("old"))], at: path("users/alice"), in: ns, auth: Self.alice)
        }
        #expect(invalid == .permissionDenied)
        #expect(try service.update([], at: path("users"), in: ns, auth: .unauthenticated).isEmpty)
    }

    @Test func aPriorityInAnUpdateIsCheckedWithTheNodeItSets() throws {
        let ns = try locked()
        try service.set(.string("x"), at: path("ranked/a"), in: ns, auth: .admin)
        let tooHigh = failure {
            try service.update([(path("a/.priority"), .int(50))], at: path("ranked"), in: ns, auth: .unauthenticated)
        }
        #expect(tooHigh == .permissionDenied)
        try service.update([(path("a/.priority"), .int(5)), (path("b/c"), .int(1))], at: path("ranked"), in: ns, auth: .unauthenticated)
        #expect(try service.get(path("ranked"), in: ns, auth: .admin).json(export: true) == value(
            #"{"a": {".value": "x", ".priority": 5}, "b": {"c": 1}}"#))
    }

    @Test func overlapsAreFoundAgainstTheFirstEarlierPath() {
        var check = DatabaseOverlapCheck()
        #expect(check.insert(path("a/b")) == nil)
        #expect(check.insert(path("c")) == nil)
        #expect(check.insert(path("a/bc")) == nil)
        #expect(check.insert(path("a/b/.priority")) == path("a/b"))
        #expect(check.insert(path("a")) == path("a/b"))
        #expect(check.insert(path("c")) == path("c"))
        #expect(check.insert(path("c/d/e")) == path("c"))
        #expect(check.insert(path("d/.priority")) == nil)
        #expect(check.insert(path("d")) == path("d/.priority"))
    }

    // MARK: Compare-and-set (REST ETag, wire transaction hash)

    @Test func conditionsCompareTheCurrentValue() throws {
        let ns = service.namespace("c")
        // Nothing there: ETag `null_etag`, hash "".
        try service.set(.int(1), at: path("n"), in: ns, auth: .admin, condition: .etag("null_etag"))
        let current = try service.get(path("n"), in: ns, auth: .admin)
        #expect(failure { try service.set(.int(2), at: path("n"), in: ns, auth: .admin, condition: .hash("")) }
            == .conditionFailed(current: current))
        #expect(failure { try service.set(.int(2), at: path("n"), in: ns, auth: .admin, condition: .etag("null_etag")) }
            == .conditionFailed(current: current))
        try service.set(.int(2), at: path("n"), in: ns, auth: .admin, condition: .hash(current.hash))
        let now = try service.get(path("n"), in: ns, auth: .admin)
        try service.set(.null, at: path("n"), in: ns, auth: .admin, condition: .etag(now.etag))
        #expect(try service.get(path("n"), in: ns, auth: .admin).isEmpty)
    }

    @Test func theSizeBudgetCountsTheRequestAndTheReplacedData() throws {
        let ns = service.namespace("b")
        try service.set(.string(String(repeating: "x", count: 100)), at: path("big"), in: ns, auth: .admin)
        #expect(failure {
            try service.set(.int(1), at: path("big"), in: ns, auth: .admin, budget: DatabaseWriteBudget(bytes: 50, requestBytes: 1))
        } == .writeTooBig)
        #expect(failure {
            try service.set(.int(1), at: path("other"), in: ns, auth: .admin, budget: DatabaseWriteBudget(bytes: 50, requestBytes: 51))
        } == .writeTooBig)
        try service.set(.int(1), at: path("other"), in: ns, auth: .admin, budget: DatabaseWriteBudget(bytes: 50, requestBytes: 1))
    }

    // MARK: Rules

    @Test func rulesDecideEveryOperationAndTheAdminPasses() throws {
        let ns = try locked()
        try service.set(value(#"{"age": 1}"#), at: path("users/alice"), in: ns, auth: Self.alice)
        #expect(failure { _ = try service.get(path("users/alice"), in: ns, auth: .unauthenticated) } == .permissionDenied)
        #expect(failure { try service.checkRead(path("users/alice"), query: .all, in: ns, auth: .unauthenticated) }
            == .permissionDenied)
        #expect(failure { try service.set(.int(1), at: path("users/bob"), in: ns, auth: Self.alice) } == .permissionDenied)
        #expect(try service.get(path("users/alice/age"), in: ns, auth: Self.alice).json() == .int(1))
        try service.set(.int(1), at: path("users/bob"), in: ns, auth: .admin)
    }

    @Test func rulesReadTheStoredDataInExportForm() throws {
        let ns = service.namespace("e")
        try service.set(
            value(#"{"a": {".value": 1, ".priority": "p"}, "b": {"c": true, ".priority": 2}, "d": [1, 2]}"#), at: path("t"),
            in: ns, auth: .admin)
        let data = ns.head
        for location in ["t", "t/a", "t/b", "t/d", "t/d/1", "t/none"] {
            let node = data.node(at: path(location))
            #expect(data.value(at: path(location).keys) == (node.isEmpty ? nil : node.json(export: true)))
        }
    }

    @Test func compileErrorsChangeNothing() throws {
        let ns = try locked()
        #expect(throws: DatabaseRulesCompileError.self) { try service.setRules(Array("{".utf8), namespace: "locked") }
        #expect(ns.rules.source == Array(Self.rules.utf8))
    }

    // MARK: onDisconnect

    @Test func deferredWritesAreCheckedWhenQueuedAndWhenRun() throws {
        let ns = try locked()
        let denied = DatabaseDeferredWrite(path: path("users/bob"), isPriority: false, operation: .set(.int(1)), auth: Self.alice)
        #expect(failure { try service.check(denied, in: ns) } == .permissionDenied)
        let update = DatabaseDeferredWrite(
            path: path("users/alice"), isPriority: false,
            operation: .update([(path("online"), .bool(false)), (path("at"), value(#"{".sv": "timestamp"}"#))]), auth: Self.alice)
        try service.check(update, in: ns)
        try service.perform(update, in: ns)
        #expect(try service.get(path("users/alice"), in: ns, auth: .admin).json() == value(#"{"at": 1700000000000, "online": false}"#))
        let invalid = DatabaseDeferredWrite(
            path: path("users/alice"), isPriority: false, operation: .update([(path("age"), .string("x"))]), auth: Self.alice)
        #expect(failure { try service.check(invalid, in: ns) } == .permissionDenied)
    }

    // MARK: One failure, each wire format

    @Test func eachFailureHasItsRESTAndWireForm() {
        let node = DatabaseNode.build(.int(1), existing: .empty, now: 0)
        let cases: [(DatabaseFailure, Int, String, String)] = [
            (.invalid("Invalid path"), 400, "invalid_data", "Invalid path"),
            (.writeTooBig, 400, "too_big", DatabaseFailure.writeTooBigMessage),
            (.permissionDenied, 401, "permission_denied", "Permission denied"),
            (.invalidToken, 401, "invalid_token", "Could not parse auth token."),
            (.conditionFailed(current: node), 412, "datastale", "Transaction hash does not match"),
            (.unsupported("Method not allowed: TRACE"), 405, "failed", "Method not allowed: TRACE"),
        ]
        for (failure, status, wire, message) in cases {
            #expect(failure.httpStatus.code == status)
            #expect(failure.wireStatus == wire)
            #expect(failure.message == message)
            let response = failure.httpResponse
            #expect(response.status.code == status)
            if case .conditionFailed = failure {
                // REST answers a failed `if-match` with the current value and its ETag.
                #expect(response.bodyText == "1")
                #expect(response.headers["ETag"] == node.etag)
            } else {
                #expect(response.bodyText == "{\n  \"error\" : \(String(decoding: JSONWriter.encode(.string(message)), as: UTF8.self))\n}\n")
            }
        }
    }

    /// The same refused write, through REST and through the wire protocol, fails the same way.
    @Test func bothTransportsRefuseAStaleWriteThroughTheService() {
        let db = DatabaseTestClient()
        db.put("/n.json?ns=w", "1")
        let rest = db.put("/n.json?ns=w", "2", headers: [("if-match", "null_etag")])
        #expect(rest.status.code == 412)
        #expect(rest.bodyText == "1")
        let wire = WireSessionProbe(db)
        wire.request(1, "p", #"{"p":"/n","d":2,"h":""}"#)
        #expect(wire.take() == [WireSessionProbe.reply(1, "datastale", #""Transaction hash does not match""#)])
        #expect(db.value("/n.json?ns=w") == .int(1))
    }

    /// One fan-out: a write through either transport reaches both an SSE stream and a wire listen.
    @Test func oneFanOutFeedsStreamsAndListens() {
        let db = DatabaseTestClient()
        db.put("/room/x.json?ns=w", "0")
        let stream = db.stream("/room.json?ns=w")
        let wire = WireSessionProbe(db)
        wire.request(1, "q", #"{"p":"/room","h":""}"#)
        _ = wire.take()
        db.put("/room/a.json?ns=w", "1")
        #expect(wire.take() == [WireSessionProbe.push("d", "room/a", "1")])
        wire.request(2, "p", #"{"p":"/room/b","d":2}"#)
        #expect(wire.take() == [WireSessionProbe.push("d", "room/b", "2"), WireSessionProbe.reply(2)])
        #expect(events(stream.writer.text).map(\.name) == ["put", "put", "put"])
        #expect(events(stream.writer.text).last?.data == value(#"{"path": "/b", "data": 2}"#))
    }
}
