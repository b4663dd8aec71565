import EmulatorHTTP
import EmulatorSupport
import Testing

/// Commit bodies of the common shape take a one-pass decoder; everything else takes the general
/// JSON decoder. The two must give the same answer for every body: the same stored document, or
/// the same error. An escaped `\/` in the document name sends a body down the general path.
@Suite struct FastWriteDecoderTests {
    /// `fields` objects, valid and invalid.
    static let fields: [String] = [
        #"{"s":{"stringValue":"héllo ✓"},"i":{"integerValue":"-42"},"n":{"integerValue":7}}"#,
        #"{"d":{"doubleValue":1.5},"e":{"doubleValue":1e2},"z":{"doubleValue":-0},"nan":{"doubleValue":"NaN"},"inf":{"doubleValue":"-Infinity"},"di":{"doubleValue":3}}"#,
        #"{"b":{"booleanValue":true},"f":{"booleanValue":false},"nul":{"nullValue":null}}"#,
        #"{"t":{"timestampValue":"2024-01-02T03:04:05.123456Z"},"t2":{"timestampValue":"2024-01-02T03:04:05+01:00"}}"#,
        #"{"m":{"mapValue":{"fields":{"x":{"arrayValue":{"values":[{"integerValue":"1"},{"mapValue":{}}]}}}}},"a":{"arrayValue":{}}}"#,
        #"{"b":{"integerValue":"2"},"a":{"integerValue":"1"},"b":{"integerValue":"3"}}"#,
        #"{"é":{"stringValue":"x"},"e\u0301":{"stringValue":"y"}}"#,
        #"{ "sp" : { "stringValue" : "a b" } , "q" : {"integerValue" : "1"} }"#,
        #"{"big":{"integerValue":"9223372036854775807"},"neg":{"integerValue":-9223372036854775808}}"#,
        #"{"x":{"integerValue":"9223372036854775808"}}"#,
        #"{"ü":{"integerValue":"+5"},"a":{"integerValue":"-0"},"é":{"integerValue":"007"},"A":{"integerValue":"-9223372036854775808"},"ab":{"integerValue":"1"},"a b":{"integerValue":"2"}}"#,
        #"{"x":{"integerValue":""}}"#,
        #"{"x":{"integerValue":" 1"}}"#,
        #"{"x":{"integerValue":1.5}}"#,
        #"{"x":{"doubleValue":1e400}}"#,
        #"{"x":{"booleanValue":"true"}}"#,
        #"{"x":{"stringValue":"a","integerValue":"1"}}"#,
        #"{"x":{"timestampValue":"yesterday"}}"#,
        #"{"x":{"fooValue":1}}"#,
        #"{"__x__":{"integerValue":"1"}}"#,
        #"{"x":{"nullValue":"NULL_VALUE"},"y":{"bytesValue":"3q2+7w=="},"g":{"geoPointValue":{"latitude":1,"longitude":2}}}"#,
    ]

    static let doc = "projects/demo/databases/(default)/documents"

