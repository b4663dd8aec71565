import EmulatorSupport
import Testing

/// Aggregations over limited queries, as python-firestore's system tests exercise them
/// (`test_{sum,avg}_query_{get,stream}_with_limit`, `test_count_query_get_with_limit`) and as the
/// Java client's aggregation tests (run against the emulator) expect for missing fields.
@Suite struct AggregationLimitTests {
    /// python's `query_docs` fixture: 25 documents `{a, b, stats: {sum: a+b, product: a*b}}` for
    /// a, b in 0..<5, under auto ids. The ids here are a permutation, so that name order is
    /// unrelated to the product's order (as it is with random ids).
    static func pythonFixture(useIndexes: Bool) -> FirestoreTestClient {
        let c = FirestoreTestClient(useIndexes: useIndexes)
        var docs: [(String, String)] = []
        for a in 0..<5 {
            for b in 0..<5 {
                let id = "d" + String((a * 5 + b) * 7 % 25 + 10)
                docs.append((
                    "qs/doc/child/\(id)",
                    #"{"a":{"integerValue":"\#(a)"},"b":{"integerValue":"\#(b)"},"stats":{"mapValue":{"fields":{"sum":{"integerValue":"\#(a + b)"},"product":{"integerValue":"\#(a * b)"}}}}}"#
                ))
            }
        }
        c.set(docs)
        return c
    }

