import EmulatorHTTP
import EmulatorSupport
import Testing

@Suite struct TransformTests {
    /// (case, initial field JSON or nil for missing, transform JSON body, expected field JSON, expected transform result JSON)
    static let cases: [(String, String?, String, String, String)] = [
        ("increment int", #"{"integerValue":"1"}"#, #""increment":{"integerValue":"2"}"#, #"{"integerValue":"3"}"#, #"{"integerValue":"3"}"#),
        ("increment missing sets operand", nil, #""increment":{"integerValue":"5"}"#, #"{"integerValue":"5"}"#, #"{"integerValue":"5"}"#),
        ("increment string sets operand", #"{"stringValue":"x"}"#, #""increment":{"doubleValue":1.5}"#, #"{"doubleValue":1.5}"#, #"{"doubleValue":1.5}"#),
        ("increment mixed gives double", #"{"integerValue":"1"}"#, #""increment":{"doubleValue":0.5}"#, #"{"doubleValue":1.5}"#, #"{"doubleValue":1.5}"#),
        ("increment saturates", #"{"integerValue":"9223372036854775800"}"#, #""increment":{"integerValue":"100"}"#, #"{"integerValue":"9223372036854775807"}"#, #"{"integerValue":"9223372036854775807"}"#),
        ("increment saturates low", #"{"integerValue":"-9223372036854775800"}"#, #""increment":{"integerValue":"-100"}"#, #"{"integerValue":"-9223372036854775808"}"#, #"{"integerValue":"-9223372036854775808"}"#),
        ("maximum keeps larger", #"{"integerValue":"5"}"#, #""maximum":{"doubleValue":2.5}"#, #"{"integerValue":"5"}"#, #"{"integerValue":"5"}"#),
        ("maximum takes operand type", #"{"integerValue":"1"}"#, #""maximum":{"doubleValue":2.5}"#, #"{"doubleValue":2.5}"#, #"{"doubleValue":2.5}"#),
        ("maximum equivalent keeps stored", #"{"integerValue":"3"}"#, #""maximum":{"doubleValue":3}"#, #"{"integerValue":"3"}"#, #"{"integerValue":"3"}"#),
        ("maximum NaN", #"{"integerValue":"3"}"#, #""maximum":{"doubleValue":"NaN"}"#, #"{"doubleValue":"NaN"}"#, #"{"doubleValue":"NaN"}"#),
        ("minimum", #"{"integerValue":"3"}"#, #""minimum":{"integerValue":"-2"}"#, #"{"integerValue":"-2"}"#, #"{"integerValue":"-2"}"#),
        ("minimum on missing", nil, #""minimum":{"integerValue":"4"}"#, #"{"integerValue":"4"}"#, #"{"integerValue":"4"}"#),
        ("append missing elements", #"{"arrayValue":{"values":[{"integerValue":"3"},{"doubleValue":"NaN"}]}}"#,
         #""appendMissingElements":{"values":[{"doubleValue":3.0},{"doubleValue":"NaN"},{"nullValue":null},{"nullValue":null}]}"#,
         #"{"arrayValue":{"values":[{"integerValue":"3"},{"doubleValue":"NaN"},{"nullValue":null}]}}"#, #"{"nullValue":null}"#),
        ("append to non-array", #"{"stringValue":"x"}"#, #""appendMissingElements":{"values":[{"integerValue":"1"}]}"#,
         #"{"arrayValue":{"values":[{"integerValue":"1"}]}}"#, #"{"nullValue":null}"#),
        ("remove all equivalents", #"{"arrayValue":{"values":[{"integerValue":"3"},{"doubleValue":3.0},{"doubleValue":"NaN"},{"integerValue":"4"}]}}"#,
         #""removeAllFromArray":{"values":[{"integerValue":"3"},{"doubleValue":"NaN"}]}"#,
         #"{"arrayValue":{"values":[{"integerValue":"4"}]}}"#, #"{"nullValue":null}"#),
        ("remove from missing", nil, #""removeAllFromArray":{"values":[{"integerValue":"3"}]}"#, #"{"arrayValue":{}}"#, #"{"nullValue":null}"#),
    ]

    @Test(arguments: cases)
    func transform(_ c: (String, String?, String, String, String)) throws {
        let client = FirestoreTestClient()
        let name = client.name("t/doc")
        if let initial = c.1 { client.set([("t/doc", #"{"f":\#(initial)}"#)]) } else { client.set([("t/doc", "{}")]) }
        let r = client.post(":commit", #"{"writes":[{"transform":{"document":"\#(name)","fieldTransforms":[{"fieldPath":"f",\#(c.2)}]}}]}"#)
        #expect(r.status == 200, "\(c.0): \(r.text)")
        let result = r.json[member: "writeResults"]?.array?.first?[member: "transformResults"]?.array?.first
        #expect(result == (try JSONReader.parse(c.4)), "\(c.0)")
        let stored = client.send(.get, "/v1/\(name)").json[member: "fields"]?[member: "f"]
        #expect(stored == (try JSONReader.parse(c.3)), "\(c.0)")
    }

    @Test func serverTimestampEqualsCommitTimeInEveryWrite() {
        let client = FirestoreTestClient()
        let r = client.post(":commit", #"""
            {"writes":[
             {"update":{"name":"\#(client.name("t/a"))","fields":{"x":{"integerValue":"1"}}},"updateMask":{"fieldPaths":[]},"updateTransforms":[{"fieldPath":"at","setToServerValue":"REQUEST_TIME"}]},
             {"update":{"name":"\#(client.name("t/b"))","fields":{}},"updateTransforms":[{"fieldPath":"m.at","setToServerValue":"REQUEST_TIME"}]}
            ]}
            """#)
        let commitTime = r.json[member: "commitTime"]?.string
        let results = r.json[member: "writeResults"]?.array ?? []
        #expect(results.count == 2)
        for res in results {
            #expect(res[member: "transformResults"]?.array?.first?[member: "timestampValue"]?.string == commitTime)
            #expect(res[member: "updateTime"]?.string == commitTime)
        }
        let b = client.send(.get, "/v1/\(client.name("t/b"))")
        #expect(b.json[member: "fields"]?[member: "m"]?[member: "mapValue"]?[member: "fields"]?[member: "at"]?[member: "timestampValue"]?.string == commitTime)
        // An empty mask with a transform leaves other fields alone and does not write `x`.
        let a = client.send(.get, "/v1/\(client.name("t/a"))")
        #expect(a.json[member: "fields"]?[member: "x"] == nil)
    }

    @Test func updateMaskMergesAndDeletesMaskedAbsentFields() {
        let client = FirestoreTestClient()
        client.set([("t/a", #"{"keep":{"integerValue":"1"},"gone":{"integerValue":"2"},"m":{"mapValue":{"fields":{"x":{"integerValue":"1"},"y":{"integerValue":"2"}}}}}"#)])
        let r = client.post(":commit", #"{"writes":[{"update":{"name":"\#(client.name("t/a"))","fields":{"m":{"mapValue":{"fields":{"x":{"integerValue":"9"}}}},"new":{"booleanValue":true}}},"updateMask":{"fieldPaths":["gone","m.x","new"]},"currentDocument":{"exists":true}}]}"#)
        #expect(r.status == 200)
        let f = client.send(.get, "/v1/\(client.name("t/a"))").json[member: "fields"]
        #expect(f?[member: "keep"] != nil)
        #expect(f?[member: "gone"] == nil)
        #expect(f?[member: "new"]?[member: "booleanValue"] == .bool(true))
        let m = f?[member: "m"]?[member: "mapValue"]?[member: "fields"]
        #expect(m?[member: "x"]?[member: "integerValue"]?.string == "9")
        #expect(m?[member: "y"]?[member: "integerValue"]?.string == "2")
    }
}
