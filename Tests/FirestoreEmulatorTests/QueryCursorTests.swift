import EmulatorHTTP
import EmulatorModel
import EmulatorProtobuf
import EmulatorSupport
import Synchronization
import Testing

@testable import EmulatorHTTP2
@testable import FirestoreEmulator

/// RunQuery through a ``QueryCursor``: a query ordered by name is read a document at a time as
/// the client reads (REST and gRPC), with the answers of the whole-result path.
@Suite struct QueryCursorTests {
    static let db = DatabaseID(project: "demo", database: "(default)")
    static let root = "projects/demo/databases/(default)/documents"

    static func ref(_ path: String) -> String { #"{"referenceValue":"\#(root)/\#(path)"}"# }

    static func query(_ json: String) throws -> StructuredQuery {
        try RESTDecoding.structuredQuery(FirestoreREST.object(Array(json.utf8), .structuredQuery))
    }

    static func write(_ service: FirestoreService, _ docs: [(String, ValueMap)]) throws {
        for start in stride(from: 0, to: docs.count, by: 400) {
            let writes = try docs[start..<min(start + 400, docs.count)].map { path, fields in
                Write(.update(try DocumentName.document(root + "/" + path), fields: fields, mask: nil))
            }
            _ = try service.commit(db, writes: writes)
        }
    }

    // MARK: Same answers

    /// Ids that key order and name order place differently (numeric ids), ids around `__id`,
    /// subcollections at several depths, a parent that does not exist.
    static func seed(_ service: FirestoreService) throws {
        var docs: [(String, ValueMap)] = []
        let ids = (0..<60).map { "d" + String(String(100 + $0).dropFirst()) }
            + ["__id5__", "__id-3__", "__id12__", "__id100__", "__id", "__idx", "A1", "_x", "zz", "Zeta"]
        for (i, id) in ids.enumerated() {
            docs.append(("c/\(id)", ["n": .integer(Int64(i % 7)), "s": .string("v\(i % 3)"), "i": .integer(Int64(i))]))
        }
        for (i, path) in [
            "c/d001/sub/x1", "c/d001/sub/x2", "c/d001/sub/__id9__", "c/__id5__/sub/y", "c/__id12__/sub/__id1__",
            "c/d002/sub/x/sub/w", "g/__id7__/sub/z", "g/a/sub/z", "m/ghost/sub/q", "c/d003/other/o", "sub/top",
            "c/d001/__id3__/k",
        ].enumerated() {
            docs.append((path, ["n": .integer(Int64(i % 4)), "i": .integer(Int64(i))]))
        }
        try write(service, docs)
    }

    static let queries: [(parent: String, query: String)] = {
        let c = #""from":[{"collectionId":"c"}]"#
        let sub = #""from":[{"collectionId":"sub","allDescendants":true}]"#
        let all = #""from":[{"allDescendants":true}]"#
        let desc = #""orderBy":[{"field":{"fieldPath":"__name__"},"direction":"DESCENDING"}]"#
        let n3 = #""where":{"fieldFilter":{"field":{"fieldPath":"n"},"op":"EQUAL","value":{"integerValue":"3"}}}"#
        let n1 = #""where":{"fieldFilter":{"field":{"fieldPath":"n"},"op":"EQUAL","value":{"integerValue":"1"}}}"#
        let or = #""where":{"compositeFilter":{"op":"OR","filters":[\#(n3.dropFirst(8)),{"fieldFilter":{"field":{"fieldPath":"s"},"op":"EQUAL","value":{"stringValue":"v1"}}}]}}"#
        let nameAfter = #""where":{"fieldFilter":{"field":{"fieldPath":"__name__"},"op":"GREATER_THAN","value":\#(ref("c/d040"))}}"#
        var out: [(String, String)] = []
        for q in [
            c, "\(c),\(desc)", "\(c),\(n3)", "\(c),\(n3),\(desc),\"limit\":5,\"offset\":2", "\(c),\(nameAfter)", "\(c),\(or)",
            #"\#(c),"startAt":{"values":[\#(ref("c/d010"))],"before":true},"endAt":{"values":[\#(ref("c/d020"))],"before":false}"#,
            #"\#(c),\#(desc),"startAt":{"values":[\#(ref("c/d020"))],"before":false},"endAt":{"values":[\#(ref("c/__id12__"))],"before":true}"#,
            #"\#(c),"endAt":{"values":[\#(ref("c/__id12__"))]}"#,
            #"\#(c),"startAt":{"values":[\#(ref("c/__id12__"))],"before":false},"limit":4"#,
            #"\#(c),\#(desc),"startAt":{"values":[\#(ref("c/__id12__"))],"before":true}"#,
            #"\#(c),\#(desc),"startAt":{"values":[\#(ref("c/d030"))],"before":true},"limit":5"#,
            #"\#(c),"startAt":{"values":[\#(ref("c/d0305"))],"before":true},"limit":5"#,
            #"\#(c),"startAt":{"values":[\#(ref("c/d055"))],"before":false}"#,
            "\(c),\"offset\":7,\"limit\":0", "\(c),\"limit\":3", "\(c),\"offset\":500", "\(c),\"offset\":3",
            #"\#(c),"select":{"fields":[{"fieldPath":"n"}]},"limit":4"#,
            sub, "\(sub),\(desc),\"limit\":4", "\(sub),\(n1)", "\(sub),\"offset\":2", all, "\(all),\(desc),\"offset\":1",
            // Sorted on a field: sort keys first, then the window (or an ordered index).
            #"\#(c),"orderBy":[{"field":{"fieldPath":"n"}}],"limit":9"#,
            #"\#(c),"orderBy":[{"field":{"fieldPath":"n"},"direction":"DESCENDING"}],"offset":3"#,
            #"\#(c),"where":{"fieldFilter":{"field":{"fieldPath":"n"},"op":"GREATER_THAN","value":{"integerValue":"2"}}}"#,
            #"\#(c),\#(n3),"orderBy":[{"field":{"fieldPath":"i"},"direction":"DESCENDING"}],"offset":1"#,
            #"\#(c),"orderBy":[{"field":{"fieldPath":"s"}},{"field":{"fieldPath":"n"},"direction":"DESCENDING"}],"offset":2,"limit":200"#,
            #"\#(c),"orderBy":[{"field":{"fieldPath":"s"}},{"field":{"fieldPath":"n"}}],"limit":7,"select":{"fields":[{"fieldPath":"s"}]}"#,
            #"\#(c),"orderBy":[{"field":{"fieldPath":"n"}}],"startAt":{"values":[{"integerValue":"2"}],"before":false},"endAt":{"values":[{"integerValue":"5"}]}"#,
            #"\#(sub),"orderBy":[{"field":{"fieldPath":"n"}}],"offset":1,"limit":3"#,
            #"\#(all),"orderBy":[{"field":{"fieldPath":"n"},"direction":"DESCENDING"}]"#,
        ] {
            out.append(("", "{\(q)}"))
        }
        for q in [sub, all, "\(sub),\(desc)", "\(all),\(n1)"] { out.append(("c/d001", "{\(q)}")) }
        out.append(("c/d002", "{\(all)}"))
        out.append(("m/ghost", "{\(sub)}"))
        return out
    }()

    /// Every query answers through the cursor exactly what the whole-result path answers, with
    /// and without indexes, at head and at an earlier read time.
    @Test(arguments: [true, false])
    func theCursorAnswersWhatTheWholeResultAnswers(useIndexes: Bool) throws {
        let service = FirestoreService(store: DocumentStore(), useIndexes: useIndexes)
        try Self.seed(service)
        let before = service.store.currentTime()
        // Later changes a read at `before` must not see.
        _ = try service.commit(Self.db, writes: [
            Write(.delete(try DocumentName.document(Self.root + "/c/d010"))),
            Write(.delete(try DocumentName.document(Self.root + "/c/__id5__"))),
            Write(.update(try DocumentName.document(Self.root + "/c/__id7__"), fields: ["n": .integer(3)], mask: nil)),
            Write(.update(try DocumentName.document(Self.root + "/g/__id2__/sub/n"), fields: ["n": .integer(1)], mask: nil)),
        ])
        var nonEmpty = 0
        for consistency in [ReadConsistency.latest, .readTime(before)] {
            for (parent, json) in Self.queries {
                let query = try Self.query(json)
                let parentPath = try ResourcePath(parsing: parent)
                let whole = try service.runQuery(Self.db, parent: parentPath, query: query, consistency: consistency)
                let cursor = try service.openQuery(Self.db, parent: parentPath, query: query, consistency: consistency)
                let documents = cursor.collect()
                #expect(documents == whole.documents, "\(parent) \(json) \(consistency)")
                #expect(cursor.skipped == whole.skipped, "\(parent) \(json) \(consistency)")
                #expect(cursor.failure == nil)
                if case .readTime(let t) = consistency { #expect(cursor.readTime == t) }
                if !documents.isEmpty { nonEmpty += 1 }
            }
        }
        #expect(nonEmpty > 40)
    }

    /// Numeric ids come first in name order (by their number), though not in key order.
    @Test func numericIDsComeFirstByTheirNumber() throws {
        let service = FirestoreService(store: DocumentStore())
        try Self.seed(service)
        let c = try Self.query(#"{"from":[{"collectionId":"c"}],"limit":6}"#)
        let ids = try service.openQuery(Self.db, parent: ResourcePath(), query: c).collect().map { $0.path.lastSegment ?? "" }
        #expect(ids == ["__id-3__", "__id5__", "__id12__", "__id100__", "A1", "Zeta"])
        let group = try service.openQuery(
            Self.db, parent: ResourcePath(), query: Self.query(#"{"from":[{"collectionId":"sub","allDescendants":true}]}"#)
        ).collect().map(\.path.description)
        #expect(group.prefix(3) == ["c/__id5__/sub/y", "c/__id12__/sub/__id1__", "c/d001/sub/__id9__"])
    }

    /// A query in a transaction still answers inside it (a read-write transaction's result is
    /// locked first, so it is read whole); a read-only one reads at its time.
    @Test func queriesInTransactionsStillWork() throws {
        let service = FirestoreService(store: DocumentStore())
        try Self.seed(service)
        let query = try Self.query(#"{"from":[{"collectionId":"c"}],"limit":4}"#)
        let first = try service.openQuery(Self.db, parent: ResourcePath(), query: query, consistency: .newTransaction(.readWrite(retrying: nil)))
        let id = try #require(first.transaction)
        #expect(first.collect().count == 4)
        let again = try service.openQuery(Self.db, parent: ResourcePath(), query: query, consistency: .transaction(id))
        #expect(again.collect().count == 4)
        _ = try service.commit(Self.db, writes: [], transaction: id)
        let readOnly = try service.openQuery(Self.db, parent: ResourcePath(), query: query, consistency: .newTransaction(.readOnly(readTime: nil)))
        #expect(readOnly.transaction != nil)
        #expect(readOnly.collect().map { $0.path.lastSegment ?? "" } == ["__id-3__", "__id5__", "__id12__", "__id100__"])
    }

    // MARK: Bounded memory

    static let bigCount = 3000

    /// 3,000 documents of about 1 KiB.
    static func big(_ probe: QueryCursorProbe, queryIdleTimeout: Int64 = 300_000_000) throws -> FirestoreService {
        let service = FirestoreService(store: DocumentStore(), cursorProbe: probe, queryIdleTimeout: queryIdleTimeout)
        let pad = String(repeating: "x", count: 1000)
        var docs: [(String, ValueMap)] = []
        for i in 0..<bigCount {
            let id = "d" + String(String(10000 + i).dropFirst())
            let fields: ValueMap = ["pad": .string(pad), "n": .integer(Int64(i % 3))]
            docs.append(("big/" + id, fields))
        }
        try write(service, docs)
        return service
    }

    /// A REST client that reads only when told, and can go away.
    final class Reader: HTTPStreamWriter {
        struct State {
            var bytes = 0
            var body: [UInt8] = []
            var finished = false
            var gone = false
            var resume: (@Sendable () -> Void)?
        }

        let state = Mutex(State())

        func write(_ bytes: [UInt8]) -> Bool {
            state.withLock { s in
                s.bytes += bytes.count
                s.body += bytes
                return !s.finished && !s.gone
            }
        }

        func finish() { state.withLock { $0.finished = true } }
        var isOpen: Bool { state.withLock { !$0.finished && !$0.gone } }
        func onClose(_ handler: @escaping @Sendable () -> Void) {}

        func deferUntilRoom(_ resume: @escaping @Sendable () -> Void) -> Bool {
            state.withLock { $0.resume = $0.gone ? nil : resume }
            return true
        }

        /// Takes the next piece.
        func readOne() -> Bool {
            guard let resume = state.withLock({ s in defer { s.resume = nil }; return s.resume }) else { return false }
            resume()
            return true
        }

        /// Goes away: what the connection does when its peer closes (the waiting producer is dropped).
        func disconnect() { state.withLock { s in s.gone = true; s.resume = nil } }
        var finished: Bool { state.withLock { $0.finished } }
        var body: String { state.withLock { String(decoding: $0.body, as: UTF8.self) } }
    }

    func restQuery(_ service: FirestoreService, _ structuredQuery: String) throws -> HTTPStreamBody {
        let client = FirestoreTestClient(service: service)
        let response = client.emulator.router.respond(to: HTTPRequest(
            method: .post, target: "/v1/\(Self.root):runQuery", headers: HTTPHeaders([("Authorization", "Bearer owner")]),
            body: Array(#"{"structuredQuery":\#(structuredQuery)}"#.utf8)))
        guard case .stream(let stream) = response.body else { throw EmulatorError.internal("not streamed") }
        return stream
    }

    /// A slow REST reader: documents are decoded as it reads, never more than two held at once;
    /// a reader that stops holds one batch's worth decoded and the cursor, until it goes away.
    /// (The equality filter reads its third of the documents through an index.)
    @Test(arguments: [
        (#"{"from":[{"collectionId":"big"}]}"#, bigCount),
        (#"{"from":[{"collectionId":"big"}],"where":{"fieldFilter":{"field":{"fieldPath":"n"},"op":"EQUAL","value":{"integerValue":"1"}}},"offset":10}"#, bigCount / 3),
        (#"{"from":[{"collectionId":"big","allDescendants":true}],"orderBy":[{"field":{"fieldPath":"__name__"},"direction":"DESCENDING"}]}"#, bigCount),
    ])
    func aSlowRESTReaderMakesTheCursorDecodeAsItReads(query: String, decodes: Int) throws {
        let probe = QueryCursorProbe()
        let service = try Self.big(probe)
        do {
            let stream = try restQuery(service, query)
            let reader = Reader()
            stream.start(reader)
            // Before: all 3,000 documents were decoded (and held) before the first byte went out.
            let decoded = probe.decoded
            #expect(decoded > 0 && decoded < 300, "\(decoded) documents decoded for a reader that took nothing")
            #expect(probe.open == 1)
            var steps = 0
            while steps < 10, reader.readOne() { steps += 1 }
            #expect(probe.decoded > decoded && probe.decoded < decodes, "\(probe.decoded)")
            while reader.readOne() {}
            #expect(reader.finished)
            #expect(probe.held == 0)
        }
        #expect(probe.peakHeld <= 2, "\(probe.peakHeld) decoded documents held at once")
        #expect(probe.decoded == decodes)
        #expect(probe.open == 0)
    }

    /// A query sorted on a field needs every match before its first answer, but holds their
    /// sort keys, not the documents: it decodes each twice (to rank it, then to answer it).
    @Test func aSortedQueryHoldsSortKeysNotDocuments() throws {
        let probe = QueryCursorProbe()
        let service = try Self.big(probe)
        do {
            let stream = try restQuery(service, #"{"from":[{"collectionId":"big"}],"orderBy":[{"field":{"fieldPath":"n"}}],"offset":5}"#)
            let reader = Reader()
            stream.start(reader)
            #expect(probe.decoded > Self.bigCount && probe.decoded < Self.bigCount + 300, "\(probe.decoded)")
            while reader.readOne() {}
            #expect(reader.finished)
        }
        #expect(probe.peakHeld <= 2, "\(probe.peakHeld) decoded documents held at once")
        #expect(probe.decoded == 2 * Self.bigCount - 5)
        #expect(probe.open == 0 && probe.held == 0)
    }

    /// `orderBy f limit n` answers from the ordered index, reading its window whole, only for a
    /// small window; a large one goes through the sorted scan and holds sort keys instead.
    @Test(arguments: [(10, 10), (2_500, 2)])
    func anOrderedIndexWindowIsReadWholeOnlyWhenSmall(limit: Int, mostHeld: Int) throws {
        let probe = QueryCursorProbe()
        let service = try Self.big(probe)
        var names: [String] = []
        do {
            let stream = try restQuery(service, #"{"from":[{"collectionId":"big"}],"orderBy":[{"field":{"fieldPath":"n"},"direction":"DESCENDING"}],"limit":\#(limit)}"#)
            let reader = Reader()
            stream.start(reader)
            while reader.readOne() {}
            #expect(reader.finished)
            names = reader.body.split(separator: "\"name\"").dropFirst().map { String($0.prefix(80)) }
        }
        #expect(names.count == limit)
        // n = 2 first, then names descending: d2999, d2996, ...
        #expect(names.first?.contains("big/d2999") == true, "\(names.first ?? "")")
        #expect(probe.peakHeld <= mostHeld, "\(probe.peakHeld) decoded documents held at once")
        #expect(probe.open == 0 && probe.held == 0)
    }

    /// A REST client that goes away mid-answer frees the cursor (and its snapshot).
    @Test func aRESTClientThatGoesAwayFreesTheCursor() throws {
        let probe = QueryCursorProbe()
        let service = try Self.big(probe)
        do {
            let stream = try restQuery(service, #"{"from":[{"collectionId":"big"}]}"#)
            let reader = Reader()
            stream.start(reader)
            #expect(reader.readOne())
            #expect(probe.open == 1)
            reader.disconnect()
        }
        #expect(probe.open == 0)
        #expect(probe.held == 0)
        #expect(probe.decoded < 300)
    }

    /// The same over gRPC: the connection asks for more as the client opens its windows; a
    /// connection that closes mid-answer frees the cursor.
    @Test func aGRPCClientIsAnsweredAsItReadsAndOneThatGoesAwayFreesTheCursor() throws {
        let probe = QueryCursorProbe()
        let streamed = StreamedQueryTests()
        var decodedWhileUnread = 0
        do {
            let (connection, out, peer0) = try streamed.connect(try Self.big(probe))
            var peer = peer0
            connection.received(peer.call(1, "RunQuery") { w in
                w.string(1, Self.root)
                w.message(2) { $0.message(2) { $0.string(2, "big") } }
            })
            try peer.read(out.take())
            decodedWhileUnread = probe.decoded
            #expect(probe.open == 1)
            let messages = try streamed.readAll(connection, out, &peer, stream: 1)
            #expect(peer.status == "0")
            #expect(messages.count == Self.bigCount)

            connection.received(peer.call(3, "RunQuery") { w in
                w.string(1, Self.root)
                w.message(2) { $0.message(2) { $0.string(2, "big") } }
            })
            try peer.read(out.take())
            #expect(probe.open == 1)
            connection.closed()
            #expect(probe.open == 0)
        }
        // The 65,535-byte initial window takes about 60 documents; the connection asks for more
        // only once it has sent them.
        #expect(decodedWhileUnread > 0 && decodedWhileUnread < 300, "\(decodedWhileUnread)")
        #expect(probe.decoded < 2 * Self.bigCount)
        #expect(probe.peakHeld <= 2)
        #expect(probe.open == 0)
    }

    /// An empty answer is still one element with the read time, and the offset's count is told.
    @Test func emptyAnswersAndSkippedCounts() throws {
        let service = FirestoreService(store: DocumentStore())
        try Self.seed(service)
        let client = FirestoreTestClient(service: service)
        let none = client.post(":runQuery", #"{"structuredQuery":{"from":[{"collectionId":"c"}],"offset":1000}}"#)
        guard case .array(let items) = none.json else {
            Issue.record("not an array: \(none.text)")
            return
        }
        #expect(items.count == 1)
        #expect(items.first?[member: "document"] == nil)
        #expect(items.first?[member: "skippedResults"] == .int(70))
        #expect(items.first?[member: "readTime"] != nil)
        let some = client.post(":runQuery", #"{"structuredQuery":{"from":[{"collectionId":"c"}],"offset":68}}"#)
        guard case .array(let two) = some.json else {
            Issue.record("not an array: \(some.text)")
            return
        }
        #expect(two.count == 2)
        #expect(two.first?[member: "skippedResults"] == .int(68))
        #expect(two.last?[member: "skippedResults"] == nil)
    }
}
