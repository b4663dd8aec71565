import Testing

@testable import SecurityRules

/// `readsResource` lets emulators skip decoding stored documents: it must see every way a rule
/// can reach `resource`, and nothing else.
@Suite struct ReadsResourceTests {
    static func rules(_ body: String) throws -> FirestoreRuleset {
        try FirestoreRuleset.parse(
            "rules_version = '2';\nservice cloud.firestore { match /databases/{d}/documents {\n\(body)\n} }", fileName: "r.rules"
        ).get()
    }

    @Test(arguments: [
        ("match /c/{id} { allow update: if resource.data.n == 1; }", true),
        ("function f() { return resource.data.n == 1; } match /c/{id} { allow update: if f(); }", true),
        ("function f() { let x = resource; return x != null; } match /c/{id} { allow update: if f(); }", true),
        ("match /c/{id} { match /d/{e} { allow read: if exists(/databases/$(d)/documents/c/$(resource.id)); } }", true),
        ("match /c/{id} { allow update: if [resource][0] != null; }", true),
        ("match /c/{id} { allow create, update: if request.resource.data.keys().hasOnly(['n']); }", false),
        ("function g(resource) { return resource == 1; } match /c/{id} { allow read: if g(1); }", false),
        ("match /c/{id} { allow read: if get(/databases/$(d)/documents/x/y).data.n == 1; }", false),
    ])
    func seesEveryReadOfResource(_ body: String, _ reads: Bool) throws {
        #expect(try Self.rules(body).readsResource == reads)
    }
}
