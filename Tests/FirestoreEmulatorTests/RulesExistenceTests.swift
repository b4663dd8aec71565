import EmulatorHTTP
import EmulatorSupport
import Testing

@testable import FirestoreEmulator

/// Rules that read neither `resource` nor `request.method` let plain sets skip the lookup that
/// decides create or update; the verdicts and denial messages must stay exactly those of rules
/// that force the lookup (the same rules plus an unused function reading `request.method`).
@Suite struct RulesExistenceTests {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /c/{id} {
              allow create: if request.resource.data.v == 1;
              allow update: if request.resource.data.v == 2;
              allow delete: if true;
            }
            match /c/special { allow create: if request.resource.data.v == 3; }
            match /s/{id} {
              allow create, update: if request.resource.data.v == 1;
            }
            match /g/{id} {
              allow write: if getAfter(/databases/$(database)/documents/marker/m).data.ok == true;
            }
            match /marker/{id} { allow write: if true; }
            match /{path=**}/deep/{id} {
              allow create: if request.resource.data.v == 1;
              allow update: if request.resource.data.v == 2;
            }
            match /r/{rest=**} { allow write: if request.resource.data.v == 1; }
          }
        }
        """
    /// The same rules, made to read `request.method` (so every write looks its document up).
    static let eagerRules = rules.replacingLast("}", with: "  function m() { return request.method; }\n}")

    enum Op {
        case set(String, Int)
        case delete(String)
        case setFlag(String, Bool)
    }

    /// Each batch is one commit; run in order against both rule variants.
    static let batches: [[Op]] = [
        [.set("c/a", 1)],  // create
        [.set("c/a", 1)],  // an update with create's data: denied for 'update'
        [.set("c/a", 2)],
        [.set("c/b", 1), .set("c/b", 2)],  // create, then update in one batch
        [.set("c/x", 2)],  // create with update's data: denied for 'create'
        [.delete("c/a"), .set("c/a", 1)],  // deleted earlier in the batch: a create
        [.delete("c/a"), .set("c/a", 2)],
        [.set("c/a", 2), .set("c/y", 1), .set("c/z", 1), .set("c/special", 3)],  // a literal id among siblings
        [.set("c/a", 2), .set("c/y", 2), .set("c/w", 2)],  // siblings: the third is a create
        [.set("s/a", 1), .set("s/b", 2)],
        [.setFlag("marker/m", true), .set("g/a", 5)],  // getAfter sees the whole batch
        [.setFlag("marker/m", false), .set("g/b", 1)],
        [.set("c/a/deep/d", 1), .set("c/a/deep/e", 1)],
        [.set("c/a/deep/d", 2), .set("x/y/deep/e", 2)],
        [.set("c/a/deep/d", 2), .set("c/a/deep/e", 2)],
        [.set("r/a", 1), .set("r/b", 1)],  // the recursive wildcard takes in the id: not cached
        [.set("r/a", 1), .set("r/c", 2)],
    ]

    func client(_ rules: String) -> FirestoreTestClient {
        let c = FirestoreTestClient(rulesEngine: true)
        let body = JSONWriter.encodeToString(.object([
            JSONMember("rules", .object([JSONMember("files", .array([.object([JSONMember("content", .string(rules))])]))]))
        ]))
        let r = c.send(.put, "/emulator/v1/projects/demo:securityRules", body)
        #expect(r.status == 200, "\(r.text)")
        return c
    }

    func commit(_ c: FirestoreTestClient, _ ops: [Op]) -> FirestoreTestClient.Response {
        let writes = ops.map { op -> String in
            switch op {
            case .set(let path, let v): #"{"update":{"name":"\#(c.name(path))","fields":{"v":{"integerValue":"\#(v)"}}}}"#
            case .setFlag(let path, let ok): #"{"update":{"name":"\#(c.name(path))","fields":{"ok":{"booleanValue":\#(ok)}}}}"#
            case .delete(let path): #"{"delete":"\#(c.name(path))"}"#
            }
        }
        return c.post(":commit", #"{"writes":[\#(writes.joined(separator: ","))]}"#)
    }

    @Test func theRulesTakeTheirIntendedPaths() {
        #expect(FirestoreRulesEngine.compile(Self.rules).gate?.decidesWritesWithoutExistence == true)
        #expect(FirestoreRulesEngine.compile(Self.eagerRules).gate?.decidesWritesWithoutExistence == false)
    }

    @Test func skippingTheLookupGivesTheSameVerdictsAndMessages() {
        let lazy = client(Self.rules)
        let eager = client(Self.eagerRules)
        var statuses: [Int] = []
        for (i, ops) in Self.batches.enumerated() {
            let a = commit(lazy, ops)
            let b = commit(eager, ops)
            #expect(a.status == b.status, "batch \(i)")
            #expect(a.json.errorMessage == b.json.errorMessage, "batch \(i): \(a.text) vs \(b.text)")
            statuses.append(a.status)
        }
        #expect(statuses == [200, 403, 200, 200, 403, 200, 403, 200, 403, 403, 200, 403, 200, 403, 200, 200, 403])
        // The denials name the method the document's existence decides.
        #expect(commit(lazy, [.set("c/a", 1)]).json.errorMessage?.contains("false for 'update' @ L6") == true)
        #expect(commit(lazy, [.set("c/new", 2)]).json.errorMessage?.contains("false for 'create' @ L5") == true)
        #expect(commit(lazy, [.set("c/a", 2), .set("c/w", 2)]).json.errorMessage?.contains("false for 'create' @ L5") == true)
    }
}

extension String {
    fileprivate func replacingLast(_ target: Character, with replacement: String) -> String {
        guard let i = lastIndex(of: target) else { return self }
        return String(self[..<i]) + replacement + String(self[index(after: i)...])
    }
}
