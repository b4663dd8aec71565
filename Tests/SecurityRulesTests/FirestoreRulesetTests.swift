import EmulatorSupport
import Testing

@testable import SecurityRules

/// An in-memory document store for rules tests: `before` for get/exists, `after` for getAfter.
struct MemoryFirestoreData: FirestoreRulesDataSource {
    var before: [String: [String: RulesValue]] = [:]
    var after: [String: [String: RulesValue]] = [:]

    func document(_ name: String, afterWrites: Bool) -> RulesDocument? {
        let relative = name.split(separator: "/").dropFirst(5).joined(separator: "/")
        guard let data = (afterWrites ? after : before)[relative] else { return nil }
        return RulesDocument(name: name, data: data)
    }
}

private let now = RulesTimestamp(seconds: 1_700_000_000, nanos: 0)

private func load(_ source: String) throws -> FirestoreRuleset {
    try FirestoreRuleset.parse(source, fileName: "firestore.rules").get()
}

private func doc(_ path: String) -> String { "databases/(default)/documents/" + path }

private func request(
    _ method: FirestoreRulesMethod, _ path: String, uid: String? = nil, resource: [String: RulesValue]? = nil,
    newData: [String: RulesValue]? = nil, query: RulesQuery? = nil
) -> FirestoreRulesRequest {
    FirestoreRulesRequest(
        method: method, path: doc(path), auth: uid.map { AuthContext(uid: $0) }, time: now,
        resource: resource.map { RulesDocument(name: doc(path), data: $0) },
        newResource: newData.map { RulesDocument(name: doc(path), data: $0) }, query: query)
}

@Test("Rules apply only to the exact path they match, not to parents or subcollections")
func firestoreHierarchicalMatch() throws {
    let rules = try load("""
        service cloud.firestore {
          match /databases/{database}/documents {
            match /users/{userId} {
              allow read: if true;
            }
          }
        }
        """)
    let data = EmptyFirestoreRulesDataSource()
    #expect(rules.evaluate(request(.get, "users/alice"), data: data).isAllowed)
    #expect(!rules.evaluate(request(.get, "users/alice/posts/p1"), data: data).isAllowed)
    #expect(!rules.evaluate(request(.get, "rooms/r1"), data: data).isAllowed)
    #expect(rules.evaluate(request(.get, "rooms/r1"), data: data).message == "Missing or insufficient permissions.")
}

@Test("A denial names the rule and line that decided it")
func firestoreDenialMessage() throws {
    let rules = try load("""
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /posts/{postId} {
              allow update: if request.auth.uid == resource.data.owner;
              allow get: if resource.data.missing == 1;
            }
          }
        }
        """)
    let data = EmptyFirestoreRulesDataSource()
    let update = rules.evaluate(request(.update, "posts/p", uid: "bob", resource: ["owner": .string("alice")], newData: [:]), data: data)
    #expect(update.message == "false for 'update' @ L5")
    #expect(update.firestoreWireMessage == "\nfalse for 'update' @ L5")
    let get = rules.evaluate(request(.get, "posts/p", resource: ["owner": .string("alice")]), data: data)
    #expect(get.message == "Property missing is undefined on object. for 'get' @ L6")
    let list = rules.evaluate(request(.get, "posts/p", resource: nil), data: data)
    #expect(list.message == "Null value error. for 'get' @ L6")
}

@Test("Any granting allow wins, even when another errors")
func firestoreOverlappingAllows() throws {
    let rules = try load("""
        service cloud.firestore {
          match /databases/{database}/documents {
            match /a/{id} { allow read: if resource.data.nope; }
            match /{document=**} { allow get: if request.auth != null; }
          }
        }
        """)
    let data = EmptyFirestoreRulesDataSource()
    #expect(rules.evaluate(request(.get, "a/1", uid: "u", resource: [:]), data: data).isAllowed)
    let denied = rules.evaluate(request(.get, "a/1", resource: [:]), data: data)
    #expect(!denied.isAllowed)
    #expect(denied.message == "Property nope is undefined on object. for 'get' @ L3, false for 'get' @ L4")
}

