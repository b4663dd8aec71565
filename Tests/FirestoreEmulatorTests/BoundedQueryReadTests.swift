import Dispatch
import Glibc
import EmulatorHTTP
import EmulatorModel
import EmulatorProtobuf
import EmulatorSupport
import Synchronization
import Testing

@testable import EmulatorHTTP2
@testable import FirestoreEmulator

/// The service's other reads of a query go through a ``QueryCursor`` as RunQuery's answers do:
/// a read-write transaction's query (names held, not documents), explain with analyze,
/// aggregations (folded as they read) and a Listen target's first result (sent as it is read).
/// A streamed query whose client stops reading ends, and frees its snapshot.
@Suite struct BoundedQueryReadTests {
    typealias C = QueryCursorTests

    static let byN = #"{"from":[{"collectionId":"big"}],"where":{"fieldFilter":{"field":{"fieldPath":"n"},"op":"EQUAL","value":{"integerValue":"1"}}}}"#

    /// Before: the whole result (1,000 documents of 1 KiB) was decoded and held before the
    /// first answer; now its names are read (to lock or record them) and each document is
    /// decoded again as it is answered.
    @Test(arguments: [ConcurrencyMode.pessimistic, .optimistic])
    func aReadWriteTransactionsQueryHoldsNamesNotDocuments(mode: ConcurrencyMode) throws {
        let probe = QueryCursorProbe()
        let service = try C.big(probe)
        let id: [UInt8]
        do {
            let cursor = try service.openQuery(
                C.db, parent: ResourcePath(), query: C.query(Self.byN),
                consistency: .newTransaction(.readWrite(retrying: nil, concurrency: mode)))
            id = try #require(cursor.transaction)
            var n = 0
            while let (document, _) = cursor.next() { if document != nil { n += 1 } }
            #expect(n == C.bigCount / 3)
        }
        #expect(probe.peakHeld <= 2, "\(probe.peakHeld) decoded documents held at once")
        #expect(probe.decoded >= 2 * C.bigCount / 3)
        #expect(probe.open == 0 && probe.held == 0)
        // What the query read was recorded: a document of its result changed since aborts the commit.
        _ = try service.commit(C.db, writes: [
            Write(.update(try DocumentName.document(C.root + "/big/d0001"), fields: ["n": .integer(1), "x": .integer(1)], mask: nil))
        ])
        #expect(throws: EmulatorError.self) { _ = try service.commit(C.db, writes: [], transaction: id) }
    }

