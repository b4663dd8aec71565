import EmulatorHTTP
import EmulatorSupport
import Testing

/// Each bad request gets the official status and a message, and writes nothing.
@Suite struct BadInputTests {
    static let root = "/v1/projects/demo/databases/(default)/documents"
    static let doc = "projects/demo/databases/(default)/documents"

    static func commit(_ writes: String) -> String { #"{"writes":[\#(writes)]}"# }
    static func update(_ path: String, _ fields: String = "{}") -> String {
        #"{"update":{"name":"\#(doc)/\#(path)","fields":\#(fields)}}"#
    }
    static func query(_ q: String) -> String { #"{"structuredQuery":\#(q)}"# }
    static let bigString = String(repeating: "x", count: 1_048_600)
    static let deep: String = {
        var v = #"{"integerValue":"1"}"#
        for _ in 0..<21 { v = #"{"mapValue":{"fields":{"a":\#(v)}}}"# }
        return v
    }()
    static let tooMany = (0..<501).map { update("bulk/d\($0)") }.joined(separator: ",")

    /// (case, method, path, body, status, error status, message fragment)
    static let cases: [(String, HTTPMethod, String, String, Int, String, String)] = [
        ("bad JSON", .post, root + ":commit", #"{"writes":["#, 400, "INVALID_ARGUMENT", "Invalid JSON payload received"),
        ("odd segment count in a write", .post, root + ":commit", commit(update("c")), 400, "INVALID_ARGUMENT", "odd number of segments"),
        ("empty segment", .post, root + ":commit", commit(update("c//d")), 400, "INVALID_ARGUMENT", "must not be empty"),
        ("reserved id", .post, root + ":commit", commit(update("c/__x__")), 400, "INVALID_ARGUMENT", "reserved"),
        ("reserved field name", .post, root + ":commit", commit(update("c/d", #"{"__f__":{"integerValue":"1"}}"#)), 400, "INVALID_ARGUMENT", "reserved"),
        ("empty segment in URL", .get, root + "/c//d", "", 400, "INVALID_ARGUMENT", "must not be empty"),
        ("reserved id in URL", .patch, root + "/c/__d__", #"{"fields":{}}"#, 400, "INVALID_ARGUMENT", "reserved"),
        ("document over 1 MiB", .post, root + ":commit", commit(update("c/d", #"{"s":{"stringValue":"\#(bigString)"}}"#)), 400, "INVALID_ARGUMENT", "exceeds the maximum allowed size"),
        ("too deeply nested", .post, root + ":commit", commit(update("c/d", #"{"m":\#(deep)}"#)), 400, "INVALID_ARGUMENT", "maximum allowed nesting depth"),
        ("more than 500 writes", .post, root + ":commit", commit(tooMany), 400, "INVALID_ARGUMENT", "maximum 500 writes allowed per request"),
        ("atomic: second write fails", .post, root + ":commit", commit(update("c/ok") + "," + #"{"update":{"name":"\#(doc)/c/x","fields":{}},"currentDocument":{"exists":true}}"#), 404, "NOT_FOUND", "No document to update: \(doc)/c/x"),
        ("not-in with !=", .post, root + ":runQuery", query(#"{"from":[{"collectionId":"c"}],"where":{"compositeFilter":{"op":"AND","filters":[{"fieldFilter":{"field":{"fieldPath":"a"},"op":"NOT_IN","value":{"arrayValue":{"values":[{"integerValue":"1"}]}}}},{"fieldFilter":{"field":{"fieldPath":"b"},"op":"NOT_EQUAL","value":{"integerValue":"1"}}}]}}}"#), 400, "INVALID_ARGUMENT", "NOT_IN"),
        ("in without array", .post, root + ":runQuery", query(#"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"IN","value":{"integerValue":"1"}}}}"#), 400, "INVALID_ARGUMENT", "array"),
        ("unknown operator", .post, root + ":runQuery", query(#"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"LIKE","value":{"integerValue":"1"}}}}"#), 400, "INVALID_ARGUMENT", "operator"),
        ("too many cursor values", .post, root + ":runQuery", query(#"{"from":[{"collectionId":"c"}],"startAt":{"values":[{"integerValue":"1"},{"integerValue":"2"}]}}"#), 400, "INVALID_ARGUMENT", "Too many cursor values"),
        ("cursor name not a reference", .post, root + ":runQuery", query(#"{"from":[{"collectionId":"c"}],"startAt":{"values":[{"stringValue":"d"}]}}"#), 400, "INVALID_ARGUMENT", "__name__"),
        ("negative limit", .post, root + ":runQuery", query(#"{"from":[{"collectionId":"c"}],"limit":-1}"#), 400, "INVALID_ARGUMENT", "limit"),
        ("bad value type", .post, root + ":commit", commit(update("c/d", #"{"a":{"integerValue":"x1"}}"#)), 400, "INVALID_ARGUMENT", "Invalid value at 'writes[0].update.fields[0].value.integer_value' (TYPE_INT64), \"x1\""),
        ("unknown transaction", .post, root + ":commit", #"{"writes":[],"transaction":"bm9wZQ=="}"#, 400, "INVALID_ARGUMENT", "The referenced transaction has expired or is no longer valid."),
        ("malformed database path", .post, "/v1/projects/demo/documents:commit", "{}", 400, "INVALID_ARGUMENT", "Invalid resource name"),
    ]

    @Test(arguments: cases)
    func rejected(_ c: (String, HTTPMethod, String, String, Int, String, String)) {
        let client = FirestoreTestClient()
        let r = client.send(c.1, c.2, c.3.isEmpty ? nil : c.3)
        #expect(r.status == c.4, "\(c.0): \(r.text.prefix(300))")
        #expect(r.json.errorStatus == c.5, "\(c.0)")
        #expect(r.json.errorMessage?.contains(c.6) == true, "\(c.0): \(r.json.errorMessage ?? r.text)")
        #expect(r.json[member: "error"]?[member: "code"]?.int == Int64(c.4))
        let stored = client.post(":runQuery", #"{"structuredQuery":{"from":[{"allDescendants":true}]}}"#)
        #expect(stored.json.array?.count == 1 && stored.json.array?.first?[member: "document"] == nil, "\(c.0) wrote something")
    }
}
