import EmulatorHTTP
import EmulatorModel
import EmulatorSupport

extension FirestoreREST {
    func batchGet(_ path: RESTPath, _ body: JSONObject, _ caller: FirestoreCaller) throws(EmulatorError) -> HTTPResponse {
        var names: [DocumentName] = []
        for v in try body.array("documents") {
            guard case .string(let s) = v else { throw body.bad("documents", "TYPE_STRING") }
            names.append(try DocumentName.document(s))
        }
        let (transaction, items, readTime) = try service.batchGet(
            path.database, names: names, mask: try RESTDecoding.mask(body.object("mask", .documentMask)),
            consistency: try RESTDecoding.consistency(body), caller: caller)
        let time = RESTEncoding.timestamp(readTime)
        let database = path.database
        return Self.pacedArray(head: transaction.map { [Self.transactionElement($0)] } ?? [], items: items) { item, _, _, w in
            w.beginObject()
            switch item {
            case .found(let d):
                w.appendKey("found")
                RESTEncoding.writeDocument(d, database: database, to: &w)
            case .missing(let p):
                w.appendKey("missing")
                w.appendString(database.documentName(p))
            }
            w.appendKey("readTime")
            w.appendString(time)
            w.endObject()
        }
    }

    /// `{"transaction":"<base64>"}`, the first element of a batchGet or runQuery answer that began one.
    static func transactionElement(_ transaction: [UInt8]) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.appendKey("transaction")
        w.appendString(Base64.encode(transaction))
        w.endObject()
        return w.bytes
    }

    /// A JSON array answer made as the client reads it, as gRPC paces the same results
    /// (``PacedResponses``): `head`'s elements, then one element per item, encoded about 64 KiB at
    /// a time only when the connection has room (``HTTPStreamBody/init(paced:)``, sent chunked),
    /// each item dropped once encoded. The bytes are those of the whole array written at once.
    static func pacedArray<Item: Sendable>(
        head: [[UInt8]], items: [Item], element: @escaping @Sendable (Item, _ index: Int, _ isLast: Bool, inout JSONWriter) -> Void
    ) -> HTTPResponse {
        pacedArray(head: head, element: element) { PacedResponses(prefix: [$0], items: items, encode: $1) }
    }

    /// As above, the items pulled one at a time (nil after the last, with whether each is the last).
    /// When the items end early (`failure` answers an error once they ended), the array's last
    /// element is the error, `{"error":{"code","message","status"}}` (the shape of a REST error
    /// body), so that the answer does not read as a whole result.
    static func pacedArray<Item: Sendable>(
        head: [[UInt8]], pull: @escaping @Sendable () -> (Item, Bool)?, failure: (@Sendable () -> EmulatorError?)? = nil,
        element: @escaping @Sendable (Item, _ index: Int, _ isLast: Bool, inout JSONWriter) -> Void
    ) -> HTTPResponse {
        pacedArray(head: head, failure: failure, element: element) { PacedResponses(prefix: [$0], pull: pull, encode: $1) }
    }

    private static func pacedArray<Item: Sendable>(
        head: [[UInt8]], failure: (@Sendable () -> EmulatorError?)? = nil,
        element: @escaping @Sendable (Item, _ index: Int, _ isLast: Bool, inout JSONWriter) -> Void,
        responses make: ([UInt8], @escaping @Sendable (Item, Int, Bool) -> [UInt8]) -> PacedResponses<Item>
    ) -> HTTPResponse {
        let opening = [UInt8(ascii: "[")] + Array(head.joined(separator: [UInt8(ascii: ",")]))
        let separated = !head.isEmpty
        let responses = make(opening) { item, index, isLast in
            var w = JSONWriter()
            if index > 0 || separated { w.bytes.append(UInt8(ascii: ",")) }
            element(item, index, isLast, &w)
            return w.bytes
        }
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json; charset=utf-8")
        return HTTPResponse(headers: headers, stream: HTTPStreamBody(paced: {
            let (messages, isLast) = responses.next()
            var piece: [UInt8] = []
            piece.reserveCapacity(messages.reduce(1) { $0 + $1.count })
            for message in messages { piece += message }
            guard isLast else { return .more(piece) }
            if let error = failure?() {
                // Every answer made an element before it (a query's first answer always does).
                piece.append(UInt8(ascii: ","))
                piece += RESTEncoding.error(error)
            }
            piece.append(UInt8(ascii: "]"))
            return .end(piece)
        }))
    }

    func beginTransaction(_ path: RESTPath, _ body: JSONObject) throws(EmulatorError) -> HTTPResponse {
        let id = try service.beginTransaction(path.database, options: try RESTDecoding.transactionOptions(body.object("options", .transactionOptions)))
        var w = JSONWriter()
        w.beginObject()
        w.appendKey("transaction")
        w.appendString(Base64.encode(id))
        w.endObject()
        return Self.ok(w.bytes)
    }

    func rollback(_ path: RESTPath, _ body: JSONObject) throws(EmulatorError) -> HTTPResponse {
        guard let id = try body.bytes("transaction") else { throw .invalidArgument("Missing transaction.") }
        try service.rollback(path.database, transaction: id)
        return Self.ok(Array("{}".utf8))
    }

    static func writes(_ body: JSONObject, database: DatabaseID) throws(EmulatorError) -> [Write] {
        var writes: [Write] = []
        let items = try body.objects("writes", .write)
        writes.reserveCapacity(items.count)
        let names = RESTDecoding.NameParser(database)
        for w in items { writes.append(try RESTDecoding.write(w, names: names)) }
        return writes
    }

    func commit(_ path: RESTPath, _ request: HTTPRequest, _ caller: FirestoreCaller) throws(EmulatorError) -> HTTPResponse {
        let writes: [Write]
        let transaction: [UInt8]?
        if let fast = FastWriteDecoder.commit(request.body, names: RESTDecoding.NameParser(path.database)) {
            (writes, transaction) = fast
        } else {
            let body = try Self.body(request, .commitRequest)
            writes = try Self.writes(body, database: path.database)
            transaction = try body.bytes("transaction")
        }
        let result = try service.commit(path.database, writes: writes, transaction: transaction, caller: caller)
        var w = JSONWriter()
        w.beginObject()
        if !result.writeResults.isEmpty {
            w.appendKey("writeResults")
            RESTEncoding.writeResults(result.writeResults, to: &w)
        }
        w.appendKey("commitTime")
        w.appendString(RESTEncoding.timestamp(result.commitTime))
        w.endObject()
        return Self.ok(w.bytes)
    }

    func batchWrite(_ path: RESTPath, _ body: JSONObject, _ caller: FirestoreCaller) throws(EmulatorError) -> HTTPResponse {
        let writes = try Self.writes(body, database: path.database)
        let outcomes = try service.batchWrite(path.database, writes: writes, caller: caller)
        var w = JSONWriter()
        w.beginObject()
        w.appendKey("writeResults")
        RESTEncoding.writeResults(
            outcomes.map { o in
                switch o {
                case .success(let r): r
                case .failure: WriteResult(updateTime: nil)
                }
            }, to: &w)
        w.appendKey("status")
        w.beginArray()
        for o in outcomes {
            switch o {
            case .success: RESTEncoding.writeStatus(nil, to: &w)
            case .failure(let e): RESTEncoding.writeStatus(e, to: &w)
            }
        }
        w.endArray()
        w.endObject()
        return Self.ok(w.bytes)
    }

    /// runQuery: the documents are read and encoded as the client reads them (``QueryCursor``).
    func runQuery(_ path: RESTPath, _ body: JSONObject, _ caller: FirestoreCaller) throws(EmulatorError) -> HTTPResponse {
        let explain = try Self.explainOptions(body)
        let query = try RESTDecoding.structuredQuery(body.object("structuredQuery", .structuredQuery))
        let cursor = try service.openQuery(
            path.database, parent: path.path, query: query, consistency: try RESTDecoding.consistency(body), caller: caller,
            explain: explain)
        let time = RESTEncoding.timestamp(cursor.readTime)
        let database = path.database
        // An empty result still answers once, with the read time (nil stands for "no document").
        return Self.pacedArray(
            head: cursor.transaction.map { [Self.transactionElement($0)] } ?? [], pull: { cursor.next() }, failure: { cursor.failure }
        ) {
            d, i, isLast, w in
            w.beginObject()
            if let d {
                w.appendKey("document")
                RESTEncoding.writeDocument(d, database: database, to: &w)
            }
            w.appendKey("readTime")
            w.appendString(time)
            if i == 0, case let skipped = cursor.skipped, skipped > 0 {
                w.appendKey("skippedResults")
                w.appendInt(skipped)
            }
            if isLast, let metrics = cursor.explainMetrics {
                w.appendKey("explainMetrics")
                RESTEncoding.writeExplainMetrics(metrics, to: &w)
            }
            w.endObject()
        }
    }

    func runAggregationQuery(_ path: RESTPath, _ body: JSONObject, _ caller: FirestoreCaller) throws(EmulatorError) -> HTTPResponse {
        let explain = try Self.explainOptions(body)
        let query = try RESTDecoding.aggregationQuery(body.object("structuredAggregationQuery", .structuredAggregationQuery))
        let result = try service.runAggregationQuery(
            path.database, parent: path.path, aggregation: query, consistency: try RESTDecoding.consistency(body),
            caller: caller, explain: explain)
        var w = JSONWriter()
        w.beginArray()
        w.beginObject()
        if let t = result.transaction {
            w.appendKey("transaction")
            w.appendString(Base64.encode(t))
        }
        if result.hasResult {
            w.appendKey("result")
            w.beginObject()
            w.appendKey("aggregateFields")
            result.fields.appendFirestoreFieldsJSON(to: &w)
            w.endObject()
        }
        w.appendKey("readTime")
        w.appendString(RESTEncoding.timestamp(result.readTime))
        if let m = result.explainMetrics {
            w.appendKey("explainMetrics")
            RESTEncoding.writeExplainMetrics(m, to: &w)
        }
        w.endObject()
        w.endArray()
        return Self.ok(w.bytes)
    }

    /// `explainOptions` of RunQuery / RunAggregationQuery (`{}` plans without running).
    static func explainOptions(_ body: JSONObject) throws(EmulatorError) -> ExplainOptions? {
        guard let o = try body.object("explainOptions", .explainOptions) else { return nil }
        return ExplainOptions(analyze: try o.bool("analyze") ?? false)
    }
}
