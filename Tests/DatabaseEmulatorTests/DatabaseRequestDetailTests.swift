import EmulatorHTTP
import EmulatorTestSupport
import EmulatorSupport
import SecurityRules
import Testing

@testable import DatabaseEmulator

/// What the Requests view keeps of a Realtime Database decision: the data the rules saw at the
/// path (bounded) and a write's new data; and coverage reports that create nothing.
@Suite struct DatabaseRequestDetailTests {
    static let rules = """
        {
          "rules": {
            "items": { ".read": "auth != null", ".write": "auth != null && newData.isNumber()" }
          }
        }
        """

    static func watchedClient() -> (DatabaseTestClient, RulesRequestLog) {
        let log = RulesRequestLog()
        _ = log.records(after: 0)  // a page watches
        let db = DatabaseTestClient(requestLog: log)
        #expect(db.put("/.settings/rules.json?ns=d", rules, headers: DatabaseTestClient.owner).status == .ok)
        return (db, log)
    }

    static func last(_ log: RulesRequestLog) throws -> RulesRequestDescription {
        let page = log.records(after: 0, limit: 1_000)
        return try #require(page.records.last).describe()
    }

    @Test func aReadKeepsTheDataItSawBoundedInSize() throws {
        let (db, log) = Self.watchedClient()
        let children = (0..<500).map { "\"k\($0)\": \($0)" }.joined(separator: ",")
        #expect(db.put("/items.json?ns=d", "{\(children)}", headers: DatabaseTestClient.owner).status == .ok)
        let alice = MockUserToken.make(uid: "alice")
        #expect(db.get("/items.json?ns=d&auth=\(alice)").status == .ok)
        let description = try Self.last(log)
        #expect(description.method == "read")
        guard case .object(let data)? = description.resource?[member: "data"] else {
            Issue.record("no data: \(String(describing: description.resource))")
            return
        }
        #expect(data.count == DatabaseRules.keptDataEntries)
        #expect(description.resource?[member: "truncated"] != nil)
        // A small node is kept whole.
        #expect(db.put("/items/k1.json?ns=d", "7", headers: DatabaseTestClient.owner).status == .ok)
        #expect(db.get("/items/k1.json?ns=d&auth=\(alice)").status == .ok)
        let small = try Self.last(log)
        #expect(small.resource?[member: "data"] == .int(7))
        #expect(small.resource?[member: "truncated"] == nil)
    }

    @Test func aWriteKeepsTheDataBeforeAndTheNewData() throws {
        let (db, log) = Self.watchedClient()
        #expect(db.put("/items/a.json?ns=d", "1", headers: DatabaseTestClient.owner).status == .ok)
        let alice = MockUserToken.make(uid: "alice")
        #expect(db.put("/items/a.json?ns=d&auth=\(alice)", "\"text\"").status.code == 401)
        let description = try Self.last(log)
        #expect(description.method == "write")
        #expect(description.resource?[member: "data"] == .int(1))
        #expect(description.request[member: "newData"] == .object([JSONMember("/items/a", .string("text"))]))
    }

    @Test func unwatchedDecisionsKeepNoData() throws {
        let log = RulesRequestLog(clock: { 1_000_000 })
        let db = DatabaseTestClient(requestLog: log)
        #expect(db.put("/.settings/rules.json?ns=d", Self.rules, headers: DatabaseTestClient.owner).status == .ok)
        #expect(db.get("/items.json?ns=d&auth=\(MockUserToken.make(uid: "alice"))").status == .ok)
        #expect(try Self.last(log).resource == nil)
    }

    @Test func askingForCoverageCreatesNoNamespace() throws {
        let db = DatabaseTestClient()
        #expect(db.get("/.inspect/coverage.json?ns=never-used").status == .ok)
        #expect(db.get("/.inspect/coverage?ns=never-used").status == .ok)
        let list = db.get("/.inspect/databases.json?ns=demo-default-rtdb").bodyText
        #expect(!list.contains("never-used"))
    }

    @Test func coverageReportsCountClauses() throws {
        let (db, _) = Self.watchedClient()
        let alice = MockUserToken.make(uid: "alice")
        #expect(db.put("/items/a.json?ns=d&auth=\(alice)", "\"text\"").status.code == 401)
        let json = try JSONReader.parse(Array(db.get("/.inspect/coverage.json?ns=d").bodyText.utf8))
        guard case .array(let expressions)? = json[member: "expressions"] else {
            Issue.record("no expressions")
            return
        }
        #expect(expressions.count == 2)
        // `auth != null` true, `newData.isNumber()` false.
        #expect(expressions.map { $0[member: "values"] } == [
            .array([.object([JSONMember("value", .object([JSONMember("boolValue", .bool(true))])), JSONMember("count", .int(1))])]),
            .array([.object([JSONMember("value", .object([JSONMember("boolValue", .bool(false))])), JSONMember("count", .int(1))])]),
        ])
        #expect(db.get("/.inspect/coverage?ns=d").bodyText.contains("2 of 2 sub-expressions"))
    }
}
