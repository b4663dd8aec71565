import EmulatorHTTP
import EmulatorSupport
import Testing

/// Arbitrary bytes and shapes on every method answer a JSON error, never a crash or a 5xx.
@Suite struct HostileInputTests {
    static let methods = [
        ":commit", ":batchGet", ":runQuery", ":runAggregationQuery", ":beginTransaction", ":rollback",
        ":batchWrite", ":listCollectionIds", ":partitionQuery",
    ]

    static let bodies: [String] = [
        "\u{0}\u{1}\u{2}", "[]", "null", "42", #""x""#, "{", #"{"writes":{}}"#, #"{"writes":[null]}"#,
        #"{"writes":[{"update":{}}]}"#, #"{"writes":[{"update":{"name":"x"}}]}"#,
        #"{"writes":[{"delete":"projects/p/databases/d/documents/c/d","verify":"x"}]}"#,
        #"{"structuredQuery":[]}"#, #"{"structuredQuery":{"from":"c"}}"#, #"{"structuredQuery":{"from":[{}]}}"#,
        #"{"structuredQuery":{"from":[{"collectionId":"c"}],"where":{}}}"#,
        #"{"structuredQuery":{"from":[{"collectionId":"c"}],"limit":"99999999999999999999"}}"#,
        #"{"structuredQuery":{"from":[{"collectionId":"c"}],"offset":-5}}"#,
        #"{"structuredQuery":{"from":[{"collectionId":"c"}],"orderBy":[{"field":{}}]}}"#,
        #"{"structuredAggregationQuery":{"aggregations":[{"sum":{}}]}}"#,
        #"{"documents":[1,2]}"#, #"{"transaction":"!!!"}"#, #"{"readTime":"yesterday"}"#,
        #"{"newTransaction":{"readOnly":{"readTime":"9999-12-31T23:59:59Z"}}}"#, #"{"pageSize":"x"}"#,
        String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000),
        #"{"writes":[{"update":{"name":"projects/demo/databases/(default)/documents/c/d","fields":{"a":"#
            + String(repeating: #"{"arrayValue":{"values":["#, count: 300) + String(repeating: "]}}", count: 300) + "}}}]}",
    ]

    @Test(arguments: methods)
    func everyBodyAnswersAClientError(_ method: String) {
        let c = FirestoreTestClient()
        for body in Self.bodies {
            let r = c.post(method, body)
            #expect(r.status >= 400 && r.status < 500 || r.status == 501 || r.status == 200, "\(method) \(body.prefix(40)): \(r.status)")
            if r.status != 200 {
                #expect(r.json.errorStatus != nil, "\(method) \(body.prefix(40)): \(r.text.prefix(200))")
            }
        }
    }

    @Test func hostilePaths() {
        let c = FirestoreTestClient()
        let paths = [
            "/v1/", "/v1/projects", "/v1/projects//databases/d/documents/c/d", "/v1/projects/p/databases/d/documents/%ZZ",
            "/v1/projects/p/databases/d/documents/c/%2F", "/v1/projects/p/databases/d/documents/" + String(repeating: "a/", count: 300) + "a",
            "/v1/projects/p/databases/d/documents/c/..", "/v1/projects/p/databases/d/notdocuments/c/d",
        ]
        for p in paths {
            for method in [HTTPMethod.get, .post, .patch, .delete] {
                let r = c.send(method, p, "{}")
                // Listing a (deep, empty) collection is fine; everything else is a client error.
                let listing = method == .get && p.hasSuffix("/a")
                #expect(listing ? r.status == 200 : (r.status >= 400 && r.status < 500), "\(method) \(p.prefix(60)): \(r.status)")
            }
        }
    }
}
