import EmulatorSupport
import Testing

@testable import SecurityRules

/// Traces (which rules ran and how each came out) for the Emulator UI's Requests view, and the
/// coverage counts built from them.
@Suite struct RulesTraceTests {
    static let source = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{d}/documents {
            match /u/{uid} {
              allow get: if request.auth.uid == 'bob';
              allow get: if request.auth.uid == uid;
              allow list: if resource.data.missing.size() > 0;
              allow create;
            }
          }
        }
        """

    static func rules() throws -> FirestoreRuleset { try FirestoreRuleset.parse(source, fileName: "t.rules").get() }

    static func request(_ method: FirestoreRulesMethod, _ path: String, uid: String?) -> FirestoreRulesRequest {
        FirestoreRulesRequest(
            method: method, segments: FirestoreRuleset.relativeSegments("databases/(default)/documents/\(path)"), projectID: "p",
            auth: uid.map { FirestoreRulesAuth(AuthContext(uid: $0)) }, time: RulesTimestamp(seconds: 0, nanos: 0),
            newResource: method == .create ? RulesDocument(name: "databases/(default)/documents/\(path)", data: [:]) : nil)
    }

    @Test func firestoreTraceNamesEveryAllowThatRanInOrder() throws {
        let rules = try Self.rules()
        let data = EmptyFirestoreRulesDataSource()
        let granted = rules.evaluate(Self.request(.get, "u/alice", uid: "alice"), data: data, tracing: true)
        #expect(granted.isAllowed)
        #expect(granted.evaluated == [
            RulesLineOutcome(line: 5, column: 21, outcome: .deny), RulesLineOutcome(line: 6, column: 21, outcome: .allow),
        ])
        let denied = rules.evaluate(Self.request(.get, "u/alice", uid: "carol"), data: data, tracing: true)
        #expect(!denied.isAllowed)
        #expect(denied.evaluated.map(\.outcome) == [.deny, .deny])
        #expect(RulesRequestRecord.outcome(of: denied) == .deny)
        let failed = rules.evaluate(Self.request(.list, "u", uid: "alice"), data: data, tracing: true)
        #expect(failed.evaluated.map(\.line) == [7])
        #expect(RulesRequestRecord.outcome(of: failed) == .error)
        // Unconditional: the allow itself is named.
        let created = rules.evaluate(Self.request(.create, "u/x", uid: nil), data: data, tracing: true)
        #expect(created.evaluated == [RulesLineOutcome(line: 8, column: 7, outcome: .allow)])
        // Without tracing nothing is kept.
        #expect(rules.evaluate(Self.request(.get, "u/alice", uid: "alice"), data: data).evaluated.isEmpty)
    }

    /// A batch whose siblings reuse kept outcomes still reports each allow it decided by.
    @Test func batchTraceCoversKeptOutcomes() throws {
        let rules = try Self.rules()
        let requests = (0..<3).map { _ in Self.request(.get, "u/alice", uid: "alice") }
        let decision = rules.evaluateBatch(count: 3, data: EmptyFirestoreRulesDataSource(), tracing: true) { requests[$0] }
        #expect(decision.isAllowed)
        #expect(decision.evaluated.count == 6)
        #expect(decision.evaluated.filter { $0.outcome == RulesOutcome.allow }.map { $0.line } == [6, 6, 6])
    }

    @Test func databaseTraceCoversCascadeAndValidate() throws {
        let rules = try DatabaseRuleset.parse("""
            {
              "rules": {
                ".read": false,
                "u": {
                  "$uid": {
                    ".read": "auth.uid == $uid",
                    ".write": "auth.uid == $uid",
                    ".validate": "newData.isNumber()"
                  }
                }
              }
            }
            """, fileName: "database.rules.json").get()
        let data = DatabaseTreeSource(nil)
        let alice = AuthContext(uid: "alice")
        let read = rules.canRead(path: ["u", "alice"], auth: alice, now: 0, data: data, tracing: true)
        #expect(read.isAllowed)
        #expect(read.evaluated == [
            RulesLineOutcome(line: 3, column: 14, outcome: .deny), RulesLineOutcome(line: 6, column: 18, outcome: .allow),
        ])
        let write = rules.canUpdate(multiPath: [(["u", "alice"], .string("x"))], auth: alice, now: 0, data: data, tracing: true)
        #expect(!write.isAllowed)
        #expect(write.evaluated.map(\.outcome) == [.allow, .deny])
        #expect(write.evaluated.map(\.line) == [7, 8])
        #expect(rules.rulePositions.map(\.line) == [3, 6, 7, 8])
    }

    @Test func coverageCountsAndReportsInTheOfficialShape() throws {
        let rules = try Self.rules()
        let coverage = RulesCoverage(source: RulesSourceText(fileName: "t.rules", text: Self.source), rules: rules.rulePositions)
        let data = EmptyFirestoreRulesDataSource()
        for uid in ["alice", "carol", "alice"] {
            coverage.add(rules.evaluate(Self.request(.get, "u/alice", uid: uid), data: data, tracing: true).evaluated)
        }
        let entries = coverage.entries
        #expect(entries.map(\.line) == [5, 6, 7, 8])
        #expect(entries[0].counts == RulesCoverage.Counts(allow: 0, deny: 3, error: 0))
        #expect(entries[1].counts == RulesCoverage.Counts(allow: 2, deny: 1, error: 0))
        #expect(entries[2].counts.total == 0)
        let json = coverage.json()
        #expect(json[member: "rules"]?[member: "files"] == .array([.object([
            JSONMember("name", .string("t.rules")), JSONMember("content", .string(Self.source)),
        ])]))
        guard case .array(let report)? = json[member: "report"] else {
            Issue.record("no report")
            return
        }
        #expect(report.count == 4)
        let second = report[1]
        #expect(second[member: "sourcePosition"]?[member: "line"] == .int(6))
        #expect(second[member: "values"] == .array([
            .object([JSONMember("value", .object([JSONMember("boolValue", .bool(true))])), JSONMember("count", .int(2))]),
            .object([JSONMember("value", .object([JSONMember("boolValue", .bool(false))])), JSONMember("count", .int(1))]),
        ]))
        // The offsets cut the condition out of the source.
        let bytes = Array(Self.source.utf8)
        if case .int(let from)? = second[member: "sourcePosition"]?[member: "currentOffset"],
            case .int(let to)? = second[member: "sourcePosition"]?[member: "endOffset"]
        {
            #expect(String(decoding: bytes[Int(from)..<Int(to)], as: UTF8.self) == "request.auth.uid == uid")
        } else {
            Issue.record("no offsets")
        }
        #expect(report[2][member: "values"] == nil)
        let html = coverage.html(title: "t <coverage>")
        #expect(html.contains("t &lt;coverage&gt;"))
        #expect(html.contains("<tr class=\"both\"><td class=\"n\">6</td>"))
        #expect(html.contains("<tr class=\"deny\"><td class=\"n\">5</td>"))
        #expect(html.contains("<tr class=\"none\"><td class=\"n\">7</td>"))
        #expect(html.contains("3 of 4 rules ran") == false)
        #expect(html.contains("2 of 4 rules ran"))
    }
}