@Test("Recursive wildcards: v1 needs one or more segments, v2 accepts zero and any position")
func firestoreRecursiveWildcards() throws {
    let v1 = try load("""
        service cloud.firestore { match /databases/{database}/documents {
          match /cities/{city}/{rest=**} { allow read: if rest == 'landmarks/coit'; }
        } }
        """)
    let v2 = try load("""
        rules_version = '2';
        service cloud.firestore { match /databases/{database}/documents {
          match /cities/{city}/{rest=**} { allow read: if true; }
          match /{path=**}/posts/{post} { allow list: if true; }
        } }
        """)
    let data = EmptyFirestoreRulesDataSource()
    #expect(v1.evaluate(request(.get, "cities/SF/landmarks/coit"), data: data).isAllowed)
    #expect(!v1.evaluate(request(.get, "cities/SF"), data: data).isAllowed)
    #expect(v2.evaluate(request(.get, "cities/SF"), data: data).isAllowed)
    #expect(v2.evaluate(request(.list, "users/u/posts", query: RulesQuery()), data: data).isAllowed)
    #expect(
        v2.evaluate(FirestoreRulesRequest(method: .list, path: doc("posts"), time: now, query: RulesQuery(), isCollectionGroup: true), data: data)
            .isAllowed)
    let group = FirestoreRulesRequest(method: .list, path: doc("posts"), time: now, query: RulesQuery(), isCollectionGroup: true)
    #expect(!v1.evaluate(group, data: data).isAllowed)
    let topLevelOnly = try load("""
        rules_version = '2';
        service cloud.firestore { match /databases/{database}/documents { match /posts/{post} { allow list: if true; } } }
        """)
    #expect(topLevelOnly.evaluate(request(.list, "posts", query: RulesQuery()), data: data).isAllowed)
    #expect(!topLevelOnly.evaluate(group, data: data).isAllowed)
    #expect(
        FirestoreRuleset.parse(
            "service cloud.firestore { match /databases/{d}/documents { match /{a=**}/x { allow read; } } }", fileName: "f")
            .isFailure)
}

@Test("The typical owner rule with keys().hasOnly")
func firestoreOwnerRule() throws {
    let rules = try load("""
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /users/{userId} {
              allow create:
                if request.auth.uid == userId
                && request.resource.data.keys().hasOnly(['name', 'age'])
                && request.resource.data.age is int;
            }
          }
        }
        """)
    let data = EmptyFirestoreRulesDataSource()
    // The official emulator names the line where the condition starts (firebase-tools#3931).
    #expect(rules.evaluate(request(.create, "users/alice", uid: "bob", newData: [:]), data: data).message == "false for 'create' @ L6")
    #expect(rules.evaluate(request(.create, "users/alice", uid: "alice", newData: ["name": .string("A"), "age": .int(3)]), data: data).isAllowed)
    #expect(!rules.evaluate(request(.create, "users/alice", uid: "bob", newData: ["name": .string("A")]), data: data).isAllowed)
    #expect(!rules.evaluate(request(.create, "users/alice", uid: "alice", newData: ["admin": .bool(true)]), data: data).isAllowed)
    #expect(!rules.evaluate(request(.create, "users/alice", newData: ["name": .string("A")]), data: data).isAllowed)
}

@Test("Functions see their scope's wildcards, take let bindings, and may not recurse")
func firestoreFunctions() throws {
    let rules = try load("""
        rules_version = '2';
        function isSignedIn() { return request.auth != null; }
        service cloud.firestore {
          match /databases/{database}/documents {
            function owns(doc) {
              let owner = doc.data.owner;
              return isSignedIn() && owner == request.auth.uid;
            }
            match /notes/{noteId} {
              function isNamed(name) { return noteId == name; }
              allow get: if owns(resource) || isNamed('public');
            }
          }
        }
        """)
    let data = EmptyFirestoreRulesDataSource()
    #expect(rules.evaluate(request(.get, "notes/n1", uid: "u", resource: ["owner": .string("u")]), data: data).isAllowed)
    #expect(rules.evaluate(request(.get, "notes/public", resource: ["owner": .string("x")]), data: data).isAllowed)
    #expect(!rules.evaluate(request(.get, "notes/n2", uid: "v", resource: ["owner": .string("u")]), data: data).isAllowed)

    let recursive = FirestoreRuleset.parse(
        """
        service cloud.firestore {
          function f(x) { return g(x); }
          function g(x) { return f(x); }
          match /databases/{d}/documents { match /a/{b} { allow read: if f(1); } }
        }
        """, fileName: "r.rules")
    guard case .failure(let diagnostics) = recursive else {
        Issue.record("recursion was accepted")
        return
    }
    #expect(diagnostics.description == "r.rules:2:3: function 'f' calls itself; recursion is not allowed")
}

