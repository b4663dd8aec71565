import EmulatorHTTP
import EmulatorSupport
import Testing

/// BSON values (Firestore with MongoDB compatibility) through the REST router: written as the
/// SDKs write them, stored, read back, ordered and filtered with production's type brackets.
@Suite struct BSONQueryTests {
    static func m(_ key: String, _ inner: String) -> String { #"{"mapValue":{"fields":{"\#(key)":\#(inner)}}}"# }
    static let minKey = m("__min__", #"{"nullValue":null}"#)
    static let maxKey = m("__max__", #"{"nullValue":null}"#)
    static func int32(_ i: Int) -> String { m("__int__", #"{"integerValue":"\#(i)"}"#) }
    static func decimal(_ s: String) -> String { m("__decimal128__", #"{"stringValue":"\#(s)"}"#) }
    static func oid(_ s: String) -> String { m("__oid__", #"{"stringValue":"\#(s)"}"#) }
    static func regex(_ p: String, _ o: String) -> String {
        m("__regex__", #"{"mapValue":{"fields":{"pattern":{"stringValue":"\#(p)"},"options":{"stringValue":"\#(o)"}}}}"#)
    }
    static func ts(_ s: Int, _ i: Int) -> String {
        m("__request_timestamp__", #"{"mapValue":{"fields":{"seconds":{"integerValue":"\#(s)"},"increment":{"integerValue":"\#(i)"}}}}"#)
    }
    static func binary(_ base64: String) -> String { m("__binary__", #"{"bytesValue":"\#(base64)"}"#) }

    /// One `v` per document; ids name the expected ascending order (ties broken by id).
    static let data: [(String, String)] = [
        ("b/01min", minKey), ("b/02false", #"{"booleanValue":false}"#), ("b/03nan", decimal("NaN")),
        ("b/04neg", decimal("-inf")), ("b/05int32", int32(-5)), ("b/06zero", #"{"integerValue":"0"}"#),
        ("b/07tenth", decimal("0.1")), ("b/08double", #"{"doubleValue":0.1}"#), ("b/09ten", int32(10)),
        ("b/10ten", #"{"doubleValue":10.5}"#), ("b/11inf", decimal("Infinity")),
        ("b/12time", #"{"timestampValue":"2024-01-01T00:00:00Z"}"#), ("b/13bts", ts(1, 0)), ("b/14bts", ts(1, 2)),
        ("b/15str", #"{"stringValue":"s"}"#), ("b/16bytes", #"{"bytesValue":"/w=="}"#), ("b/17bin", binary("AWE=")),
        ("b/18bin", binary("gGE=")), ("b/19oid", oid("000000000000000000000000")), ("b/20oid", oid("507f191e810c19729de860ea")),
        ("b/21geo", #"{"geoPointValue":{"latitude":1,"longitude":2}}"#), ("b/22re", regex("a", "")), ("b/23re", regex("a", "i")),
        ("b/24arr", #"{"arrayValue":{"values":[]}}"#), ("b/25map", #"{"mapValue":{"fields":{"a":{"integerValue":"1"}}}}"#),
        ("b/26max", maxKey),
    ]

    static func client(useIndexes: Bool) -> FirestoreTestClient {
        let client = FirestoreTestClient(database: "enterprise-db-native", useIndexes: useIndexes)
        let r = client.set(data.map { ($0.0, #"{"v":\#($0.1)}"#) })
        #expect(r.status == 200, "\(r.text)")
        return client
    }

    static func orderBy(_ direction: String, where filter: String? = nil) -> String {
        let w = filter.map { #","where":\#($0)"# } ?? ""
        return #"{"from":[{"collectionId":"b"}],"orderBy":[{"field":{"fieldPath":"v"},"direction":"\#(direction)"}]\#(w)}"#
    }

    static func field(_ op: String, _ value: String) -> String {
        #"{"fieldFilter":{"field":{"fieldPath":"v"},"op":"\#(op)","value":\#(value)}}"#
    }

    @Test("orderBy sorts across and within the BSON types", arguments: [true, false])
    func ordering(useIndexes: Bool) {
        let client = Self.client(useIndexes: useIndexes)
        let ids = Self.data.map { String($0.0.dropFirst(2)) }
        #expect(client.query(Self.orderBy("ASCENDING")).ids.map { String($0.dropFirst(2)) } == ids)
        #expect(client.query(Self.orderBy("DESCENDING")).ids.map { String($0.dropFirst(2)) } == ids.reversed())
    }

    static let filters: [(String, String, String, [String])] = [
        ("== an int64 matches the numerically equal Int32", "EQUAL", #"{"integerValue":"10"}"#, ["09ten"]),
        ("== int32(10) matches int32(10)", "EQUAL", int32(10), ["09ten"]),
        ("== decimal 0.1 is not the double 0.1", "EQUAL", decimal("0.1"), ["07tenth"]),
        ("numbers > 0 include Int32 and Decimal128", "GREATER_THAN", #"{"integerValue":"0"}"#, ["07tenth", "08double", "09ten", "10ten", "11inf"]),
        ("< MaxKey stays in the MaxKey bracket", "LESS_THAN", maxKey, []),
        ("== MinKey", "EQUAL", minKey, ["01min"]),
        ("> BSON timestamp (1,0)", "GREATER_THAN", ts(1, 0), ["14bts"]),
        (">= ObjectId", "GREATER_THAN_OR_EQUAL", oid("100000000000000000000000"), ["20oid"]),
        ("regex equality compares pattern and options", "EQUAL", regex("a", "i"), ["23re"]),
        ("binary data by subtype then data", "GREATER_THAN", binary("AQ=="), ["17bin", "18bin"]),
        ("a NaN double equals the NaN decimal", "EQUAL", #"{"doubleValue":"NaN"}"#, ["03nan"]),
        ("in over BSON values", "IN", #"{"arrayValue":{"values":[\#(minKey),\#(maxKey),\#(int32(-5))]}}"#, ["01min", "05int32", "26max"]),
    ]

    @Test("filters keep each type's bracket", arguments: filters, [true, false])
    func filtering(_ c: (String, String, String, [String]), useIndexes: Bool) {
        let client = Self.client(useIndexes: useIndexes)
        let r = client.query(Self.orderBy("ASCENDING", where: Self.field(c.1, c.2)))
        #expect(r.status == 200, "\(c.0): \(r.response.text)")
        #expect(r.ids.map { String($0.dropFirst(2)) } == c.3, "\(c.0)")
    }

    @Test("documents read back as written; decimal special values come back canonical")
    func readBack() {
        let client = FirestoreTestClient(database: "enterprise-db-native")
        let fields = #"{"i":\#(Self.int32(42)),"d":\#(Self.decimal("-inf")),"n":\#(Self.decimal("nan")),"r":\#(Self.regex("^h", "ims"))}"#
        #expect(client.set([("c/doc", fields)]).status == 200)
        let r = client.send(.get, "/v1/\(client.name("c/doc"))")
        #expect(r.status == 200)
        let f = r.json[member: "fields"]
        #expect(f?[member: "i"]?[member: "mapValue"]?[member: "fields"]?[member: "__int__"]?[member: "integerValue"]?.string == "42")
        #expect(f?[member: "d"]?[member: "mapValue"]?[member: "fields"]?[member: "__decimal128__"]?[member: "stringValue"]?.string == "-Infinity")
        #expect(f?[member: "n"]?[member: "mapValue"]?[member: "fields"]?[member: "__decimal128__"]?[member: "stringValue"]?.string == "NaN")
    }

    @Test("an unsupported regex option is INVALID_ARGUMENT, and nothing is written")
    func regexOption() {
        let client = FirestoreTestClient(database: "enterprise-db-native")
        let r = client.set([("c/bad", #"{"ok":{"integerValue":"1"},"r":\#(Self.regex("hello", "l"))}"#)])
        #expect(r.status == 400)
        #expect(r.json[member: "error"]?[member: "status"]?.string == "INVALID_ARGUMENT")
        #expect(r.json[member: "error"]?[member: "message"]?.string?.contains("Invalid regex option 'l'") == true)
        #expect(client.send(.get, "/v1/\(client.name("c/bad"))").status == 404)
    }

    @Test("a merge (update mask) canonicalises decimals too; transforms leave BSON numbers alone")
    func mergeAndTransform() {
        let client = FirestoreTestClient(database: "enterprise-db-native")
        #expect(client.set([("c/m", #"{"i":\#(Self.int32(1))}"#)]).status == 200)
        let body = #"{"writes":[{"update":{"name":"\#(client.name("c/m"))","fields":{"d":\#(Self.decimal("INF"))}},"updateMask":{"fieldPaths":["d"]},"updateTransforms":[{"fieldPath":"i","increment":{"integerValue":"2"}}]}]}"#
        #expect(client.post(":commit", body).status == 200)
        let f = client.send(.get, "/v1/\(client.name("c/m"))").json[member: "fields"]
        #expect(f?[member: "d"]?[member: "mapValue"]?[member: "fields"]?[member: "__decimal128__"]?[member: "stringValue"]?.string == "Infinity")
        // Increment of a non-numeric (here: Int32 map) field sets the operand, as for any non-number.
        #expect(f?[member: "i"]?[member: "integerValue"]?.string == "2")
    }
}
