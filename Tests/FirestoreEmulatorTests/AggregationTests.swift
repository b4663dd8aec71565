import EmulatorHTTP
import EmulatorSupport
import Testing

@Suite struct AggregationTests {
    func client() -> FirestoreTestClient {
        let c = FirestoreTestClient()
        c.set([
            ("s/a", #"{"v":{"integerValue":"1"}}"#), ("s/b", #"{"v":{"integerValue":"2"}}"#),
            ("s/c", #"{"v":{"doubleValue":1.5}}"#), ("s/d", #"{"v":{"stringValue":"x"}}"#), ("s/e", "{}"),
            ("t/a", #"{"v":{"integerValue":"9223372036854775807"}}"#), ("t/b", #"{"v":{"integerValue":"1"}}"#),
        ])
        return c
    }

    func run(_ c: FirestoreTestClient, _ aggregations: String, collection: String = "s", extra: String = "") -> FirestoreTestClient.Response {
        c.post(":runAggregationQuery", #"{"structuredAggregationQuery":{"structuredQuery":{"from":[{"collectionId":"\#(collection)"}]\#(extra)},"aggregations":[\#(aggregations)]}}"#)
    }

    @Test func countSumAvgWithAliasesAndNumbering() {
        let c = client()
        let r = run(c, #"{"count":{}},{"alias":"total","sum":{"field":{"fieldPath":"v"}}},{"avg":{"field":{"fieldPath":"v"}}},{"count":{"upTo":"2"}}"#)
        let f = r.json.array?.first?[member: "result"]?[member: "aggregateFields"]
        // s/e has no `v`: summing / averaging `v` drops it from every aggregation (count too).
        #expect(f?[member: "field_1"]?[member: "integerValue"]?.string == "4")
        #expect(f?[member: "total"]?[member: "doubleValue"] == .double(4.5))
        #expect(f?[member: "field_2"]?[member: "doubleValue"] == .double(1.5))
        #expect(f?[member: "field_3"]?[member: "integerValue"]?.string == "2")
        #expect(r.json.array?.first?[member: "readTime"]?.string != nil)
    }

    @Test func integerSumStaysIntegerUntilOverflow() {
        let c = client()
        let ints = run(c, #"{"alias":"s","sum":{"field":{"fieldPath":"v"}}}"#, extra: #","where":{"fieldFilter":{"field":{"fieldPath":"v"},"op":"LESS_THAN","value":{"integerValue":"5"}}}"#)
        #expect(ints.json.array?.first?[member: "result"]?[member: "aggregateFields"]?[member: "s"]?[member: "doubleValue"] == .double(4.5))
        let onlyInts = run(
            c, #"{"alias":"s","sum":{"field":{"fieldPath":"v"}}}"#,
            extra: #","where":{"fieldFilter":{"field":{"fieldPath":"v"},"op":"IN","value":{"arrayValue":{"values":[{"integerValue":"1"},{"integerValue":"2"}]}}}}"#)
        #expect(onlyInts.json.array?.first?[member: "result"]?[member: "aggregateFields"]?[member: "s"]?[member: "integerValue"]?.string == "3")
        let overflow = run(c, #"{"alias":"s","sum":{"field":{"fieldPath":"v"}}}"#, collection: "t")
        #expect(overflow.json.array?.first?[member: "result"]?[member: "aggregateFields"]?[member: "s"]?[member: "doubleValue"] != nil)
        let empty = run(c, #"{"alias":"s","sum":{"field":{"fieldPath":"v"}}},{"alias":"a","avg":{"field":{"fieldPath":"v"}}}"#, collection: "none")
        let f = empty.json.array?.first?[member: "result"]?[member: "aggregateFields"]
        #expect(f?[member: "s"]?[member: "integerValue"]?.string == "0")
        #expect(f?[member: "a"]?[member: "nullValue"] == .null)
    }

    @Test(arguments: [
        ("", "Aggregations can not be empty"),
        (#"{"alias":"x","count":{}},{"alias":"x","count":{}}"#, "Aggregation aliases contain duplicate alias x"),
        (#"{"count":{}},{"count":{}},{"count":{}},{"count":{}},{"count":{}},{"count":{}}"#, "Aggregations can not have more than 5"),
    ])
    func officialErrors(_ c: (String, String)) {
        let r = run(client(), c.0)
        #expect(r.status == 400)
        #expect(r.json.errorStatus == "INVALID_ARGUMENT")
        #expect(r.json.errorMessage?.contains(c.1) == true, "\(r.text)")
    }
}