    func commit(_ client: FirestoreTestClient, name: String, fields: String, extra: String = "") -> FirestoreTestClient.Response {
        client.post(":commit", #"{"writes":[{"update":{"name":"\#(name)","fields":\#(fields)}\#(extra)}]}"#)
    }

    @Test(arguments: fields)
    func fastAndGeneralPathsAgree(_ fields: String) {
        let client = FirestoreTestClient()
        let fast = commit(client, name: "\(Self.doc)/c/fast", fields: fields)
        let general = commit(client, name: "\(Self.doc)/c\\/general", fields: fields)
        #expect(fast.status == general.status, "\(fields): \(fast.text) vs \(general.text)")
        #expect(Self.normalized(fast.json.errorMessage) == Self.normalized(general.json.errorMessage))
        guard fast.status == 200 else { return }
        let a = client.send(.get, "/v1/\(Self.doc)/c/fast").json[member: "fields"]
        let b = client.send(.get, "/v1/\(Self.doc)/c/general").json[member: "fields"]
        #expect(a != nil && a == b, "\(fields)")
    }

    /// A patch body of `fields` alone takes the one-pass decoder; with a `name` it takes the general one.
    @Test(arguments: fields)
    func patchBodiesAgreeOnBothPaths(_ fields: String) {
        let client = FirestoreTestClient()
        let fast = client.send(.patch, "/v1/\(Self.doc)/c/fast", #"{"fields":\#(fields)}"#)
        let general = client.send(.patch, "/v1/\(Self.doc)/c/general", #"{"name":"\#(Self.doc)/c/general","fields":\#(fields)}"#)
        #expect(fast.status == general.status, "\(fields): \(fast.text) vs \(general.text)")
        #expect(Self.normalized(fast.json.errorMessage) == Self.normalized(general.json.errorMessage))
        guard fast.status == 200 else { return }
        #expect(fast.json[member: "fields"] != nil && fast.json[member: "fields"] == general.json[member: "fields"], "\(fields)")
    }

    /// A create body of `fields` alone takes the one-pass decoder; an escaped member name (the
    /// same name to the JSON parser) takes the general one.
    @Test(arguments: fields)
    func createBodiesAgreeOnBothPaths(_ fields: String) {
        let client = FirestoreTestClient()
        let fast = client.send(.post, "/v1/\(Self.doc)/c?documentId=fast", #"{"fields":\#(fields)}"#)
        let general = client.send(.post, "/v1/\(Self.doc)/c?documentId=general", #"{"fi\u0065lds":\#(fields)}"#)
        #expect(fast.status == general.status, "\(fields): \(fast.text) vs \(general.text)")
        #expect(Self.normalized(fast.json.errorMessage) == Self.normalized(general.json.errorMessage))
        guard fast.status == 200 else { return }
        #expect(fast.json[member: "fields"] != nil && fast.json[member: "fields"] == general.json[member: "fields"], "\(fields)")
    }

    /// (write members after `update`, expected status)
    static let writes: [(String, Int)] = [
        (#","updateMask":{"fieldPaths":["a","b.c"]}"#, 200),
        (#","currentDocument":{"exists":false}"#, 200),
        (#","currentDocument":{"exists":true}"#, 404),
        (#","currentDocument":{}"#, 200),
        (#","updateMask":{"fieldPaths":[]},"currentDocument":{"exists":false}"#, 200),
        (#","updateMask":{"fieldPaths":["`a b`"]}"#, 200),
        (#","updateMask":{"fieldPaths":["a..b"]}"#, 400),
    ]

    @Test(arguments: writes)
    func writeMembersAgree(_ c: (String, Int)) {
        let client = FirestoreTestClient()
        let fields = #"{"a":{"integerValue":"1"}}"#
        let fast = commit(client, name: "\(Self.doc)/c/fast", fields: fields, extra: c.0)
        let general = commit(client, name: "\(Self.doc)/c\\/general", fields: fields, extra: c.0)
        #expect(fast.status == c.1, "\(c.0): \(fast.text)")
        #expect(general.status == c.1, "\(c.0): \(general.text)")
        #expect(Self.normalized(fast.json.errorMessage) == Self.normalized(general.json.errorMessage))
    }

    /// The message without the document name and the JSON position, which differ between the bodies.
    static func normalized(_ message: String?) -> String? {
        guard var m = message?.replacing("c/general", with: "c/fast") else { return nil }
        if let r = m.firstRange(of: " (line ") { m = String(m[..<r.lowerBound]) }
        return m
    }

    @Test func deletesTransactionsAndTheDatabaseMemberTakeTheFastPath() {
        let client = FirestoreTestClient()
        client.set([("c/a", "{}")])
        let t = client.post(":beginTransaction", "{}").json[member: "transaction"]?.string ?? ""
        let r = client.post(
            ":commit", #"{"database":"projects/demo/databases/(default)","writes":[{"delete":"\#(Self.doc)/c/a"}],"transaction":"\#(t)"}"#)
        #expect(r.status == 200, "\(r.text)")
        #expect(client.send(.get, "/v1/\(Self.doc)/c/a").status == 404)
        let again = client.post(":commit", #"{"writes":[],"transaction":"\#(t)"}"#)
        #expect(again.status == 400, "a finished transaction cannot commit twice")
    }
}
