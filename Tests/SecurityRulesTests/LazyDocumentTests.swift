import EmulatorModel
import Testing

@testable import SecurityRules

/// Documents the emulator hands to rules are read in place (lazy maps); every expression must
/// give the same verdict as with documents converted up front.
@Suite struct LazyDocumentTests {
    static let name = "databases/(default)/documents/users/ada"
    static let old: ValueMap = ["name": .string("Ada"), "age": .integer(36), "tags": .array([.string("x")]), "m": .map(["k": .integer(1)])]
    static let new: ValueMap = ["name": .string("Ada"), "age": .integer(37), "tags": .array([.string("x")]), "m": .map(["k": .integer(1)])]

    /// Each condition and whether it allows the update of users/ada from `old` to `new` by ada.
    static let cases: [(String, Bool)] = [
        ("request.resource.data.keys().hasOnly(['name', 'age', 'tags', 'm'])", true),
        ("request.resource.data.keys() == ['age', 'm', 'name', 'tags']", true),
        ("request.resource.data.size() == 4 && resource.data.size() == 4", true),
        ("'name' in request.resource.data && !('nope' in resource.data)", true),
        ("request.resource.data.name == resource.data.name", true),
        ("request.resource.data == resource.data", false),
        ("request.resource.data.diff(resource.data).affectedKeys() == ['age'].toSet()", true),
        ("resource.data.diff(request.resource.data).unchangedKeys().hasAll(['name', 'tags', 'm'])", true),
        ("request.resource.data.get('age', 0) == 37 && resource.data.get(['m', 'k'], 0) == 1", true),
        ("request.resource.data.get('missing', 'd') == 'd'", true),
        ("resource.data is map && request.resource is map && request is map", true),
        ("resource.id == 'ada' && resource.__name__ == /databases/(default)/documents/users/ada", true),
        ("request.resource['data']['m'].k == 1 && resource['id'] == 'ada'", true),
        ("[resource.data] == [resource.data] && {'d': request.resource.data}.d.age == 37", true),
        ("same(resource.data, resource.data) && !same(resource.data, request.resource.data)", true),
        ("resource.data.values().size() == 4", true),
        ("request.keys().hasAll(['auth', 'method', 'path', 'resource', 'time'])", true),
        ("request.method == 'update' && request.path == /databases/(default)/documents/users/ada", true),
        ("request.resource.data.nope == 1", false),
        ("resource.data.tags[0] == 'x' && resource.data.m.keys() == ['k']", true),
        ("debug(resource.data) == resource.data", true),
        ("string(resource.data.age) == '36'", true),
        ("resource.data.keys().size() == resource.data.size()", true),
        ("request.auth.uid == 'ada' && request.auth.token.size() == 0", true),
    ]

    static func verdict(_ condition: String, stored: Bool) throws -> RulesDecision {
        let rules = try FirestoreRuleset.parse(
            """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                function same(a, b) { return a == b; }
                match /users/{id} { allow update: if \(condition); }
              }
            }
            """, fileName: "lazy.rules"
        ).get()
        func document(_ fields: ValueMap) -> RulesDocument {
            stored ? RulesDocument(name: name, fields: fields) : RulesDocument(name: name, data: RulesValue.fields(fields))
        }
        let request = FirestoreRulesRequest(
            method: .update, path: name, auth: AuthContext(uid: "ada"), time: RulesTimestamp(seconds: 0, nanos: 0),
            resource: document(old), newResource: document(new))
        return rules.evaluate(request, data: EmptyFirestoreRulesDataSource())
    }

    @Test(arguments: cases)
    func storedDocumentsBehaveAsConvertedOnes(_ condition: String, _ allowed: Bool) throws {
        let lazy = try Self.verdict(condition, stored: true)
        let converted = try Self.verdict(condition, stored: false)
        #expect(lazy.isAllowed == allowed)
        #expect(converted.isAllowed == allowed)
        #expect(lazy.message == converted.message)
        #expect(lazy.debugOutput == converted.debugOutput)
    }

    @Test func aConvertedCallerIsSharedAcrossRequests() throws {
        let auth = FirestoreRulesAuth(AuthContext(uid: "ada"))
        let rules = try FirestoreRuleset.parse(
            "service cloud.firestore { match /databases/{d}/documents { match /users/{id} { allow create: if request.auth.uid == id; } } }",
            fileName: "a.rules"
        ).get()
        let requests = ["ada", "bob"].map { id in
            FirestoreRulesRequest(
                method: .create, segments: ["databases", "(default)", "documents", "users", id], projectID: "p", auth: auth,
                time: RulesTimestamp(seconds: 0, nanos: 0), newResource: RulesDocument(segments: ["databases", "(default)", "documents", "users", id], fields: [:]))
        }
        #expect(rules.evaluate(requests[0], data: EmptyFirestoreRulesDataSource()).isAllowed)
        #expect(!rules.evaluateBatch(requests, data: EmptyFirestoreRulesDataSource()).isAllowed)
        #expect(requests[1].path == "databases/(default)/documents/users/bob")
        #expect(requests[1].auth?.uid == "ada")
    }
}