@Test("get, exists and getAfter read through the data source; a missing document reads as null")
func firestoreDocumentAccess() throws {
    let rules = try load("""
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /rooms/{room} {
              allow get: if get(/databases/$(database)/documents/roles/$(request.auth.uid)).data.admin == true;
              allow create: if existsAfter(/databases/$(database)/documents/logs/$(room))
                && !exists(/databases/$(database)/documents/logs/$(room));
              allow delete: if get(/databases/$(database)/documents/nothing/here).data.x == 1;
            }
          }
        }
        """)
    var data = MemoryFirestoreData()
    data.before["roles/alice"] = ["admin": .bool(true)]
    data.after["logs/r1"] = [:]
    #expect(rules.evaluate(request(.get, "rooms/r1", uid: "alice", resource: [:]), data: data).isAllowed)
    #expect(!rules.evaluate(request(.get, "rooms/r1", uid: "bob", resource: [:]), data: data).isAllowed)
    #expect(rules.evaluate(request(.create, "rooms/r1", newData: [:]), data: data).isAllowed)
    #expect(!rules.evaluate(request(.create, "rooms/r2", newData: [:]), data: data).isAllowed)
    #expect(rules.evaluate(request(.delete, "rooms/r1"), data: data).message == "Null value error. for 'delete' @ L8")
}

@Test("More than 10 distinct document reads in one request deny it")
func firestoreAccessCallLimit() throws {
    let calls = (0..<11).map { "exists(/databases/$(database)/documents/c/d\($0))" }.joined(separator: " || ")
    let rules = try load("""
        service cloud.firestore { match /databases/{database}/documents {
          match /x/{id} { allow get: if \(calls) || true; }
          match /y/{id} { allow get: if exists(/databases/$(database)/documents/c/d) || exists(/databases/$(database)/documents/c/d) || true; }
        } }
        """)
    let data = EmptyFirestoreRulesDataSource()
    let decision = rules.evaluate(request(.get, "x/1"), data: data)
    #expect(!decision.isAllowed)
    #expect(decision.message.contains("document access calls"))
    #expect(rules.evaluate(request(.get, "y/1"), data: data).isAllowed)
}

@Test("List queries are checked against their constraints, not their results")
func firestoreListQueries() throws {
    let rules = try load("""
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /posts/{post} {
              allow list: if resource.data.published == true || request.auth.uid == resource.data.author;
            }
            match /scores/{id} {
              allow list: if resource.data.points > 5 && request.query.limit <= 10;
            }
          }
        }
        """)
    let data = EmptyFirestoreRulesDataSource()
    func list(_ path: String, _ query: RulesQuery, uid: String? = nil) -> Bool {
        rules.evaluate(request(.list, path, uid: uid, query: query), data: data).isAllowed
    }
    #expect(list("posts", RulesQuery(filters: [RulesQueryFilter(field: "published", op: .equal, value: .bool(true))])))
    #expect(list("posts", RulesQuery(filters: [RulesQueryFilter(field: "author", op: .equal, value: .string("u"))]), uid: "u"))
    #expect(!list("posts", RulesQuery(filters: [RulesQueryFilter(field: "author", op: .equal, value: .string("v"))]), uid: "u"))
    #expect(!list("posts", RulesQuery()))
    #expect(rules.evaluate(request(.list, "posts", query: RulesQuery()), data: data).message == "Null value error. for 'list' @ L5")
    let both = RulesQueryFilter(field: "author", op: .in, value: .list([.string("u"), .string("v")]))
    #expect(!list("posts", RulesQuery(filters: [both]), uid: "u"))
    #expect(list("scores", RulesQuery(limit: 5, filters: [RulesQueryFilter(field: "points", op: .greaterOrEqual, value: .int(6))])))
    #expect(!list("scores", RulesQuery(limit: 5, filters: [RulesQueryFilter(field: "points", op: .greaterOrEqual, value: .int(5))])))
    #expect(!list("scores", RulesQuery(limit: 50, filters: [RulesQueryFilter(field: "points", op: .greater, value: .int(5))])))
    #expect(list("scores", RulesQuery(limit: 10, filters: [RulesQueryFilter(field: "points", op: .greater, value: .int(5))])))
}

