import Synchronization
import Testing

@testable import SecurityRules

/// A write sent with `existenceUnknown` (the emulator did not look whether its document exists)
/// must get exactly the verdict, denial message and debug output of the same write sent with its
/// real method, and the real method must be asked for only when a rule or a denial needs it.
@Suite struct ExistenceUnknownTests {
    static func rules(_ body: String) throws -> FirestoreRuleset {
        try FirestoreRuleset.parse(
            "rules_version = '2';\nservice cloud.firestore { match /databases/{d}/documents {\n\(body)\n} }", fileName: "r.rules"
        ).get()
    }

    @Test(arguments: [
        ("match /c/{id} { allow write: if request.method == 'create'; }", true),
        ("function f(r) { return r.method; } match /c/{id} { allow write: if f(request) == 'update'; }", true),
        ("function f() { return request.method == 'update'; } match /c/{id} { allow write: if f(); }", true),
        ("match /c/{id} { allow write: if request['method'] == 'create'; }", true),
        ("match /c/{id} { allow write: if debug(request) != null; }", true),
        ("match /c/{id} { allow write: if request.auth.uid == id && request.resource.data.keys().hasOnly(['n']); }", false),
        ("match /c/{id} { allow write: if request.time != null && request.path != null; }", false),
        ("function f(method) { return method == 1; } match /c/{id} { allow write: if f(1); }", false),
    ])
    func seesEveryReadOfTheMethod(_ body: String, _ reads: Bool) throws {
        let rules = try Self.rules(body)
        #expect(rules.readsRequestMethod == reads)
        #expect(rules.decidesWritesWithoutExistence == !reads)
    }

    @Test func rulesReadingResourceDecideWithTheRealMethod() throws {
        let rules = try Self.rules("match /c/{id} { allow create, update: if resource == null; }")
        #expect(!rules.decidesWritesWithoutExistence)
        // Even when a caller sends `existenceUnknown`, the method is resolved first, granted or not.
        let asked = Mutex(0)
        let decision = rules.evaluateBatch(
            count: 1, data: EmptyFirestoreRulesDataSource(),
            resolveMethod: { _ in
                asked.withLock { $0 += 1 }
                return .update
            }
        ) { _ in Self.request(.update, "c/a", unknown: true) }
        #expect(asked.withLock { $0 } == 1)
        #expect(decision.isAllowed)
    }

    static let bodies = [
        // Same rule for both: never needs the method unless denied.
        "match /c/{id} { allow create, update: if request.resource.data.n == 1; }",
        "match /c/{id} { allow write: if request.resource.data.n == 1; }",
        // Different rules for create and update.
        "match /c/{id} { allow create: if request.resource.data.n == 1;\n allow update: if request.resource.data.n == 2; }",
        // A shared rule first, then one for update only, then one for create only.
        "match /c/{id} { allow create, update: if request.resource.data.n == 3;\n allow update: if request.resource.data.n == 2;\n allow create: if debug(request.resource.data.n) == 1; }",
        // Only create is allowed at all; nested and recursive matches.
        "match /c/{id} { allow create: if request.resource.data.n == 1; }",
        "match /{path=**} { allow update: if request.resource.data.n == 2; }\n match /c/{id} { allow write: if request.resource.data.n == 1; }",
        // get() counts against the access limits the same either way.
        "match /c/{id} { allow update: if get(/databases/$(d)/documents/c/x).data.n == 1;\n allow create: if exists(/databases/$(d)/documents/c/y); }",
        // No rule for writes.
        "match /c/{id} { allow read: if true; }",
    ]

    @Test(arguments: bodies)
    func givesTheSameDecisionAsTheRealMethod(_ body: String) throws {
        let rules = try Self.rules(body)
        #expect(rules.decidesWritesWithoutExistence)
        for method in [FirestoreRulesMethod.create, .update] {
            for n in Int64(0)...3 {
                let known = rules.evaluate(Self.request(method, "c/a", n: n), data: EmptyFirestoreRulesDataSource())
                let asked = Mutex(0)
                let unknown = rules.evaluateBatch(
                    count: 1, data: EmptyFirestoreRulesDataSource(),
                    resolveMethod: { _ in
                        asked.withLock { $0 += 1 }
                        return method
                    }
                ) { _ in Self.request(.update, "c/a", n: n, unknown: true) }
                #expect(unknown.isAllowed == known.isAllowed, "\(body) \(method) n=\(n)")
                #expect(unknown.message == known.message, "\(body) \(method) n=\(n)")
                #expect(unknown.debugOutput == known.debugOutput, "\(body) \(method) n=\(n)")
                #expect(asked.withLock { $0 } <= 1)
            }
        }
    }

    @Test func asksForTheMethodOnlyWhenARuleOrADenialNeedsIt() throws {
        let shared = try Self.rules("match /c/{id} { allow create, update: if request.resource.data.n == 1; }")
        let split = try Self.rules("match /c/{id} { allow create: if request.resource.data.n == 1;\n allow update: if true; }")
        func asks(_ rules: FirestoreRuleset, n: Int64) -> (Int, RulesDecision) {
            let asked = Mutex(0)
            let decision = rules.evaluateBatch(
                count: 3, data: EmptyFirestoreRulesDataSource(),
                resolveMethod: { i in
                    asked.withLock { $0 += 1 }
                    return i == 0 ? .create : .update
                }
            ) { i in Self.request(.update, "c/d\(i)", n: n, unknown: true) }
            return (asked.withLock { $0 }, decision)
        }
        let granted = asks(shared, n: 1)
        #expect(granted.0 == 0 && granted.1.isAllowed)
        let denied = asks(shared, n: 2)
        // The first write is denied: its real method words the message.
        #expect(denied.0 == 1)
        #expect(denied.1.message == "false for 'create' @ L3")
        let needed = asks(split, n: 1)
        #expect(needed.0 == 3 && needed.1.isAllowed)
    }

    static func request(_ method: FirestoreRulesMethod, _ path: String, n: Int64 = 1, unknown: Bool = false) -> FirestoreRulesRequest {
        var request = FirestoreRulesRequest(
            method: method, path: "databases/(default)/documents/\(path)", time: RulesTimestamp(seconds: 0, nanos: 0),
            newResource: RulesDocument(name: "databases/(default)/documents/\(path)", data: ["n": .int(n)]))
        request.existenceUnknown = unknown
        return request
    }
}
