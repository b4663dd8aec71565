import Testing

@testable import SecurityRules

/// Within a batch, sibling documents reuse the parent's match walk and the outcomes of conditions
/// that read only `request.auth` and the parent's bindings. A batch must still decide exactly as
/// its writes checked one by one: same verdict, same first denial message, same debug output.
@Suite struct BatchMatchCacheTests {
    static func rules(_ body: String) throws -> FirestoreRuleset {
        try FirestoreRuleset.parse(
            "rules_version = '2';\nservice cloud.firestore { match /databases/{d}/documents {\n\(body)\n} }", fileName: "r.rules"
        ).get()
    }

    static let alice = FirestoreRulesAuth(AuthContext(uid: "alice"))
    static let bob = FirestoreRulesAuth(AuthContext(uid: "bob"))

    static func request(_ path: String, _ auth: FirestoreRulesAuth?, n: Int64 = 1) -> FirestoreRulesRequest {
        FirestoreRulesRequest(
            method: .update, segments: FirestoreRuleset.relativeSegments("databases/(default)/documents/\(path)"),
            projectID: "p", auth: auth, time: RulesTimestamp(seconds: 0, nanos: 0),
            newResource: RulesDocument(name: "databases/(default)/documents/\(path)", data: ["n": .int(n)]))
    }

    static let bodies = [
        "match /u/{uid}/n/{id} { allow write: if request.auth.uid == uid; }",
        "match /u/{uid} { function own() { return request.auth != null && request.auth.uid == uid; }\n match /n/{id} { allow write: if own(); } }",
        "match /u/{uid}/n/{id} { allow write: if id.size() < 3 && request.auth.uid == uid; }",
        "function short(x) { return x.size() < 3; } match /u/{uid}/n/{id} { allow write: if short(id); }",
        "match /u/{uid}/n/{id} { allow write: if request.resource.data.n == 1 && request.auth.uid == uid; }",
        "match /u/{uid}/n/{id} { allow update: if request.auth.uid == 'bob';\n allow write: if debug(request.auth.uid) == uid; }",
        "match /u/{uid}/{rest=**} { allow write: if request.auth.uid == uid; }",
        "match /u/{uid}/n/{id} { allow write: if request.auth.uid == uid; }\n match /u/{uid}/n/abc { allow write: if true; }",
    ]

    static let batches: [[(String, FirestoreRulesAuth?, Int64)]] = [
        [("u/alice/n/a", alice, 1), ("u/alice/n/b", alice, 1), ("u/alice/n/c", alice, 1)],
        [("u/alice/n/a", alice, 1), ("u/alice/n/b", bob, 1), ("u/alice/n/c", alice, 1)],
        [("u/alice/n/a", alice, 1), ("u/alice/n/b", nil, 1)],
        [("u/alice/n/a", alice, 1), ("u/alice/n/long", alice, 1)],
        [("u/alice/n/a", alice, 1), ("u/alice/n/b", alice, 2)],
        [("u/alice/n/a", bob, 1), ("u/alice/n/b", bob, 1), ("u/bob/n/c", bob, 1)],
        [("u/bob/n/a", bob, 1), ("u/bob/n/abc", alice, 1), ("u/bob/n/b", alice, 1)],
        [("u/alice/n/a", alice, 1), ("u/alice/n/a/m/x", alice, 1), ("u/alice/n/b", alice, 1)],
    ]

    @Test(arguments: bodies)
    func batchesDecideAsTheirWritesOneByOne(_ body: String) throws {
        let rules = try Self.rules(body)
        let data = EmptyFirestoreRulesDataSource()
        for (i, batch) in Self.batches.enumerated() {
            let requests = batch.map { Self.request($0.0, $0.1, n: $0.2) }
            let together = rules.evaluateBatch(requests, data: data)
            var debug: [String] = []
            var expected: RulesDecision = .allowed()
            for request in requests {
                let single = rules.evaluate(request, data: data)
                debug += single.debugOutput
                if !single.isAllowed {
                    expected = .denied(single.message)
                    break
                }
            }
            #expect(together.isAllowed == expected.isAllowed, "\(body) batch \(i)")
            #expect(together.message == expected.message, "\(body) batch \(i)")
            #expect(together.debugOutput == debug, "\(body) batch \(i)")
        }
    }

    @Test(arguments: [
        ("request.auth.uid == uid", true),
        ("request.auth != null && request.auth.token.email.matches('.*@x[.]com') && uid.size() > 2", true),
        ("id == 'a'", false),
        ("request.resource.data.n == 1", false),
        ("resource == null", false),
        ("request.time != null", false),
        ("exists(/databases/$(d)/documents/u/$(uid))", false),
        ("debug(uid) == uid", false),
        ("f(uid)", true),
        ("f(id)", false),
        ("g()", false),
    ])
    func keepsOnlyConditionsOfTheCallerAndTheParent(_ condition: String, _ kept: Bool) throws {
        let rules = try Self.rules(
            "function f(x) { return x.size() > 1; } function g() { return request.method == 'update'; }\n match /u/{uid}/n/{id} { allow write: if \(condition); }")
        let allow = try #require(rules.tree.children.first?.children.first?.allows.first?.condition)
        // Frame slots: 2 and 3 are `d` and `uid`, 4 is the document id.
        #expect(rules.readsOnlyAuthAndBindings(allow, excluding: [4]) == kept)
    }
}