@Test("request.query exists only on list requests; resource is null for missing documents")
func firestoreRequestShape() throws {
    let rules = try load("""
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /a/{id} {
              allow get: if request.query.limit == null;
              allow delete: if resource == null && request.method == 'delete' && request.path == /databases/(default)/documents/a/$(id);
              allow update: if request.resource.data.diff(resource.data).affectedKeys().hasOnly(['n'])
                && resource.id == id && resource.__name__ == /databases/(default)/documents/a/$(id)
                && request.time == timestamp.value(1700000000000);
            }
          }
        }
        """)
    let data = EmptyFirestoreRulesDataSource()
    #expect(rules.evaluate(request(.get, "a/1", resource: [:]), data: data).message == "Property query is undefined on object. for 'get' @ L5")
    #expect(rules.evaluate(request(.delete, "a/1"), data: data).isAllowed)
    #expect(rules.evaluate(request(.update, "a/1", resource: ["n": .int(1), "m": .int(1)], newData: ["n": .int(2), "m": .int(1)]), data: data).isAllowed)
    #expect(!rules.evaluate(request(.update, "a/1", resource: ["n": .int(1), "m": .int(1)], newData: ["n": .int(2), "m": .int(2)]), data: data).isAllowed)
}

@Test("A batch passes only when every write does; getAfter sees the whole batch")
func firestoreBatch() throws {
    let rules = try load("""
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /orders/{id} {
              allow create: if getAfter(/databases/$(database)/documents/totals/t).data.count == 2;
            }
            match /totals/{id} { allow update: if true; }
          }
        }
        """)
    var data = MemoryFirestoreData()
    data.after["totals/t"] = ["count": .int(2)]
    let batch = [request(.create, "orders/o1", newData: [:]), request(.update, "totals/t", resource: [:], newData: ["count": .int(2)])]
    #expect(rules.evaluateBatch(batch, data: data).isAllowed)
    data.after["totals/t"] = ["count": .int(1)]
    #expect(!rules.evaluateBatch(batch, data: data).isAllowed)

    // 20 distinct document reads per batch, 10 per write.
    let reader = try load("""
        rules_version = '2';
        service cloud.firestore { match /databases/{database}/documents {
          match /w/{id} {
            allow create: if \((0..<7).map { "!exists(/databases/$(database)/documents/x/$(id + '\($0)'))" }.joined(separator: " && "));
          }
        } }
        """)
    let three = (1...3).map { request(.create, "w/d\($0)", newData: [:]) }
    #expect(reader.evaluateBatch(Array(three.prefix(2)), data: data).isAllowed)
    let overLimit = reader.evaluateBatch(three, data: data)
    #expect(!overLimit.isAllowed)
    #expect(overLimit.message.contains("20 document access calls"))
}

private let grammarCases: [(source: String, diagnostic: String?)] = [
    ("service cloud.firestore { match /databases/{d}/documents { allow read: if true; } }", nil),
    ("rules_version = '2'; service cloud.firestore { match /databases/{d}/documents { match /a/{b} { allow read, write; } } }", nil),
    ("// comment\nservice cloud.firestore { /* block */ match /databases/{d}/documents { match /a/b { allow get: if 1 in [1] } } }", nil),
    ("service cloud.firestore {\n  match /databases/{d}/documents {\n    allow read: if true\n  }", "f.rules:4:4: expected '}' to close the service block, found end of file"),
    ("service cloud.firestore { match /databases/{d}/documents { allow reed: if true; } }", "f.rules:1:66: unknown method 'reed'; expected read, write, get, list, create, update or delete"),
    ("service cloud.storage { }", "f.rules:1:9: unknown service 'cloud.storage'; expected cloud.firestore"),
    ("rules_version = '3'; service cloud.firestore {}", "f.rules:1:17: unsupported rules_version '3'; use '1' or '2'"),
    ("service cloud.firestore {\n match /a/{b} {\n  allow read: if 'a\\.b';\n }\n}", "f.rules:3:20: invalid escape sequence '\\.' in string literal"),
    ("service cloud.firestore { match /a/{b} { allow read: if a & b; } }", "f.rules:1:59: unexpected '&'; did you mean '&&'?"),
    ("service cloud.firestore { function f() { let x = 1; return x; } }", "f.rules:1:42: 'let' bindings need rules_version = '2'"),
    ("service cloud.firestore { match /a/{b}/{b} { } }", "f.rules:1:40: duplicate path variable 'b'"),
    ("service cloud.firestore { match /a/{b} { allow read: if (1 + ; } }", "f.rules:1:62: expected an expression, found ';'"),
    ("service cloud.firestore { match a { } }", "f.rules:1:33: expected a path pattern starting with '/' after 'match'"),
    ("rules_version = '2'; service cloud.firestore { function f(a,b,c,d,e,f,g,h) { return true; } }", "f.rules:1:48: function 'f' takes more than 7 arguments"),
    ("service cloud.firestore { match /a/{b} { allow read: if 1 is widget; } }", "f.rules:1:62: unknown type 'widget' after 'is'"),
]