    static func run(_ c: FirestoreTestClient, _ aggregations: String, query: String = "") -> JSONValue? {
        let r = c.post(
            "/qs/doc:runAggregationQuery",
            #"{"structuredAggregationQuery":{"structuredQuery":{"from":[{"collectionId":"child"}]\#(query)},"aggregations":[\#(aggregations)]}}"#)
        return r.json.array?.first?[member: "result"]?[member: "aggregateFields"]?[member: "r"]
    }

    static let sumProduct = #"{"alias":"r","sum":{"field":{"fieldPath":"stats.product"}}}"#
    static let avgProduct = #"{"alias":"r","avg":{"field":{"fieldPath":"stats.product"}}}"#
    static let count = #"{"alias":"r","count":{}}"#
    static let whereAIs1 = #","where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"EQUAL","value":{"integerValue":"1"}}}"#

    /// An expected aggregation result: `integerValue` (a decimal string) or `doubleValue`.
    enum Expected: Sendable, CustomStringConvertible {
        case integer(Int64)
        case double(Double)

        var description: String {
            switch self {
            case .integer(let i): "integerValue \(i)"
            case .double(let d): "doubleValue \(d)"
            }
        }

        /// Whether a REST `Value` object is this result (a JSON number may parse as int or double).
        func matches(_ value: JSONValue?) -> Bool {
            switch self {
            case .integer(let i): return value?[member: "integerValue"]?.string == String(i)
            case .double(let d): return AggregationLimitTests.number(value?[member: "doubleValue"]) == d
            }
        }
    }

    static func number(_ v: JSONValue?) -> Double? {
        switch v {
        case .int(let i)?: Double(i)
        case .double(let d)?: d
        default: nil
        }
    }

    /// (aggregation, query suffix, expected result)
    static let cases: [(String, String, Expected)] = [
        // python: sum 100 without limit; limit(12) aggregates [0×9, 1, 2, 2] = 5.
        (sumProduct, "", .integer(100)),
        (sumProduct, #","limit":12"#, .integer(5)),
        // python: avg 4.0 without limit; limit(12) gives 5 / 12 (a double).
        (avgProduct, "", .double(4.0)),
        (avgProduct, #","limit":12"#, .double(5.0 / 12.0)),
        // python: where a == 1 counts 5; limit(2) counts 2.
        (count, whereAIs1, .integer(5)),
        (count, whereAIs1 + #","limit":2"#, .integer(2)),
        // An explicit descending order ranks first: 16 + 12 + 12.
        (sumProduct, #","orderBy":[{"field":{"fieldPath":"stats.product"},"direction":"DESCENDING"}],"limit":3"#,
         .integer(40)),
        // The summed field breaks ties of the explicit order: a = 0 (five zeros), then a = 1's 0, 1.
        (sumProduct, #","orderBy":[{"field":{"fieldPath":"a"}}],"limit":7"#, .integer(1)),
        // Offset skips by the same ranking: the 13th to 15th smallest products are 3, 3, 4.
        (sumProduct, #","offset":12,"limit":3"#, .integer(10)),
    ]

    @Test(arguments: cases, [true, false])
    func pythonLimitExpectations(_ c: (String, String, Expected), useIndexes: Bool) {
        let client = Self.pythonFixture(useIndexes: useIndexes)
        let result = Self.run(client, c.0, query: c.1)
        #expect(c.2.matches(result), "\(c.0) \(c.1): \(String(describing: result))")
    }

    /// The plain query's limit still follows name order: aggregations do not reorder RunQuery.
    @Test func runQueryLimitKeepsNameOrder() {
        let client = Self.pythonFixture(useIndexes: true)
        let r = client.post(":runQuery", #"{"structuredQuery":{"from":[{"collectionId":"child","allDescendants":true}],"limit":2}}"#)
        let names = r.json.array?.compactMap { $0[member: "document"]?[member: "name"]?.string } ?? []
        #expect(names.map { $0.split(separator: "/").last.map(String.init) ?? "" } == ["d10", "d11"])
    }

    /// Java client test `performsAggregationsOnDocumentsWithAllaggregatedFields` (emulator): a
    /// document missing any summed / averaged field drops out of every aggregation, count included.
    @Test func documentsMissingAnAggregatedFieldAreExcluded() {
        let c = FirestoreTestClient()
        c.set([
            ("books/a", #"{"pages":{"integerValue":"100"},"year":{"integerValue":"1980"}}"#),
            ("books/b", #"{"pages":{"integerValue":"50"},"year":{"integerValue":"2020"}}"#),
            ("books/c", #"{"pages":{"integerValue":"150"},"year":{"integerValue":"2021"}}"#),
            ("books/d", #"{"pages":{"integerValue":"50"}}"#),
        ])
        let r = c.post(
            ":runAggregationQuery",
            #"{"structuredAggregationQuery":{"structuredQuery":{"from":[{"collectionId":"books"}]},"aggregations":[{"alias":"s","sum":{"field":{"fieldPath":"pages"}}},{"alias":"p","avg":{"field":{"fieldPath":"pages"}}},{"alias":"y","avg":{"field":{"fieldPath":"year"}}},{"alias":"n","count":{}}]}}"#)
        let f = r.json.array?.first?[member: "result"]?[member: "aggregateFields"]
        #expect(f?[member: "s"]?[member: "integerValue"]?.string == "300")
        #expect(Self.number(f?[member: "p"]?[member: "doubleValue"]) == 100)
        #expect(Self.number(f?[member: "y"]?[member: "doubleValue"]) == 2007)
        #expect(f?[member: "n"]?[member: "integerValue"]?.string == "3")
    }

    /// Java client test `performsSumOnlyOnNumericFields`: a non-numeric value is skipped by the
    /// sum but the document exists in the field, so it still counts.
    @Test func nonNumericValuesAreSkippedButCounted() {
        let c = FirestoreTestClient()
        c.set([
            ("r/a", #"{"rating":{"integerValue":"5"}}"#), ("r/b", #"{"rating":{"integerValue":"4"}}"#),
            ("r/c", #"{"rating":{"stringValue":"3"}}"#), ("r/d", #"{"rating":{"integerValue":"1"}}"#),
        ])
        let r = c.post(
            ":runAggregationQuery",
            #"{"structuredAggregationQuery":{"structuredQuery":{"from":[{"collectionId":"r"}]},"aggregations":[{"alias":"s","sum":{"field":{"fieldPath":"rating"}}},{"alias":"n","count":{}}]}}"#)
        let f = r.json.array?.first?[member: "result"]?[member: "aggregateFields"]
        #expect(f?[member: "s"]?[member: "integerValue"]?.string == "10")
        #expect(f?[member: "n"]?[member: "integerValue"]?.string == "4")
    }
}
