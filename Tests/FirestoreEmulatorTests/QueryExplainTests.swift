import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf
import EmulatorSupport
import Testing

@testable import FirestoreEmulator

/// Query explain (`explain_options`) on RunQuery and RunAggregationQuery, over REST and gRPC.
@Suite struct QueryExplainTests {
    static func seeded() -> FirestoreTestClient {
        let c = FirestoreTestClient()
        var docs: [(String, String)] = []
        for a in 0..<5 { for b in 0..<5 { docs.append(("c/d\(a)\(b)", #"{"a":{"integerValue":"\#(a)"},"b":{"integerValue":"\#(b)"}}"#)) } }
        c.set(docs)
        return c
    }

    static let whereA = #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"IN","value":{"arrayValue":{"values":[{"integerValue":"1"},{"integerValue":"105"}]}}}}}"#

    static func index(_ metrics: JSONValue?) -> (String?, String?) {
        let first = metrics?[member: "planSummary"]?[member: "indexesUsed"]?.array?.first
        return (first?[member: "query_scope"]?.string, first?[member: "properties"]?.string)
    }

    @Test func planOnlyReturnsNoDocumentsAndThePlan() {
        let c = Self.seeded()
        let r = c.post(":runQuery", #"{"structuredQuery":\#(Self.whereA),"explainOptions":{}}"#)
        #expect(r.status == 200, "\(r.text.prefix(300))")
        let items = r.json.array ?? []
        #expect(items.count == 1)
        #expect(items.first?[member: "document"] == nil)
        #expect(items.first?[member: "readTime"]?.string != nil)
        let metrics = items.first?[member: "explainMetrics"]
        #expect(Self.index(metrics) == ("Collection", "(a ASC, __name__ ASC)"))
        #expect(metrics?[member: "executionStats"] == nil)
    }

    @Test func analyzeReturnsDocumentsThenStatisticsOnTheLastResponse() {
        let c = Self.seeded()
        let r = c.post(":runQuery", #"{"structuredQuery":\#(Self.whereA),"explainOptions":{"analyze":true}}"#)
        let items = r.json.array ?? []
        #expect(items.count == 5)
        #expect(items.allSatisfy { $0[member: "document"] != nil })
        #expect(items.dropLast().allSatisfy { $0[member: "explainMetrics"] == nil })
        let metrics = items.last?[member: "explainMetrics"]
        #expect(Self.index(metrics) == ("Collection", "(a ASC, __name__ ASC)"))
        let stats = metrics?[member: "executionStats"]
        #expect(stats?[member: "resultsReturned"]?.string == "5")
        #expect(stats?[member: "readOperations"]?.string == "5")
        let duration = stats?[member: "executionDuration"]?.string ?? ""
        #expect(duration.hasSuffix("s") && duration.hasPrefix("0."), "\(duration)")
        let debug = stats?[member: "debugStats"]
        #expect(debug?[member: "documents_scanned"]?.string == "5")
        #expect(debug?[member: "index_entries_scanned"]?.string == "5")
        #expect(debug?[member: "billing_details"]?[member: "documents_billable"]?.string == "5")
    }

    @Test func anEmptyResultBillsOneReadAndCarriesTheMetrics() {
        let c = Self.seeded()
        let r = c.post(":runQuery", #"{"structuredQuery":{"from":[{"collectionId":"none"}]},"explainOptions":{"analyze":true}}"#)
        let items = r.json.array ?? []
        #expect(items.count == 1)
        let stats = items.first?[member: "explainMetrics"]?[member: "executionStats"]
        #expect(stats?[member: "resultsReturned"]?.string == "0")
        #expect(stats?[member: "readOperations"]?.string == "1")
        #expect(Self.index(items.first?[member: "explainMetrics"]) == ("Collection", "(__name__ ASC)"))
    }

    /// (structured query, scope, properties) as production's planner names the index it needs.
    static let plans: [(String, String, String)] = [
        (#"{"from":[{"collectionId":"c"}]}"#, "Collection", "(__name__ ASC)"),
        (#"{"from":[{"collectionId":"c","allDescendants":true}]}"#, "Collection group", "(__name__ ASC)"),
        (#"{"from":[{"collectionId":"c"}],"orderBy":[{"field":{"fieldPath":"b"},"direction":"DESCENDING"}]}"#, "Collection", "(b DESC, __name__ DESC)"),
        (#"{"from":[{"collectionId":"c"}],"where":{"compositeFilter":{"op":"AND","filters":[{"fieldFilter":{"field":{"fieldPath":"a"},"op":"EQUAL","value":{"integerValue":"1"}}},{"fieldFilter":{"field":{"fieldPath":"b"},"op":"GREATER_THAN","value":{"integerValue":"1"}}}]}}}"#,
         "Collection", "(a ASC, b ASC, __name__ ASC)"),
        (#"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"t"},"op":"ARRAY_CONTAINS","value":{"integerValue":"1"}}}}"#,
         "Collection", "(t CONTAINS, __name__ ASC)"),
    ]

    @Test(arguments: plans)
    func planSummaryNamesTheIndex(_ p: (String, String, String)) {
        let c = Self.seeded()
        let r = c.post(":runQuery", #"{"structuredQuery":\#(p.0),"explainOptions":{"analyze":false}}"#)
        #expect(r.status == 200, "\(r.text.prefix(300))")
        #expect(Self.index(r.json.array?.last?[member: "explainMetrics"]) == (p.1, p.2))
    }

    @Test func aggregationPlanHasNoResultAndAnalyzeHasBoth() {
        let c = Self.seeded()
        let body = #"{"structuredAggregationQuery":{"structuredQuery":\#(Self.whereA),"aggregations":[{"alias":"n","count":{}}]}"#
        let plan = c.post(":runAggregationQuery", body + #","explainOptions":{}}"#)
        #expect(plan.status == 200, "\(plan.text.prefix(300))")
        #expect(plan.json.array?.count == 1)
        #expect(plan.json.array?.first?[member: "result"] == nil)
        #expect(Self.index(plan.json.array?.first?[member: "explainMetrics"]) == ("Collection", "(a ASC, __name__ ASC)"))
        let run = c.post(":runAggregationQuery", body + #","explainOptions":{"analyze":true}}"#)
        let item = run.json.array?.first
        #expect(item?[member: "result"]?[member: "aggregateFields"]?[member: "n"]?[member: "integerValue"]?.string == "5")
        let stats = item?[member: "explainMetrics"]?[member: "executionStats"]
        #expect(stats?[member: "resultsReturned"]?.string == "1")
        #expect(stats?[member: "readOperations"]?.string == "1")
    }

    @Test func badExplainOptionsAnswerInvalidArgument() {
        let c = Self.seeded()
        let r = c.post(":runQuery", #"{"structuredQuery":\#(Self.whereA),"explainOptions":{"analyze":"yes"}}"#)
        #expect(r.status == 400, "\(r.text.prefix(300))")
        #expect(r.json.errorStatus == "INVALID_ARGUMENT")
        let bad = c.post(":runQuery", #"{"structuredQuery":{"from":[{"collectionId":""}]},"explainOptions":{}}"#)
        #expect(bad.status == 400)
    }

    /// The fields of `ExplainMetrics` as gRPC sends them: the first index's struct and the stats.
    static func decode(_ metrics: [UInt8]) throws -> (properties: String?, stats: [(Int, [UInt8])]?) {
        let top = try GRPCTestClient.fields(metrics)
        let plan = try GRPCTestClient.fields(top.first { $0.0 == 1 }?.1 ?? [])
        var properties: String?
        if let index = plan.first(where: { $0.0 == 1 }) {
            for entry in try GRPCTestClient.fields(index.1) where entry.0 == 1 {
                let kv = try GRPCTestClient.fields(entry.1)
                let key = String(decoding: kv.first { $0.0 == 1 }?.1 ?? [], as: UTF8.self)
                let value = try GRPCTestClient.fields(kv.first { $0.0 == 2 }?.1 ?? [])
                if key == "properties" { properties = String(decoding: value.first { $0.0 == 3 }?.1 ?? [], as: UTF8.self) }
            }
        }
        let stats = try top.first { $0.0 == 2 }.map { try GRPCTestClient.fields($0.1) }
        return (properties, stats)
    }

    @Test func grpcRunQueryAndAggregationCarryMetrics() throws {
        let service = FirestoreService(store: DocumentStore())
        let rest = FirestoreTestClient(service: service)
        var docs: [(String, String)] = []
        for i in 0..<4 { docs.append(("c/d\(i)", #"{"a":{"integerValue":"1"}}"#)) }
        rest.set(docs)
        let grpc = GRPCTestClient(service: service)
        let query: (inout ProtoWriter) -> Void = { q in
            q.message(2) { $0.string(2, "c") }
            q.message(3) { f in f.message(2) { ff in ff.message(1) { $0.string(2, "a") }; ff.int32(2, 5); ff.message(3) { $0.int64(2, 1) } } }
        }
        let (analyzed, status) = grpc.stream("RunQuery") { w in
            w.string(1, grpc.root)
            w.message(2, query)
            w.message(10) { $0.bool(1, true) }
        }
        #expect(status.code == 0)
        #expect(analyzed.count == 4)
        let last = try GRPCTestClient.fields(analyzed[3])
        #expect(last.contains { $0.0 == 1 })
        let metrics = try Self.decode(last.first { $0.0 == 11 }?.1 ?? [])
        #expect(metrics.properties == "(a ASC, __name__ ASC)")
        #expect(metrics.stats?.first { $0.0 == 1 }?.1 == [4])  // results_returned
        #expect(metrics.stats?.first { $0.0 == 4 }?.1 == [4])  // read_operations
        #expect(try GRPCTestClient.fields(analyzed[0]).contains { $0.0 == 11 } == false)

        let (planned, _) = grpc.stream("RunQuery") { w in
            w.string(1, grpc.root)
            w.message(2, query)
            w.message(10) { _ in }
        }
        #expect(planned.count == 1)
        let only = try GRPCTestClient.fields(planned[0])
        #expect(!only.contains { $0.0 == 1 })
        #expect(try Self.decode(only.first { $0.0 == 11 }?.1 ?? []).stats == nil)

        let (aggregated, _) = grpc.stream("RunAggregationQuery") { w in
            w.string(1, grpc.root)
            w.message(2) { a in a.message(1, query); a.message(3) { c in c.message(1) { _ in }; c.string(7, "n") } }
            w.message(8) { _ in }
        }
        #expect(aggregated.count == 1)
        let fields = try GRPCTestClient.fields(aggregated[0])
        #expect(!fields.contains { $0.0 == 1 })
        #expect(try Self.decode(fields.first { $0.0 == 10 }?.1 ?? []).properties == "(a ASC, __name__ ASC)")
    }
}
