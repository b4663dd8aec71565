import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf
import EmulatorSupport
import Testing

@testable import FirestoreEmulator

/// PartitionQuery over REST and gRPC: split points that cover a collection group exactly once,
/// paging, read time and the bad-input answers.
@Suite struct PartitionQueryTests {
    static let group = #"{"from":[{"collectionId":"g","allDescendants":true}],"orderBy":[{"field":{"fieldPath":"__name__"}}]}"#

    /// `count` documents of group `g` under four parents, as the Python system test lays them out.
    static func seed(_ c: FirestoreTestClient, count: Int) {
        let parents = ["", "abc/123/", "def/456/", "ghi/789/"]
        var docs: [(String, String)] = []
        for i in 0..<count {
            docs.append((parents[i % 4] + "g/d\(String(10000 + i).dropFirst())", #"{"x":{"integerValue":"\#(i)"}}"#))
            if docs.count == 400 {
                c.set(docs)
                docs = []
            }
        }
        if !docs.isEmpty { c.set(docs) }
        c.set([("other/x", "{}"), ("abc/123/h/y", "{}")])
    }

    static func cursors(_ r: FirestoreTestClient.Response) -> [String] {
        (r.json[member: "partitions"]?.array ?? []).compactMap {
            $0[member: "values"]?.array?.first?[member: "referenceValue"]?.string
        }
    }

    /// Runs the group query once per partition (end before the next point, start at the point)
    /// and returns the names in order.
    static func readAll(_ c: FirestoreTestClient, cursors: [String]) -> [String] {
        var bounds: [String?] = [nil]
        bounds += cursors.map { Optional($0) }
        bounds.append(nil)
        var names: [String] = []
        for i in 0..<(bounds.count - 1) {
            var q = #"{"from":[{"collectionId":"g","allDescendants":true}],"orderBy":[{"field":{"fieldPath":"__name__"}}]"#
            if let s = bounds[i] { q += #","startAt":{"values":[{"referenceValue":"\#(s)"}],"before":true}"# }
            if let e = bounds[i + 1] { q += #","endAt":{"values":[{"referenceValue":"\#(e)"}],"before":true}"# }
            q += "}"
            names += c.query(q).ids
        }
        return names
    }

    @Test func partitionsCoverEveryDocumentExactlyOnceInOrder() {
        let c = FirestoreTestClient()
        Self.seed(c, count: 383)
        let r = c.post(":partitionQuery", #"{"structuredQuery":\#(Self.group),"partitionCount":"3"}"#)
        #expect(r.status == 200, "\(r.text.prefix(300))")
        let cursors = Self.cursors(r)
        // 383 documents, at least 128 per partition: points after 128 and 256.
        #expect(cursors.count == 2)
        #expect(r.json[member: "nextPageToken"] == nil)
        let all = c.query(Self.group).ids
        #expect(all.count == 383)
        #expect(Self.readAll(c, cursors: cursors) == all)
    }

    @Test func fewDocumentsGiveNoSplitPoints() {
        let c = FirestoreTestClient()
        Self.seed(c, count: 5)
        let r = c.post(":partitionQuery", #"{"structuredQuery":\#(Self.group),"partitionCount":"3"}"#)
        #expect(r.status == 200)
        #expect(Self.cursors(r).isEmpty)
        #expect(Self.readAll(c, cursors: []).count == 5)
    }

    @Test func pagesTogetherGiveEveryPointAtTheFirstPagesReadTime() {
        let c = FirestoreTestClient()
        Self.seed(c, count: 1300)
        let whole = Self.cursors(c.post(":partitionQuery", #"{"structuredQuery":\#(Self.group),"partitionCount":"20"}"#))
        // 1,300 documents in partitions of at least 128: points at 128, 256, … 1,280.
        #expect(whole.count == 10)
        let first = c.post(":partitionQuery", #"{"structuredQuery":\#(Self.group),"partitionCount":"20","pageSize":4}"#)
        #expect(first.status == 200)
        var cursors = Self.cursors(first)
        #expect(cursors.count == 4)
        var token = first.json[member: "nextPageToken"]?.string
        #expect(token != nil)
        // Documents written after the first page do not move later pages' points.
        c.set([("g/0-new", "{}"), ("g/0-newer", "{}")])
        var pages = 1
        while let t = token, pages < 10 {
            let next = c.post(
                ":partitionQuery", #"{"structuredQuery":\#(Self.group),"partitionCount":"20","pageSize":4,"pageToken":"\#(t)"}"#)
            #expect(next.status == 200, "\(next.text.prefix(300))")
            cursors += Self.cursors(next)
            token = next.json[member: "nextPageToken"]?.string
            pages += 1
        }
        #expect(pages == 3)
        #expect(cursors == whole)
        let after = Self.cursors(c.post(":partitionQuery", #"{"structuredQuery":\#(Self.group),"partitionCount":"20"}"#))
        #expect(after != whole)
    }

    @Test func readTimeSplitsThePastState() {
        let c = FirestoreTestClient()
        Self.seed(c, count: 300)
        let before = c.query(Self.group)
        let time = before.response.json.array?.first?[member: "readTime"]?.string ?? ""
        let deletes = before.ids.prefix(200).map { #"{"delete":"\#(c.name($0))"}"# }
        #expect(c.post(":commit", #"{"writes":[\#(deletes.joined(separator: ","))]}"#).status == 200)
        let now = c.post(":partitionQuery", #"{"structuredQuery":\#(Self.group),"partitionCount":"3"}"#)
        #expect(now.status == 200)
        #expect(Self.cursors(now).isEmpty)
        let past = c.post(":partitionQuery", #"{"structuredQuery":\#(Self.group),"partitionCount":"3","readTime":"\#(time)"}"#)
        #expect(past.status == 200, "\(past.text.prefix(300))")
        #expect(Self.cursors(past).count == 2)
    }

    /// (case, body, message): each answers 400 INVALID_ARGUMENT and changes nothing.
    static let bad: [(String, String, String)] = [
        ("not a collection group", #"{"structuredQuery":{"from":[{"collectionId":"g"}]},"partitionCount":"2"}"#,
         "PartitionQuery requires a collection group query (all_descendants must be true)."),
        ("filter", #"{"structuredQuery":{"from":[{"collectionId":"g","allDescendants":true}],"where":{"fieldFilter":{"field":{"fieldPath":"x"},"op":"EQUAL","value":{"integerValue":"1"}}}},"partitionCount":"2"}"#,
         "PartitionQuery does not support filters."),
        ("order by a field", #"{"structuredQuery":{"from":[{"collectionId":"g","allDescendants":true}],"orderBy":[{"field":{"fieldPath":"x"}}]},"partitionCount":"2"}"#,
         "PartitionQuery requires the query to be ordered by __name__ ascending."),
        ("descending", #"{"structuredQuery":{"from":[{"collectionId":"g","allDescendants":true}],"orderBy":[{"field":{"fieldPath":"__name__"},"direction":"DESCENDING"}]},"partitionCount":"2"}"#,
         "PartitionQuery requires the query to be ordered by __name__ ascending."),
        ("limit", #"{"structuredQuery":{"from":[{"collectionId":"g","allDescendants":true}],"limit":5},"partitionCount":"2"}"#,
         "PartitionQuery does not support limit."),
        ("offset", #"{"structuredQuery":{"from":[{"collectionId":"g","allDescendants":true}],"offset":5},"partitionCount":"2"}"#,
         "PartitionQuery does not support offset."),
        ("zero count", #"{"structuredQuery":\#(group),"partitionCount":"0"}"#, "partition_count must be positive."),
        ("negative count", #"{"structuredQuery":\#(group),"partitionCount":"-3"}"#, "partition_count must be positive."),
        ("no count", #"{"structuredQuery":\#(group)}"#, "partition_count must be positive."),
        ("negative page size", #"{"structuredQuery":\#(group),"partitionCount":"2","pageSize":-1}"#, "page_size must not be negative."),
        ("garbled token", #"{"structuredQuery":\#(group),"partitionCount":"2","pageToken":"%%%"}"#, "Invalid page token."),
        ("no query", #"{"partitionCount":"2"}"#, "PartitionQuery requires a structured_query."),
    ]

    @Test(arguments: bad)
    func badInputAnswersInvalidArgument(_ c: (String, String, String)) {
        let client = FirestoreTestClient()
        Self.seed(client, count: 3)
        let r = client.post(":partitionQuery", c.1)
        #expect(r.status == 400, "\(c.0): \(r.text.prefix(300))")
        #expect(r.json.errorStatus == "INVALID_ARGUMENT", "\(c.0)")
        #expect(r.json.errorMessage == c.2, "\(c.0)")
    }

    @Test func aDocumentParentIsRefused() {
        let c = FirestoreTestClient()
        let r = c.post("/abc/123:partitionQuery", #"{"structuredQuery":\#(Self.group),"partitionCount":"2"}"#)
        #expect(r.status == 400)
        #expect(r.json.errorMessage?.hasPrefix("Document resource names are not supported") == true)
    }

    @Test func grpcGivesTheSamePointsAsReferenceCursors() throws {
        let service = FirestoreService(store: DocumentStore())
        let rest = FirestoreTestClient(service: service)
        Self.seed(rest, count: 383)
        let grpc = GRPCTestClient(service: service)
        let response = try grpc.unary("PartitionQuery") { w in
            w.string(1, grpc.root)
            w.message(2) { q in
                q.message(2) { s in s.string(2, "g"); s.bool(3, true) }
                q.message(4) { o in o.message(1) { $0.string(2, "__name__") }; o.int32(2, 1) }
            }
            w.int64(3, 3)
            w.int32(5, 1)
        }.get()
        let fields = try GRPCTestClient.fields(response)
        let partitions = fields.filter { $0.0 == 1 }.map(\.1)
        #expect(partitions.count == 1)
        let cursor = try GRPCTestClient.fields(partitions[0])
        let value = ProtoReader(cursor.first { $0.0 == 1 }?.1 ?? [])
        let expected = Self.cursors(rest.post(":partitionQuery", #"{"structuredQuery":\#(Self.group),"partitionCount":"3"}"#))
        #expect(try ProtoValue.read(value) == .reference(expected[0]))
        let token = fields.first { $0.0 == 2 }.map { String(decoding: $0.1, as: UTF8.self) }
        #expect(token != nil)
        let second = try grpc.unary("PartitionQuery") { w in
            w.string(1, grpc.root)
            w.message(2) { q in q.message(2) { s in s.string(2, "g"); s.bool(3, true) } }
            w.int64(3, 3)
            w.string(4, token ?? "")
        }.get()
        #expect(try GRPCTestClient.fields(second).filter { $0.0 == 1 }.count == 1)

        guard case .failure(let status) = grpc.unary("PartitionQuery", { w in
            w.string(1, grpc.root)
            w.message(2) { $0.message(2) { $0.string(2, "g") } }
            w.int64(3, 2)
        }) else {
            Issue.record("a collection query was partitioned")
            return
        }
        #expect(status.code == 3)
        #expect(status.message == "PartitionQuery requires a collection group query (all_descendants must be true).")
    }

    @Test func splitPointsNeverExceedTheCountNorMakeSmallPartitions() {
        for (n, count, expected) in [(0, 5, 0), (127, 5, 0), (128, 5, 0), (129, 5, 1), (383, 3, 2), (1000, 1, 1), (1000, 3, 3), (100_000, 3, 3)] {
            let points = FirestoreService.splitPoints(count: n, partitionCount: Int64(count))
            #expect(points.count == expected, "\(n) documents, \(count)")
            var last = 0
            for p in points {
                #expect(p - last >= FirestoreService.minimumPartitionSize)
                last = p
            }
            #expect(n - last >= (points.isEmpty ? 0 : 1))
        }
        #expect(FirestoreService.splitPoints(count: 1000, partitionCount: .max).count == 7)
    }
}
