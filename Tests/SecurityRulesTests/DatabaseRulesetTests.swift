import EmulatorSupport
import Testing

@testable import SecurityRules

private func load(_ text: String) throws -> DatabaseRuleset {
    try DatabaseRuleset.parse(text, fileName: "database.rules.json").get()
}

private func json(_ text: String) -> JSONValue? {
    guard case .success(let value) = LenientJSONParser.parse(text) else { return nil }
    return value.jsonValue
}

private func path(_ text: String) -> [String] { text.split(separator: "/").map(String.init) }

private let alice = AuthContext(uid: "alice")

@Test("Reads cascade: a grant above cannot be revoked below, and rules are not filters")
func databaseReadCascade() throws {
    let rules = try load("""
        {
          // comments are allowed
          "rules": {
            "public": { ".read": true, "secret": { ".read": false } },
            "users": { "$uid": { ".read": "auth != null && auth.uid == $uid" } }
          }
        }
        """)
    let data = DatabaseTreeSource(nil)
    #expect(rules.canRead(path: path("public/secret"), auth: nil, now: 0, data: data).isAllowed)
    #expect(rules.canRead(path: path("users/alice/profile"), auth: alice, now: 0, data: data).isAllowed)
    #expect(!rules.canRead(path: path("users/bob"), auth: alice, now: 0, data: data).isAllowed)
    #expect(!rules.canRead(path: path("users"), auth: alice, now: 0, data: data).isAllowed)
    let denied = rules.canRead(path: path("users/bob"), auth: nil, now: 0, data: data)
    #expect(denied.message == "Permission denied: false for '.read' @ /users/$uid L5: auth != null && auth.uid == $uid")
}

