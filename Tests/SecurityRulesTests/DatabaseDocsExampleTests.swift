import EmulatorSupport
import Testing

@testable import SecurityRules

/// Patterns from the Realtime Database rules guides (core syntax, conditions), each as
/// rules + one write + the expected verdict.
struct DatabaseWriteExample: Sendable, CustomTestStringConvertible {
    var rules: String
    var path: String
    var stored: String
    /// nil: delete.
    var newValue: String?
    var uid: String?
    var allowed: Bool

    var testDescription: String { "\(path) ← \(newValue ?? "delete") as \(uid ?? "nobody"): \(allowed)" }
}

private let ownerOnly = #"{"rules": {"users": {"$user_id": {".write": "$user_id === auth.uid"}}}}"#
private let createOrDeleteOnly = #"{"rules": {"items": {"$id": {".write": "!data.exists() || !newData.exists()"}}}}"#
private let deleteOnly = #"{"rules": {"items": {"$id": {".write": "data.exists() && !newData.exists()"}}}}"#
private let message = """
    {"rules": {"messages": {"$message": {
      ".write": true,
      ".validate": "newData.hasChildren(['name', 'text', 'timestamp'])",
      "name": { ".validate": "newData.isString() && newData.val().length < 20" },
      "text": { ".validate": "newData.isString() && newData.val().length < 100" },
      "timestamp": { ".validate": "newData.isNumber() && newData.val() <= now" },
      "$other": { ".validate": false }
    }}}}
    """
private let regexRule = #"{"rules": {"email": {".write": true, ".validate": "newData.isString() && newData.val().matches(/^[A-Z0-9._%+-]+@[A-Z0-9.-]+\\.[A-Z]{2,4}$/i)"}}}"#

private let examples: [DatabaseWriteExample] = [
    DatabaseWriteExample(rules: ownerOnly, path: "users/alice", stored: "{}", newValue: #"{"name": "A"}"#, uid: "alice", allowed: true),
    DatabaseWriteExample(rules: ownerOnly, path: "users/alice/name", stored: "{}", newValue: #""A""#, uid: "alice", allowed: true),
    DatabaseWriteExample(rules: ownerOnly, path: "users/alice", stored: "{}", newValue: #"{"name": "B"}"#, uid: "bob", allowed: false),
    DatabaseWriteExample(rules: ownerOnly, path: "users/alice", stored: "{}", newValue: #"{"name": "B"}"#, uid: nil, allowed: false),
    DatabaseWriteExample(rules: ownerOnly, path: "users", stored: "{}", newValue: #"{"alice": 1}"#, uid: "alice", allowed: false),
    DatabaseWriteExample(rules: createOrDeleteOnly, path: "items/a", stored: "{}", newValue: "1", uid: nil, allowed: true),
    DatabaseWriteExample(rules: createOrDeleteOnly, path: "items/a", stored: #"{"items": {"a": 1}}"#, newValue: "2", uid: nil, allowed: false),
    DatabaseWriteExample(rules: createOrDeleteOnly, path: "items/a", stored: #"{"items": {"a": 1}}"#, newValue: nil, uid: nil, allowed: true),
    DatabaseWriteExample(rules: deleteOnly, path: "items/a", stored: #"{"items": {"a": 1}}"#, newValue: nil, uid: nil, allowed: true),
    DatabaseWriteExample(rules: deleteOnly, path: "items/a", stored: "{}", newValue: "1", uid: nil, allowed: false),
    DatabaseWriteExample(rules: deleteOnly, path: "items/a", stored: "{}", newValue: #"{"x": null}"#, uid: nil, allowed: false),
    DatabaseWriteExample(rules: message, path: "messages/m1", stored: "{}", newValue: #"{"name": "n", "text": "t", "timestamp": 5}"#, uid: nil, allowed: true),
    DatabaseWriteExample(rules: message, path: "messages/m1", stored: "{}", newValue: #"{"name": "n", "text": "t"}"#, uid: nil, allowed: false),
    DatabaseWriteExample(rules: message, path: "messages/m1", stored: "{}", newValue: #"{"name": "n", "text": "t", "timestamp": 5000}"#, uid: nil, allowed: false),
    DatabaseWriteExample(rules: message, path: "messages/m1", stored: "{}", newValue: #"{"name": "n", "text": "t", "timestamp": 5, "x": 1}"#, uid: nil, allowed: false),
    DatabaseWriteExample(rules: message, path: "messages/m1", stored: "{}", newValue: #"{"name": "n", "text": "t", "timestamp": 5, "x": null}"#, uid: nil, allowed: true),
    DatabaseWriteExample(rules: message, path: "messages/m1/text", stored: #"{"messages": {"m1": {"name": "n", "text": "t", "timestamp": 5}}}"#, newValue: #""u""#, uid: nil, allowed: true),
    DatabaseWriteExample(rules: message, path: "messages/m1/text", stored: #"{"messages": {"m1": {"name": "n", "text": "t", "timestamp": 5}}}"#, newValue: nil, uid: nil, allowed: false),
    DatabaseWriteExample(rules: message, path: "messages/m1", stored: #"{"messages": {"m1": {"name": "n", "text": "t", "timestamp": 5}}}"#, newValue: nil, uid: nil, allowed: true),
    DatabaseWriteExample(rules: regexRule, path: "email", stored: "{}", newValue: #""Ada@Example.org""#, uid: nil, allowed: true),
    DatabaseWriteExample(rules: regexRule, path: "email", stored: "{}", newValue: #""not-an-email""#, uid: nil, allowed: false),
]

@Test("Documented Realtime Database rule patterns", arguments: examples)
func databaseDocumentedPattern(_ example: DatabaseWriteExample) throws {
    let rules = try DatabaseRuleset.parse(example.rules, fileName: "database.rules.json").get()
    func json(_ text: String) -> JSONValue? {
        guard case .success(let value) = LenientJSONParser.parse(text) else { return nil }
        return value.jsonValue
    }
    let decision = rules.canWrite(
        path: example.path.split(separator: "/").map(String.init), newValue: example.newValue.flatMap(json),
        auth: example.uid.map { AuthContext(uid: $0) }, now: 1000, data: DatabaseTreeSource(json(example.stored)))
    #expect(decision.isAllowed == example.allowed, "\(decision.message)")
}