@Test("Grammar: accepted files and 1-based diagnostics", arguments: grammarCases)
func firestoreGrammar(_ source: String, _ diagnostic: String?) {
    switch FirestoreRuleset.parse(source, fileName: "f.rules") {
    case .success:
        #expect(diagnostic == nil, "accepted: \(source)")
    case .failure(let diagnostics):
        #expect(diagnostics.description == diagnostic ?? "(accepted)")
    }
}

@Test("Firestore: with no rules file the emulator default allows everything")
func firestoreDefaultRules() {
    let rules = FirestoreRuleset.defaultRules()
    #expect(rules.evaluate(request(.delete, "any/deep/doc/x"), data: EmptyFirestoreRulesDataSource()).isAllowed)
    #expect(rules.evaluate(request(.list, "any", query: RulesQuery()), data: EmptyFirestoreRulesDataSource()).isAllowed)
}

extension Result {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}

@Test("Oversized expressions are load errors, not stack overflows")
func firestoreExpressionSizeLimit() {
    let chain = Array(repeating: "true", count: 3000).joined(separator: " && ")
    let result = FirestoreRuleset.parse("service cloud.firestore { match /a/{b} { allow read: if \(chain); } }", fileName: "big.rules")
    guard case .failure(let diagnostics) = result else {
        Issue.record("accepted a 3000-operand expression")
        return
    }
    #expect(diagnostics.diagnostics.first?.id == "limit.expression-size")
    let database = DatabaseRuleset.parse(#"{"rules": {".read": "\#(chain)"}}"#, fileName: "big.json")
    #expect(database.isFailure)
}

@Test("Exponential function fan-out hits the expression budget and denies")
func firestoreExpressionBudget() throws {
    var functions = "function f0(x) { return x == 1; }\n"
    for i in 1...16 { functions += "function f\(i)(x) { return f\(i - 1)(x) || f\(i - 1)(x); }\n" }
    let rules = try load("""
        service cloud.firestore {
          \(functions)
          match /databases/{database}/documents { match /a/{b} { allow get: if f16(2); } }
        }
        """)
    let decision = rules.evaluate(request(.get, "a/b"), data: EmptyFirestoreRulesDataSource())
    #expect(!decision.isAllowed)
    #expect(decision.message.hasPrefix("Exceeded maximum number of expressions evaluated."))
}

@Test("Functions at global and service scope: the inner declaration shadows the outer")
func firestoreFunctionShadowing() throws {
    let rules = try load("""
        function allowed() { return false; }
        service cloud.firestore {
          function allowed() { return true; }
          match /databases/{database}/documents {
            match /a/{id} { allow get: if allowed(); }
            match /b/{id} {
              function allowed() { return id == 'ok'; }
              allow get: if allowed();
            }
          }
        }
        """)
    let data = EmptyFirestoreRulesDataSource()
    #expect(rules.evaluate(request(.get, "a/x"), data: data).isAllowed)
    #expect(rules.evaluate(request(.get, "b/ok"), data: data).isAllowed)
    #expect(!rules.evaluate(request(.get, "b/no"), data: data).isAllowed)
}
