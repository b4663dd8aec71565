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

    /// The text of a span of `source` (file byte offsets).
    static func text(_ source: String, _ entry: RulesCoverage.ExpressionEntry) -> String {
        let bytes = Array(source.utf8)
        return String(decoding: bytes[entry.start..<entry.end], as: UTF8.self)
    }

    @Test func firestoreCoverageCountsEachClauseWithItsResults() throws {
        let source = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{d}/documents {
                function owner(uid) { return request.auth != null && request.auth.uid == uid; }
                match /u/{uid} {
                  allow get: if owner(uid) || (request.auth.token.admin == true ? true : resource.data.public);
                }
              }
            }
            """
        let rules = try FirestoreRuleset.parse(source, fileName: "t.rules").get()
        let coverage = RulesCoverage(
            source: RulesSourceText(fileName: "t.rules", text: source), rules: rules.rulePositions, expressions: rules.expressionSpans)
        let data = EmptyFirestoreRulesDataSource()
        for uid in ["alice", "bob", "alice"] as [String?] + [nil] {
            coverage.add(rules.evaluate(Self.request(.get, "u/alice", uid: uid), data: data, tracing: true))
        }
        let entries = coverage.expressionEntries
        let byText = Dictionary(entries.map { (Self.text(source, $0), $0.counts) }, uniquingKeysWith: { a, _ in a })
        // Three calls with a user, one without: `request.auth != null` ran four times.
        #expect(byText["request.auth != null"] == RulesCoverage.ExpressionCounts(isTrue: 3, isFalse: 1, error: 0, other: 0))
        #expect(byText["request.auth.uid == uid"] == RulesCoverage.ExpressionCounts(isTrue: 2, isFalse: 1, error: 0, other: 0))
        #expect(byText["owner(uid)"] == RulesCoverage.ExpressionCounts(isTrue: 2, isFalse: 2, error: 0, other: 0))
        // The ternary's condition: an error for bob (no `admin` claim) and without a user.
        #expect(byText["request.auth.token.admin == true"] == RulesCoverage.ExpressionCounts(isTrue: 0, isFalse: 0, error: 2, other: 0))
        #expect(entries.count == 5)
        // Line and column point at the clause.
        let first = try #require(entries.first { Self.text(source, $0) == "owner(uid)" })
        #expect(coverage.json()[member: "expressions"].map { _ in true } == true)
        guard case .array(let items)? = coverage.json()[member: "expressions"] else {
            Issue.record("no expressions")
            return
        }
        #expect(items.count == 5)
        let owner = items.first { $0[member: "sourcePosition"]?[member: "currentOffset"] == .int(Int64(first.start)) }
        #expect(owner?[member: "sourcePosition"]?[member: "line"] == .int(6))
        #expect(owner?[member: "sourcePosition"]?[member: "column"] == .int(21))
        #expect(owner?[member: "values"] == .array([
            .object([JSONMember("value", .object([JSONMember("boolValue", .bool(true))])), JSONMember("count", .int(2))]),
            .object([JSONMember("value", .object([JSONMember("boolValue", .bool(false))])), JSONMember("count", .int(2))]),
        ]))
        let html = coverage.html(title: "t")
        #expect(html.contains("<h2>Expressions</h2>"))
        #expect(html.contains("5 of 5 sub-expressions"))
        #expect(html.contains("<td class=\"n\">6:21</td><td class=\"c\">owner(uid)</td>"))
        // Without tracing nothing is noted; the probes cost no steps of the expression limit.
        #expect(rules.evaluate(Self.request(.get, "u/alice", uid: "alice"), data: data).expressions.isEmpty)
    }

    @Test func databaseCoverageCountsClausesInsideTheRuleStrings() throws {
        let source = #"""
            {
              "rules": {
                "u": {
                  "$uid": {
                    ".read": "auth != null && (auth.uid == $uid || root.child('admins').child(auth.uid).exists())",
                    ".write": "auth.uid == \"x\" || newData.isNumber()"
                  }
                }
              }
            }
            """#
        let rules = try DatabaseRuleset.parse(source, fileName: "database.rules.json").get()
        let coverage = RulesCoverage(
            source: RulesSourceText(fileName: "database.rules.json", text: source), rules: rules.rulePositions,
            expressions: rules.expressionSpans)
        let data = DatabaseTreeSource(nil)
        for uid in ["alice", "bob"] {
            coverage.add(rules.canRead(path: ["u", "alice"], auth: AuthContext(uid: uid), now: 0, data: data, tracing: true))
        }
        coverage.add(rules.canRead(path: ["u", "alice"], auth: nil, now: 0, data: data, tracing: true))
        coverage.add(rules.canUpdate(multiPath: [(["u", "x"], .int(1))], auth: AuthContext(uid: "y"), now: 0, data: data, tracing: true))
        let entries = coverage.expressionEntries
        let byText = Dictionary(entries.map { (Self.text(source, $0), $0.counts) }, uniquingKeysWith: { a, _ in a })
        #expect(byText["auth != null"] == RulesCoverage.ExpressionCounts(isTrue: 2, isFalse: 1, error: 0, other: 0))
        #expect(byText["(auth.uid == $uid || root.child('admins').child(auth.uid).exists())"]
            == RulesCoverage.ExpressionCounts(isTrue: 1, isFalse: 1, error: 0, other: 0))
        #expect(byText["root.child('admins').child(auth.uid).exists()"] == RulesCoverage.ExpressionCounts(isTrue: 0, isFalse: 1, error: 0, other: 0))
        // After an escaped quote the offsets still land on the file's bytes.
        #expect(byText[#"auth.uid == \"x\""#] == RulesCoverage.ExpressionCounts(isTrue: 0, isFalse: 1, error: 0, other: 0))
        #expect(byText["newData.isNumber()"] == RulesCoverage.ExpressionCounts(isTrue: 1, isFalse: 0, error: 0, other: 0))
        #expect(entries.count == 6)
        let line5 = entries.filter { Self.text(source, $0) == "auth != null" }
        #expect(line5.count == 1)
        guard case .array(let items)? = coverage.json()[member: "expressions"], let firstItem = items.first else {
            Issue.record("no expressions")
            return
        }
        #expect(firstItem[member: "sourcePosition"]?[member: "line"] == .int(5))
        #expect(firstItem[member: "sourcePosition"]?[member: "column"] == .int(19))
    }
}