@Test("Writes cascade, and .validate runs on every written node and its ancestors, never on deletes")
func databaseWriteAndValidate() throws {
    let rules = try load("""
        {"rules": {
          "p1": {
            ".write": true,
            ".validate": "newData.hasChildren(['name'])",
            "sub": { "$k": { ".validate": "newData.isNumber() && newData.val() < 10" } },
            "name": { ".validate": "newData.isString()" },
            "$other": { ".validate": false }
          }
        }}
        """)
    let stored = DatabaseTreeSource(json(#"{"p1": {"name": "n"}}"#))
    func write(_ p: String, _ value: String?) -> Bool {
        rules.canWrite(path: path(p), newValue: value.flatMap(json), auth: nil, now: 0, data: stored).isAllowed
    }
    #expect(write("p1/sub/k1", "5"))
    #expect(!write("p1/sub/k1", "50"))
    #expect(!write("p1/sub/k1", "\"x\""))
    #expect(!write("p1/extra", "1"))
    #expect(!write("p1", #"{"sub": {"k": 1}}"#))
    #expect(write("p1", #"{"name": "x", "sub": {"k": 1}}"#))
    #expect(!write("p1/name", "1"))
    #expect(write("p1/sub/k1", nil))
    let emptyStore = DatabaseTreeSource(nil)
    // The merged /p1 lacks 'name': the ancestor's .validate denies the deep write.
    #expect(!rules.canWrite(path: path("p1/sub/k1"), newValue: .int(1), auth: nil, now: 0, data: emptyStore).isAllowed)
}

@Test("A named child takes precedence over a $wildcard sibling")
func databaseNamedChildWins() throws {
    let rules = try load("""
        {"rules": {"items": {
          "special": { ".write": true },
          "$id": { ".write": "$id != 'special'" , ".validate": "$id.length < 5" }
        }}}
        """)
    let data = DatabaseTreeSource(nil)
    #expect(rules.canWrite(path: path("items/special"), newValue: .int(1), auth: nil, now: 0, data: data).isAllowed)
    #expect(rules.canWrite(path: path("items/abc"), newValue: .int(1), auth: nil, now: 0, data: data).isAllowed)
    #expect(!rules.canWrite(path: path("items/toolong"), newValue: .int(1), auth: nil, now: 0, data: data).isAllowed)
}

@Test("Multi-path updates merge first, check every path, and are all-or-nothing")
func databaseMultiPathUpdate() throws {
    let rules = try load("""
        {"rules": {
          "a": { ".write": true },
          "b": { ".write": "newData.val() == root.child('a').val() || newData.parent().child('a').val() == newData.val()" },
          "c": { ".write": false }
        }}
        """)
    let data = DatabaseTreeSource(json(#"{"a": 1}"#))
    #expect(rules.canUpdate(multiPath: [(["a"], .int(2)), (["b"], .int(2))], auth: nil, now: 0, data: data).isAllowed)
    #expect(!rules.canUpdate(multiPath: [(["a"], .int(2)), (["c"], .int(2))], auth: nil, now: 0, data: data).isAllowed)
    #expect(!rules.canUpdate(multiPath: [(["a"], .int(2)), (["b"], .int(3))], auth: nil, now: 0, data: data).isAllowed)
}

@Test("data, newData, root, now and auth.token in write rules")
func databaseWriteVariables() throws {
    let rules = try load("""
        {"rules": {"posts": {"$id": {
          ".write": "(!data.exists() && newData.child('owner').val() == auth.uid) || data.child('owner').val() == auth.uid",
          ".validate": "newData.child('at').val() <= now && auth.token.email_verified == true && root.child('open').val() == true"
        }}}}
        """)
    let verified = AuthContext(uid: "alice", token: .object([JSONMember("email_verified", .bool(true))]))
    let data = DatabaseTreeSource(json(#"{"open": true, "posts": {"p2": {"owner": "bob", "at": 1}}}"#))
    #expect(rules.canWrite(path: path("posts/p1"), newValue: json(#"{"owner": "alice", "at": 5}"#), auth: verified, now: 10, data: data).isAllowed)
    #expect(!rules.canWrite(path: path("posts/p1"), newValue: json(#"{"owner": "alice", "at": 50}"#), auth: verified, now: 10, data: data).isAllowed)
    #expect(!rules.canWrite(path: path("posts/p2"), newValue: json(#"{"owner": "alice", "at": 5}"#), auth: verified, now: 10, data: data).isAllowed)
    #expect(!rules.canWrite(path: path("posts/p1"), newValue: json(#"{"owner": "alice", "at": 5}"#), auth: alice, now: 10, data: data).isAllowed)
}

@Test("getPriority() on data, newData and root reads export-form priorities; val() hides them")
func databasePriorityRules() throws {
    let rules = try load("""
        {"rules": {
          "items": {"$id": {
            ".read": "data.getPriority() == 1 || root.child('items').child($id).getPriority() == 'open'",
            ".write": "newData.getPriority() != null && newData.getPriority() >= data.getPriority()",
            ".validate": "newData.val() == 'x' || newData.child('n').val() == 2"
          }}
        }}
        """)
    let data = DatabaseTreeSource(json(#"""
        {"items": {"a": {".value": "x", ".priority": 1}, "b": {"n": 2, ".priority": "open"}, "c": "x"}}
        """#))
    #expect(rules.canRead(path: path("items/a"), auth: nil, now: 0, data: data).isAllowed)
    #expect(rules.canRead(path: path("items/b"), auth: nil, now: 0, data: data).isAllowed)
    #expect(!rules.canRead(path: path("items/c"), auth: nil, now: 0, data: data).isAllowed)
    // newData carries the written priority; a leaf with a priority is {".value", ".priority"}.
    #expect(rules.canWrite(path: path("items/a"), newValue: json(#"{".value": "x", ".priority": 3}"#), auth: nil, now: 0, data: data).isAllowed)
    #expect(!rules.canWrite(path: path("items/a"), newValue: json(#""x""#), auth: nil, now: 0, data: data).isAllowed)
    #expect(!rules.canWrite(path: path("items/a"), newValue: json(#"{".value": "x", ".priority": 0}"#), auth: nil, now: 0, data: data).isAllowed)
    // A write below a prioritized node keeps the priority in newData (and val() has no .priority).
    #expect(rules.canWrite(path: path("items/b/n"), newValue: .int(2), auth: nil, now: 0, data: data).isAllowed)
    // A lone priority left after deleting the last child is no data at all.
    #expect(!rules.canWrite(path: path("items/b/n"), newValue: nil, auth: nil, now: 0, data: data).isAllowed)
}

@Test("query.* is visible to .read rules")
func databaseQueryRules() throws {
    let rules = try load("""
        {"rules": {"msgs": {".read": "query.orderByChild == 'ts' && query.limitToLast <= 50", ".indexOn": ["ts"]}}}
        """)
    let data = DatabaseTreeSource(nil)
    #expect(rules.canRead(path: ["msgs"], auth: nil, now: 0, data: data, query: DatabaseRulesQuery(orderBy: .child("ts"), limitToLast: 20)).isAllowed)
    #expect(!rules.canRead(path: ["msgs"], auth: nil, now: 0, data: data, query: DatabaseRulesQuery(orderBy: .child("ts"), limitToLast: 100)).isAllowed)
    #expect(!rules.canRead(path: ["msgs"], auth: nil, now: 0, data: data).isAllowed)
    #expect(rules.indexOn(path: ["msgs"]) == ["ts"])
}

private let fileCases: [(String, String?)] = [
    (#"{"rules": {".read": true}}"#, nil),
    ("{\n  \"rules\": {\n    \"a\": { \".read\": \"auth.uid = 1\" }\n  }\n}", "f.json:3:31: .read: unexpected character '='"),
    ("{\n  \"rules\": {\n    \"a\": { \".read\": \"7\" }\n  }\n}", "f.json:3:22: .read: rule does not evaluate to a boolean (found number)"),
    (#"{"rules": {"$a": {}, "$b": {}}}"#, "f.json:1:22: only one wildcard child is allowed per location ('$b')"),
    (#"{"rules": {"$a": {"$a": {}}}}"#, "f.json:1:19: wildcard '$a' is already used on this path"),
    (#"{"rules": {".reed": true}}"#, "f.json:1:12: unknown rule type '.reed'"),
    (#"{"rules": {"a": {".read": "$b == 'x'"}}}"#, "f.json:1:28: .read: unknown variable '$b'"),
    (#"{"rules": {"a": {".read": "newData.exists()"}}}"#, "f.json:1:28: .read: newData is not available in .read rules"),
    (#"{"rulez": {}}"#, "f.json:1:2: unexpected top-level key 'rulez'; expected only 'rules'"),
    (#"{"rules": {"a": {".indexOn": 5}}}"#, "f.json:1:30: .indexOn must be a string or an array of strings"),
    ("{\"rules\": {\n \"a\": 1,\n}}", "f.json:2:7: expected an object of rules"),
    ("{\"rules\": { /* open", "f.json:1:13: unterminated comment"),
]

@Test("Rules files: comments accepted, 1-based diagnostics", arguments: fileCases)
func databaseRulesFile(_ text: String, _ expected: String?) {
    switch DatabaseRuleset.parse(text, fileName: "f.json") {
    case .success: #expect(expected == nil, "accepted: \(text)")
    case .failure(let diagnostics): #expect(diagnostics.description == expected ?? "(accepted)")
    }
}

@Test("Realtime Database: with no rules file the emulator default allows everything")
func databaseDefaultRules() {
    let rules = DatabaseRuleset.defaultRules()
    #expect(rules.canRead(path: ["x"], auth: nil, now: 0, data: DatabaseTreeSource(nil)).isAllowed)
    #expect(rules.canWrite(path: ["x"], newValue: .int(1), auth: nil, now: 0, data: DatabaseTreeSource(nil)).isAllowed)
    #expect(throws: Never.self) { try DatabaseRuleset.parse(DatabaseRuleset.defaultSource, fileName: "d").get() }
}
