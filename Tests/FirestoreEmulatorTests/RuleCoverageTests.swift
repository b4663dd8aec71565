import EmulatorHTTP
import EmulatorSupport
import FirestoreEmulator
import Testing

/// `GET /emulator/v1/projects/{p}:ruleCoverage` (JSON) and `:ruleCoverage.html`: how often each
/// `allow` of the project's rules ran since they were installed, and how it came out.
@Suite struct RuleCoverageTests {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /u/{uid} {
              allow read: if request.auth.uid == uid;
              allow write: if false;
            }
          }
        }
        """

    func client() -> FirestoreTestClient {
        let c = FirestoreTestClient(rulesEngine: true)
        let body = JSONWriter.encodeToString(.object([
            JSONMember("rules", .object([JSONMember("files", .array([.object([JSONMember("content", .string(Self.rules))])]))]))
        ]))
        #expect(c.send(.put, "/emulator/v1/projects/demo:securityRules", body).status == 200)
        return c
    }

    @Test func jsonCountsEachRuleByOutcome() {
        let c = client()
        let alice = [("Authorization", RulesIntegrationTests.token(uid: "alice"))]
        #expect(c.send(.get, "/v1/\(c.name("u/alice"))", headers: alice).status == 404)
        #expect(c.send(.get, "/v1/\(c.name("u/bob"))", headers: alice).status == 403)
        #expect(c.send(.get, "/v1/\(c.name("u/alice"))", headers: alice).status == 404)
        // The owner is not held to rules: nothing counts.
        #expect(c.send(.get, "/v1/\(c.name("u/bob"))", headers: [("Authorization", "Bearer owner")]).status == 404)
        let r = c.send(.get, "/emulator/v1/projects/demo:ruleCoverage")
        #expect(r.status == 200)
        guard case .array(let report)? = r.json[member: "report"] else {
            Issue.record("no report: \(r.text)")
            return
        }
        #expect(report.count == 2)
        #expect(report[0][member: "sourcePosition"]?[member: "line"] == .int(5))
        #expect(report[0][member: "values"] == .array([
            .object([JSONMember("value", .object([JSONMember("boolValue", .bool(true))])), JSONMember("count", .int(2))]),
            .object([JSONMember("value", .object([JSONMember("boolValue", .bool(false))])), JSONMember("count", .int(1))]),
        ]))
        #expect(report[1][member: "values"] == nil)
        #expect(r.json[member: "rules"]?[member: "files"]?.array?.first?[member: "content"] == .string(Self.rules))
    }

    @Test func htmlMarksTheRulesFile() {
        let c = client()
        _ = c.send(.get, "/v1/\(c.name("u/bob"))", headers: [("Authorization", RulesIntegrationTests.token(uid: "alice"))])
        let r = c.send(.get, "/emulator/v1/projects/demo:ruleCoverage.html")
        #expect(r.status == 200)
        #expect(r.text.contains("<tr class=\"deny\"><td class=\"n\">5</td>"))
        #expect(r.text.contains("<tr class=\"none\"><td class=\"n\">6</td>"))
    }

    @Test func newRulesStartANewCount() {
        let c = client()
        _ = c.send(.get, "/v1/\(c.name("u/bob"))", headers: [("Authorization", RulesIntegrationTests.token(uid: "alice"))])
        let before = c.send(.get, "/emulator/v1/projects/demo:ruleCoverage").json[member: "report"]?.array?.first
        #expect(before?[member: "values"] != nil)
        let body = JSONWriter.encodeToString(.object([
            JSONMember("rules", .object([JSONMember("files", .array([.object([JSONMember("content", .string(Self.rules))])]))]))
        ]))
        #expect(c.send(.put, "/emulator/v1/projects/demo:securityRules", body).status == 200)
        let after = c.send(.get, "/emulator/v1/projects/demo:ruleCoverage").json[member: "report"]?.array?.first
        #expect(after != nil && after?[member: "values"] == nil)
    }

    @Test func withoutRulesTheReportIsEmptyAndOnlyGETIsAllowed() {
        let c = FirestoreTestClient(rulesEngine: true)
        let r = c.send(.get, "/emulator/v1/projects/demo:ruleCoverage")
        #expect(r.status == 200)
        #expect(r.json[member: "report"] == .array([]))
        #expect(c.send(.get, "/emulator/v1/projects/demo:ruleCoverage.html").status == 200)
        #expect(c.send(.post, "/emulator/v1/projects/demo:ruleCoverage", "{}").status != 200)
    }
}