    /// A pessimistic transaction's query locks every document of its result.
    @Test func aPessimisticQueryLocksItsResult() throws {
        let probe = QueryCursorProbe()
        let service = try C.big(probe)
        let cursor = try service.openQuery(
            C.db, parent: ResourcePath(), query: C.query(#"{"from":[{"collectionId":"big"}],"limit":5}"#),
            consistency: .newTransaction(.readWrite(retrying: nil, concurrency: .pessimistic)))
        let documents = cursor.collect()
        #expect(documents.count == 5)
        let id = try #require(cursor.transaction)
        let owner = try service.transactions.entry(id, database: C.db, now: service.store.currentTime()).owner
        let locks = service.transactions.snapshot()
        for d in documents { #expect(locks.holds(owner, LockTable.Key(database: C.db, path: d.path)) == .shared) }
        #expect(locks.holds(owner, LockTable.Key(database: C.db, path: try ResourcePath(parsing: "big/d0005"))) == nil)
    }

    /// explain with analyze: the documents stream as RunQuery's do; the statistics go with the
    /// last answer. Before: the result was read whole first.
    @Test func explainAnalyzeReadsAsItAnswers() throws {
        let probe = QueryCursorProbe()
        let service = try C.big(probe)
        do {
            let cursor = try service.openQuery(
                C.db, parent: ResourcePath(), query: C.query(#"{"from":[{"collectionId":"big"}],"offset":10}"#),
                explain: ExplainOptions(analyze: true))
            var n = 0
            var lastSeen = false
            while let (document, isLast) = cursor.next() {
                if document != nil { n += 1 }
                if n == 1 { #expect(probe.decoded < 300) }
                lastSeen = isLast
            }
            #expect(lastSeen && n == C.bigCount - 10)
            let stats = try #require(cursor.explainMetrics?.executionStats)
            #expect(stats.resultsReturned == n)
            #expect(stats.indexEntriesScanned == C.bigCount)
            #expect(stats.executionNanoseconds > 0)
            let plan = try service.openQuery(
                C.db, parent: ResourcePath(), query: C.query(#"{"from":[{"collectionId":"big"}]}"#), explain: ExplainOptions(analyze: false))
            #expect(plan.collect().isEmpty)
            #expect(plan.explainMetrics?.executionStats == nil && plan.explainMetrics?.indexesUsed.isEmpty == false)
        }
        #expect(probe.peakHeld <= 2, "\(probe.peakHeld)")
        #expect(probe.open == 0 && probe.held == 0)
    }

    /// Aggregations fold each document as it is read; counts with `up_to` stop reading there.
    /// Before: the result was read whole (outside any cursor).
    @Test func aggregationsFoldAsTheyRead() throws {
        let probe = QueryCursorProbe()
        let service = try C.big(probe)
        let n = FieldPath(["n"])
        let all = AggregationQuery(
            query: try C.query(#"{"from":[{"collectionId":"big"}]}"#),
            aggregations: [.init(.count(upTo: nil)), .init(.sum(n)), .init(.average(n), alias: "mean")])
        let result = try service.runAggregationQuery(C.db, parent: ResourcePath(), aggregation: all)
        #expect(result.fields["field_1"] == .integer(Int64(C.bigCount)))
        #expect(result.fields["field_2"] == .integer(Int64(C.bigCount)))
        #expect(result.fields["mean"] == .double(1))
        #expect(probe.decoded == C.bigCount)
        #expect(probe.peakHeld <= 2, "\(probe.peakHeld)")
        let upTo = AggregationQuery(query: try C.query(Self.byN), aggregations: [.init(.count(upTo: 10)), .init(.count(upTo: 7))])
        let counted = try service.runAggregationQuery(C.db, parent: ResourcePath(), aggregation: upTo)
        #expect(counted.fields["field_1"] == .integer(10) && counted.fields["field_2"] == .integer(7))
        #expect(probe.decoded <= C.bigCount + 30, "\(probe.decoded - C.bigCount) decoded for count(up_to: 10)")
        #expect(probe.open == 0 && probe.held == 0)
    }

    /// Folding as it reads answers what the whole result answered, with and without indexes.
    @Test(arguments: [true, false])
    func aggregationsAnswerWhatTheWholeResultAnswers(useIndexes: Bool) throws {
        let service = FirestoreService(store: DocumentStore(), useIndexes: useIndexes)
        try C.seed(service)
        let i = FieldPath(["i"])
        let n = FieldPath(["n"])
        var nonZero = 0
        for (parent, json) in C.queries {
            let query = try C.query(json)
            let parentPath = try ResourcePath(parsing: parent)
            for aggregations: [AggregationQuery.Aggregation] in [
                [.init(.count(upTo: nil)), .init(.count(upTo: 3))], [.init(.sum(i)), .init(.average(n))], [.init(.count(upTo: nil)), .init(.sum(n))],
            ] {
                let aggregation = AggregationQuery(query: query, aggregations: aggregations)
                let engine = try QueryEngine(query, database: C.db, aggregating: aggregation.aggregatedFields)
                let (documents, _, _) = try service.window(C.db, parent: parentPath, engine: engine, resolved: ResolvedRead(time: nil), caller: .owner)
                let expected = aggregation.evaluate(documents, aliases: try aggregation.aliases())
                let folded = try service.runAggregationQuery(C.db, parent: parentPath, aggregation: aggregation)
                #expect(folded.fields == expected, "\(parent) \(json) \(aggregations)")
                if expected.contains(where: { $0.value != .integer(0) && $0.value != .null }) { nonZero += 1 }
            }
        }
        #expect(nonZero > 60)
    }

    /// A Listen target's first result is sent as it is read: at most two decoded documents held.
    /// Before: the whole result was read (outside any cursor) and then sent. (The shape an
    /// ordered index answers, `orderBy f limit n`, is still read whole.)
    @Test(arguments: [#"{"from":[{"collectionId":"big"}]}"#, #"{"from":[{"collectionId":"big"}],"orderBy":[{"field":{"fieldPath":"n"}},{"field":{"fieldPath":"pad"}}],"limit":2000}"#])
    func aListenTargetsFirstResultIsSentAsItIsRead(query: String) throws {
        let probe = QueryCursorProbe()
        let service = try C.big(probe)
        let sink = ListenBackedUpTests.Sink()
        let stream = ListenStream(service: service, caller: .owner, sink: sink, startsWorker: false)
        defer { stream.cancel() }
        let target = IncrementalListenTests.queryTarget(1, try C.query(query))
        stream.receive { () throws(EmulatorError) in ListenRequest(database: C.db.name, addTarget: target) }
        let sent = ListenBackedUpTests.changedPaths(sink.all, target: 1).count
        #expect(sent == (query.contains("limit") ? 2000 : C.bigCount))
        #expect(probe.decoded >= sent)
        #expect(probe.peakHeld <= 2, "\(probe.peakHeld)")
        #expect(probe.open == 0 && probe.held == 0)
    }

    /// Waits (up to 20 s) without holding a thread of the shared pool: the Listen workers of
    /// tests running beside this one need those threads.
    static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = MonotonicClock.nanoseconds() + 20_000_000_000
        while !condition(), MonotonicClock.nanoseconds() < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }

    /// A REST client that opens runQuery and stops reading: after the idle timeout the cursor
    /// frees its snapshot and documents; the answer ends with an error element when the client reads.
    @Test func aStalledRESTQueryEndsWithDeadlineExceeded() async throws {
        let probe = QueryCursorProbe()
        let service = try C.big(probe, queryIdleTimeout: 200_000)
        let stream = try C().restQuery(service, #"{"from":[{"collectionId":"big"}]}"#)
        let reader = C.Reader()
        stream.start(reader)
        #expect(probe.open == 1)
        try await Self.waitUntil { probe.expired == 1 }
        #expect(probe.expired == 1)
        #expect(probe.held == 0)
        while reader.readOne() {}
        #expect(reader.finished)
        let body = reader.body
        let endsWithTheError = body.hasSuffix(
            #"{"error":{"code":504,"message":"The query's client read no results for 200 ms; the query was ended.","status":"DEADLINE_EXCEEDED"}}]"#)
        #expect(endsWithTheError, "\(body.suffix(200))")
        #expect(probe.decoded < C.bigCount)
    }

    /// The same over gRPC: the call ends with DEADLINE_EXCEEDED once the client reads again.
    @Test func aStalledGRPCQueryEndsWithDeadlineExceeded() async throws {
        let probe = QueryCursorProbe()
        let streamed = StreamedQueryTests()
        let (connection, out, peer0) = try streamed.connect(try C.big(probe, queryIdleTimeout: 200_000))
        var peer = peer0
        connection.received(peer.call(1, "RunQuery") { w in
            w.string(1, C.root)
            w.message(2) { $0.message(2) { $0.string(2, "big") } }
        })
        try peer.read(out.take())
        try await Self.waitUntil { probe.expired == 1 }
        #expect(probe.expired == 1 && probe.held == 0)
        let messages = try streamed.readAll(connection, out, &peer, stream: 1)
        #expect(peer.status == "4")
        #expect(messages.count < C.bigCount)
    }

    /// A client that reads steadily, however slowly, is never cut.
    @Test func aSlowButSteadyReaderIsNotCut() throws {
        let probe = QueryCursorProbe()
        // 10 s: far above the 50 ms between reads, however slowly the test machine runs them.
        let service = try C.big(probe, queryIdleTimeout: 10_000_000)
        let stream = try C().restQuery(service, #"{"from":[{"collectionId":"big"}]}"#)
        let reader = C.Reader()
        stream.start(reader)
        for _ in 0..<30 {
            usleep(50_000)  // keeps its thread: a reader starved of one would look idle
            _ = reader.readOne()
        }
        while reader.readOne() {}
        #expect(reader.finished)
        #expect(probe.expired == 0)
        let hasError = reader.body.contains(#""error""#)
        #expect(!hasError)
        #expect(probe.decoded == C.bigCount)
    }
}
