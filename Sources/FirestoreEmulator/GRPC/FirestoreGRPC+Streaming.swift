import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf

extension FirestoreGRPC {
    /// BatchGetDocuments: every document read at one read time, the responses made as the client
    /// reads them.
    func batchGetDocuments(
        _ request: ProtoReader, _ caller: FirestoreCaller
    ) throws(EmulatorError) -> @Sendable () -> GRPCProducerStep {
        var r = request
        var database = ""
        var names: [DocumentName] = []
        var mask: [FieldPath]?
        var consistency = ProtoDecoding.Consistency()
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); database = try r.string()
            case 2: try r.expect(w, .lengthDelimited, f); names.append(try DocumentName.document(r.string()))
            case 3: try r.expect(w, .lengthDelimited, f); mask = try ProtoDecoding.mask(r.message())
            case 4: try r.expect(w, .lengthDelimited, f); consistency.selected.append(.transaction(try r.bytes()))
            case 5: try r.expect(w, .lengthDelimited, f); consistency.selected.append(.newTransaction(try ProtoDecoding.transactionOptions(r.message())))
            case 7: try r.expect(w, .lengthDelimited, f); consistency.selected.append(.readTime(try ProtoValue.readMicroseconds(r.message())))
            default: try r.skip(w)
            }
        }
        let db = try ProtoDecoding.database(database)
        let (transaction, items, readTime) = try service.batchGet(db, names: names, mask: mask, consistency: try consistency.value, caller: caller)
        var prefix: [[UInt8]] = []
        if let transaction { prefix.append(Self.encode { $0.bytes(3, transaction) }) }
        let responses = PacedResponses(prefix: prefix, items: items) { item, _, _ in
            Self.encode { w in
                switch item {
                case .found(let d): w.message(1) { Self.write(d, database: db, to: &$0) }
                case .missing(let p): w.string(2, db.documentName(p))
                }
                ProtoValue.writeTimestamp(4, microseconds: readTime, to: &w)
            }
        }
        return { responses.step() }
    }

    /// Parent, query message, consistency and explain options of RunQuery / RunAggregationQuery;
    /// the field numbers of transaction, new_transaction, read_time and explain_options differ
    /// between them.
    func queryRequest(
        _ request: ProtoReader, selectors: (transaction: Int, newTransaction: Int, readTime: Int, explain: Int)
    ) throws(EmulatorError) -> (DocumentName, ProtoReader?, ReadConsistency, ExplainOptions?) {
        var r = request
        var parent = ""
        var query: ProtoReader?
        var explain: ExplainOptions?
        var consistency = ProtoDecoding.Consistency()
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); parent = try r.string()
            case 2: try r.expect(w, .lengthDelimited, f); query = try r.message()
            case selectors.transaction: try r.expect(w, .lengthDelimited, f); consistency.selected.append(.transaction(try r.bytes()))
            case selectors.newTransaction:
                try r.expect(w, .lengthDelimited, f)
                consistency.selected.append(.newTransaction(try ProtoDecoding.transactionOptions(r.message())))
            case selectors.readTime:
                try r.expect(w, .lengthDelimited, f)
                consistency.selected.append(.readTime(try ProtoValue.readMicroseconds(r.message())))
            case selectors.explain:
                try r.expect(w, .lengthDelimited, f)
                explain = try ProtoDecoding.explainOptions(r.message())
            default: try r.skip(w)
            }
        }
        return (try DocumentName.parent(parent), query, try consistency.value, explain)
    }

    /// RunQuery: rules, consistency and the read time are settled (and the result locked, in a
    /// transaction) before the first response; the documents are then read and the responses
    /// made as the client reads them (``QueryCursor``).
    func runQuery(_ request: ProtoReader, _ caller: FirestoreCaller) throws(EmulatorError) -> @Sendable () -> GRPCProducerStep {
        let (parent, q, consistency, explain) = try queryRequest(request, selectors: (5, 6, 7, 10))
        guard let q else { throw .invalidArgument("RunQuery requires a structured_query.") }
        let query = try ProtoDecoding.structuredQuery(q)
        let db = DatabaseID(project: parent.projectID, database: parent.databaseID)
        let cursor = try service.openQuery(
            db, parent: parent.path, query: query, consistency: consistency, caller: caller, explain: explain)
        var prefix: [[UInt8]] = []
        if let t = cursor.transaction { prefix.append(Self.encode { $0.bytes(2, t) }) }
        let readTime = cursor.readTime
        // An empty result still answers once, with the read time (nil stands for "no document").
        let responses = PacedResponses(
            prefix: prefix, pull: { cursor.next() }, status: { cursor.failure.map(Self.status) ?? .ok }
        ) { d, i, isLast in
            Self.encode { w in
                if let d { w.message(1) { Self.write(d, database: db, to: &$0) } }
                ProtoValue.writeTimestamp(3, microseconds: readTime, to: &w)
                if i == 0, case let skipped = cursor.skipped, skipped > 0 { w.int32(4, Int32(clamping: skipped)) }
                if isLast, let metrics = cursor.explainMetrics { w.message(11) { metrics.write(to: &$0) } }
            }
        }
        return { responses.step() }
    }

    func runAggregationQuery(_ request: ProtoReader, _ caller: FirestoreCaller, _ send: (ProtoWriter) -> Void) throws(EmulatorError) {
        let (parent, q, consistency, explain) = try queryRequest(request, selectors: (4, 5, 6, 8))
        guard let q else { throw .invalidArgument("RunAggregationQuery requires a structured_aggregation_query.") }
        let aggregation = try ProtoDecoding.aggregationQuery(q)
        let db = DatabaseID(project: parent.projectID, database: parent.databaseID)
        let result = try service.runAggregationQuery(
            db, parent: parent.path, aggregation: aggregation, consistency: consistency, caller: caller, explain: explain)
        var w = ProtoWriter()
        if result.hasResult { w.message(1) { ProtoValue.writeFields(result.fields, field: 2, to: &$0) } }
        if let t = result.transaction { w.bytes(2, t) }
        ProtoValue.writeTimestamp(3, microseconds: result.readTime, to: &w)
        if let m = result.explainMetrics { w.message(10) { m.write(to: &$0) } }
        send(w)
    }
}
