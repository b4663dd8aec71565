import EmulatorTestSupport
import EmulatorHTTP
import EmulatorSupport
import Testing

@testable import DatabaseEmulator

/// `/.inspect/coverage.json?ns=` and `/.inspect/coverage?ns=` (a page): how often each rule of a
/// namespace's rules ran, and how it came out.
@Suite struct DatabaseRuleCoverageTests {
    static let rules = """
        {
          "rules": {
            "users": {
              "$uid": {
                ".read": "auth.uid === $uid",
                ".write": false
              }
            }
          }
        }
        """

    static func client() -> DatabaseTestClient {
        let db = DatabaseTestClient()
        #expect(db.put("/.settings/rules.json?ns=c", rules, headers: DatabaseTestClient.owner).status == .ok)
        return db
    }

    @Test func jsonCountsEachRuleByOutcome() throws {
        let db = Self.client()
        let alice = MockUserToken.make(uid: "alice")
        #expect(db.get("/users/alice.json?ns=c&auth=\(alice)").status == .ok)
        #expect(db.get("/users/bob.json?ns=c&auth=\(alice)").status.code == 401)
        #expect(db.put("/users/alice.json?ns=c&auth=\(alice)", "1").status.code == 401)
        let r = db.get("/.inspect/coverage.json?ns=c")
        #expect(r.status == .ok)
        let json = try JSONReader.parse(Array(r.bodyText.utf8))
        guard case .array(let report)? = json[member: "report"] else {
            Issue.record("no report: \(r.bodyText)")
            return
        }
        #expect(report.map { $0[member: "sourcePosition"]?[member: "line"] } == [.int(5), .int(6)])
        #expect(report[0][member: "values"] == .array([
            .object([JSONMember("value", .object([JSONMember("boolValue", .bool(true))])), JSONMember("count", .int(1))]),
            .object([JSONMember("value", .object([JSONMember("boolValue", .bool(false))])), JSONMember("count", .int(1))]),
        ]))
        #expect(report[1][member: "values"] == .array([
            .object([JSONMember("value", .object([JSONMember("boolValue", .bool(false))])), JSONMember("count", .int(1))]),
        ]))
    }

    @Test func pageMarksTheRulesFile() {
        let db = Self.client()
        _ = db.get("/users/bob.json?ns=c&auth=\(MockUserToken.make(uid: "alice"))")
        let r = db.get("/.inspect/coverage?ns=c")
        #expect(r.status == .ok)
        #expect(r.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(r.bodyText.contains("<tr class=\"deny\"><td class=\"n\">5</td>"))
        #expect(r.bodyText.contains("<tr class=\"none\"><td class=\"n\">6</td>"))
        #expect(db.put("/.inspect/coverage.json?ns=c", "1").status == .methodNotAllowed)
    }

    @Test func namespacesOnTheDefaultRulesCountTheirOwnRequests() throws {
        let db = DatabaseTestClient()
        let alice = MockUserToken.make(uid: "alice")
        for _ in 0..<3 { #expect(db.get("/x.json?ns=busy&auth=\(alice)").status == .ok) }
        #expect(db.get("/x.json?ns=quiet&auth=\(alice)").status == .ok)
        func readCount(_ ns: String) throws -> JSONValue? {
            let json = try JSONReader.parse(Array(db.get("/.inspect/coverage.json?ns=\(ns)").bodyText.utf8))
            guard case .array(let report)? = json[member: "report"],
                case .array(let values)? = report.first?[member: "values"] else { return nil }
            return values.first?[member: "count"]
        }
        #expect(try readCount("busy") == .int(3))
        #expect(try readCount("quiet") == .int(1))
    }
}
