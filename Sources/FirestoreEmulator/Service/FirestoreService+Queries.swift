package import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import Synchronization

/// The answer to RunQuery: the documents in order, the offset's skipped count and the read time.
package struct QueryResult: Sendable, Equatable {
    package var transaction: [UInt8]?
    package var documents: [StoredDocument]
    package var skipped: Int
    package var readTime: Int64
    /// With `explain_options`: the plan, and with `analyze` the execution statistics.
    package var explainMetrics: ExplainMetrics?
}

/// The answer to RunAggregationQuery.
package struct AggregationResult: Sendable, Equatable {
    package var transaction: [UInt8]?
    package var fields: ValueMap
    package var readTime: Int64
    /// With `explain_options`; without `analyze` there is no result (`fields` is empty).
    package var explainMetrics: ExplainMetrics?
    package var hasResult = true
}

extension FirestoreService {
    /// RunQuery: `parent` is the documents root or a document; the query's `from` is relative to it.
    /// With `explain` the answer carries the plan; without `analyze` the query is not run (no
    /// documents, nothing read or locked).
    package func runQuery(
        _ database: DatabaseID, parent: ResourcePath, query: StructuredQuery,
        consistency: ReadConsistency = .latest, caller: FirestoreCaller = .owner, explain: ExplainOptions? = nil
    ) throws(EmulatorError) -> QueryResult {
        let started = MonotonicClock.nanoseconds()
        let engine = try QueryEngine(query, database: database)
        try Self.validateParent(parent, query)
        let resolved = try resolve(consistency, database)
        if let explain, !explain.analyze {
            let (view, time) = try store.view(database, at: resolved.time)
            try checkList(database, parent: parent, query: query, caller: caller, view: view, time: time)
            return QueryResult(
                transaction: resolved.newTransaction, documents: [], skipped: 0, readTime: time,
                explainMetrics: ExplainMetrics(indexesUsed: QueryPlan.indexesUsed(engine)))
        }
        let (documents, skipped, readTime) = try window(database, parent: parent, engine: engine, resolved: resolved, caller: caller)
        var projected = documents
        if let select = query.select {
            for i in projected.indices { projected[i].fields = QueryEngine.project(projected[i].fields, select) }
        }
        var metrics: ExplainMetrics?
        if explain != nil {
            let n = projected.count
            metrics = ExplainMetrics(
                indexesUsed: QueryPlan.indexesUsed(engine),
                executionStats: .init(
                    resultsReturned: n, executionNanoseconds: max(1, MonotonicClock.nanoseconds() &- started),
                    readOperations: max(1, n), documentsScanned: n, indexEntriesScanned: n + skipped))
        }
        return QueryResult(
            transaction: resolved.newTransaction, documents: projected, skipped: skipped, readTime: readTime, explainMetrics: metrics)
    }

    /// RunAggregationQuery: count, sum and avg over the windowed result of the query. With
    /// `explain` as ``runQuery(_:parent:query:consistency:caller:explain:)``: production bills an
    /// aggregation one read per 1,000 index entries it scans (at least one).
    package func runAggregationQuery(
        _ database: DatabaseID, parent: ResourcePath, aggregation: AggregationQuery,
        consistency: ReadConsistency = .latest, caller: FirestoreCaller = .owner, explain: ExplainOptions? = nil
    ) throws(EmulatorError) -> AggregationResult {
        let started = MonotonicClock.nanoseconds()
        let aliases = try aggregation.aliases()
        let engine = try QueryEngine(aggregation.query, database: database, aggregating: aggregation.aggregatedFields)
        try Self.validateParent(parent, aggregation.query)
        let resolved = try resolve(consistency, database)
        if let explain, !explain.analyze {
            let (view, time) = try store.view(database, at: resolved.time)
            try checkList(database, parent: parent, query: aggregation.query, caller: caller, view: view, time: time)
            return AggregationResult(
                transaction: resolved.newTransaction, fields: ValueMap(), readTime: time,
                explainMetrics: ExplainMetrics(indexesUsed: QueryPlan.indexesUsed(engine)), hasResult: false)
        }
        // Folded as the documents are read: nothing is kept but the running sums. Without offset
        // or limit the order does not matter and nothing is sorted.
        let source = try source(
            database, parent: parent, engine: engine, resolved: resolved, caller: caller, order: .any,
            aggregating: aggregation.aggregatedFields)
        let cursor = QueryCursor(transaction: nil, readTime: source.readTime, producer: source.producer(.any), select: nil, probe: cursorProbe)
        var fold = AggregationFold(aggregation.aggregations)
        var n = 0
        while !fold.isSettled, let (document, _) = cursor.next() {
            guard let document else { continue }
            fold.add(document)
            n += 1
        }
        if let failure = cursor.failure { throw failure }
        var metrics: ExplainMetrics?
        if explain != nil {
            let entries = n + cursor.skipped
            metrics = ExplainMetrics(
                indexesUsed: QueryPlan.indexesUsed(engine),
                executionStats: .init(
                    resultsReturned: 1, executionNanoseconds: max(1, MonotonicClock.nanoseconds() &- started),
                    readOperations: max(1, (entries + 999) / 1000), documentsScanned: 0, indexEntriesScanned: entries))
        }
        return AggregationResult(
            transaction: resolved.newTransaction, fields: fold.result(aliases: aliases), readTime: source.readTime,
            explainMetrics: metrics)
    }

    /// A Listen target's query: its ordered, windowed result before projection, handed to
    /// `visit` one document at a time as it is read (at head, or at `time`), and the read time
    /// (rules checked as RunQuery checks them). No more than two decoded documents are held.
    func listenQuery(
        _ database: DatabaseID, parent: ResourcePath, engine: QueryEngine, caller: FirestoreCaller, at time: Int64? = nil,
        visit: (StoredDocument) -> Void
    ) throws(EmulatorError) -> Int64 {
        try Self.validateParent(parent, engine.query)
        let source = try source(database, parent: parent, engine: engine, resolved: ResolvedRead(time: time), caller: caller, order: .query)
        let cursor = QueryCursor(transaction: nil, readTime: source.readTime, producer: source.producer(.query), select: nil, probe: cursorProbe)
        while let (document, _) = cursor.next() {
            if let document { visit(document) }
        }
        if let failure = cursor.failure { throw failure }
        return source.readTime
    }

    /// Whether `caller` is held to rules that may decide per document or change between commits:
    /// a Listen target then cannot follow commits from the changed documents alone.
    func rulesMayDecide(_ database: DatabaseID, caller: FirestoreCaller) -> Bool {
        caller != .owner && !gate(database).allowsEverything
    }

    /// Rules check a query by its constraints (as production does), before any document is read.
    func checkList(
        _ database: DatabaseID, parent: ResourcePath, query: StructuredQuery, caller: FirestoreCaller,
        view given: DatabaseView<StorageSnapshot>? = nil, time at: Int64? = nil
    ) throws(EmulatorError) {
        guard let selector = query.from.first else { return }
        let gate = gate(database)
        if caller == .owner {
            gate.noteOwner("list", database, parent.appending(selector.collectionID))
            return
        }
        guard !gate.allowsEverything else { return }
        let view: DatabaseView<StorageSnapshot>
        let time: Int64
        if let given { (view, time) = (given, at ?? store.currentTime()) } else { (view, time) = try store.view(database, at: nil) }
        try gate.check(
            FirestoreAccess(
                method: .list, database: database, path: parent.appending(selector.collectionID), caller: caller,
                query: query, isCollectionGroup: selector.allDescendants, time: time),
            lookup: { try? view.document($0) })
    }

    /// The ordered, windowed (unprojected) result, after rules and transaction bookkeeping. A
    /// pessimistic transaction locks the documents of the result: run, lock, run again until the
    /// result holds only locked documents (one that joins the result later aborts the commit).
    func window(
        _ database: DatabaseID, parent: ResourcePath, engine: QueryEngine, resolved: ResolvedRead, caller: FirestoreCaller
    ) throws(EmulatorError) -> ([StoredDocument], Int, Int64) {
        var result = try windowOnce(database, parent: parent, engine: engine, resolved: resolved, caller: caller)
        if let lock = resolved.lock {
            var locked = Set<ResourcePath>()
            for _ in 0..<3 {
                let fresh = result.0.map(\.path).filter { !locked.contains($0) }
                if fresh.isEmpty && !locked.isEmpty { break }
                try lockForRead(database, fresh, lock)
                locked.formUnion(fresh)
                result = try windowOnce(database, parent: parent, engine: engine, resolved: resolved, caller: caller)
                if fresh.isEmpty { break }
            }
        }
        if let id = resolved.recordingTransaction {
            transactions.recordQuery(id, .init(parent: parent, query: engine.query, seen: Self.versions(result.0)))
        }
        return result
    }

    private func windowOnce(
        _ database: DatabaseID, parent: ResourcePath, engine: QueryEngine, resolved: ResolvedRead, caller: FirestoreCaller
    ) throws(EmulatorError) -> ([StoredDocument], Int, Int64) {
        let query = engine.query
        var candidates: [StoredDocument]
        var readTime: Int64
        var decoded: Int?
        let (view, viewTime) = try store.view(database, at: resolved.time)
        try checkList(database, parent: parent, query: query, caller: caller, view: view, time: viewTime)
        if useIndexes, let walk = try Self.nameOrderedCandidates(view, parent: parent, engine: engine) {
            // Ordered by name alone: the collection's own key order answers it (at any read time).
            (candidates, readTime, decoded) = (walk.documents, viewTime, walk.decoded)
        } else if useIndexes, resolved.time == nil, let hit = try orderedCandidates(database, parent: parent, engine: engine) {
            (candidates, readTime) = hit
        } else if useIndexes, resolved.time == nil, let selector = query.from.first, selector.allDescendants,
            !selector.collectionID.isEmpty,
            let hit = try store.groupDocuments(database, parent: parent, collectionID: selector.collectionID)
        {
            (candidates, readTime) = hit
        } else if useIndexes, resolved.time == nil, let selector = query.from.first, !selector.allDescendants,
            let (field, value) = Self.indexableEquality(query.filter),
            let hit = try store.indexedDocuments(
                database, collection: parent.appending(selector.collectionID), field: field, equalTo: value)
        {
            (candidates, readTime) = hit
        } else {
            candidates = try Self.candidates(view, parent: parent, query: query)
            readTime = viewTime
        }
        documentsDecoded.add(decoded ?? candidates.count, ordering: .relaxed)
        let (documents, skipped) = engine.window(candidates)
        candidates = []
        return (documents, skipped, readTime)
    }

    /// For `[where e == x] orderBy f [desc] limit n` on one collection at head: the first matching
    /// documents in order from an index on `[e,] f`, or nil when the shape does not fit.
    func orderedCandidates(
        _ database: DatabaseID, parent: ResourcePath, engine: QueryEngine
    ) throws(EmulatorError) -> ([StoredDocument], Int64)? {
        let query = engine.query
        let order = engine.rank
        guard let limit = query.limit, let selector = query.from.first, !selector.allDescendants, order.count == 2,
            !order[0].field.isDocumentID, order[1].field.isDocumentID, order[0].direction == order[1].direction
        else { return nil }
        var equality = Self.indexableEquality(query.filter)
        if let e = equality, e.0 == order[0].field { equality = nil }
        let (needed, overflow) = query.offset.addingReportingOverflow(limit)
        if overflow { return nil }
        return try store.orderedDocuments(
            database, collection: parent.appending(selector.collectionID), equality: equality, order: order[0].field,
            descending: order[0].direction == .descending, needed: needed,
            accept: { engine.matches($0) && engine.withinCursors($0) })
    }

    /// What a walk in name order found: the matching documents in order (at most offset +
    /// limit), the ids of missing documents among them, and how many documents it decoded.
    struct NameWalk {
        var documents: [StoredDocument] = []
        var missing = Set<ResourcePath>()
        var decoded = 0
    }

    /// For a query over one collection ordered by `__name__` alone, with a limit: the collection
    /// walked in name order (``NameOrderWalk``), decoding documents only until offset + limit of
    /// them match; a `startAt` on a document of the collection seeks to it. Nil when the shape
    /// does not fit. The caller windows the result as it windows a scan's (the same documents
    /// come out).
    ///
    /// - Parameter includeMissing: missing documents (no fields, only descendants) join the
    ///   result as empty documents, as `listDocuments` with `show_missing` lists them.
    static func nameOrderedCandidates(
        _ view: DatabaseView<StorageSnapshot>, parent: ResourcePath, engine: QueryEngine, includeMissing: Bool = false
    ) throws(EmulatorError) -> NameWalk? {
        let query = engine.query
        guard let limit = query.limit, query.from.count == 1, let selector = query.from.first, !selector.allDescendants,
            engine.rank.count == 1, engine.order.count == 1, let order = engine.rank.first, order.field.isDocumentID
        else { return nil }
        let (needed, overflow) = query.offset.addingReportingOverflow(limit)
        if overflow { return nil }
        var result = NameWalk()
        guard needed > 0 else { return result }
        let collection = parent.appending(selector.collectionID)
        let start = query.startAt.flatMap { Self.seekID($0, in: collection, database: engine.database) }
        var walk = NameOrderWalk(
            query: query, parent: parent, snapshot: view.source, namespace: view.namespace, index: nil,
            descending: order.direction == .descending, from: start, includeMissing: includeMissing)
        while let (path, entry) = walk.next() {
            // The order is the name alone: the cursors are checked before anything is decoded.
            let bare = StoredDocument(path: path, fields: ValueMap(), createTime: 0, updateTime: 0)
            let position = engine.cursorPosition(bare)
            if position < 0 { continue }
            if position > 0 { break }
            var document = bare
            if let entry {
                document = try DatabaseView<StorageSnapshot>.decode(entry, path: path)
                result.decoded += 1
            } else {
                result.missing.insert(path)
            }
            guard engine.matches(document) else { continue }
            result.documents.append(document)
            if result.documents.count >= needed { break }
        }
        return result
    }

    /// The id a cursor on `__name__` names when it is a document directly in `collection`.
    static func seekID(_ cursor: StructuredQuery.Cursor, in collection: ResourcePath, database: DatabaseID) -> String? {
        guard cursor.values.count == 1, case .reference(let name) = cursor.values[0] else { return nil }
        let prefix = database.documentName(collection) + "/"
        guard name.utf8.starts(with: prefix.utf8) else { return nil }
        let id = String(decoding: name.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
        guard !id.isEmpty, !id.utf8.contains(0x2F) else { return nil }
        return id
    }

    static func versions(_ documents: [StoredDocument]) -> [ResourcePath: Int64] {
        var out: [ResourcePath: Int64] = [:]
        for d in documents { out[d.path] = d.updateTime }
        return out
    }

    static func validateParent(_ parent: ResourcePath, _ query: StructuredQuery) throws(EmulatorError) {
        guard parent.isEmpty || parent.isDocument else {
            throw .invalidArgument("The parent of a query must be the documents root or a document.")
        }
        for selector in query.from {
            if selector.collectionID.isEmpty {
                if !selector.allDescendants {
                    throw .invalidArgument("Collection id must not be empty unless all_descendants is set (kindless query).")
                }
            } else {
                try ResourcePath.validateSegment(selector.collectionID)
            }
        }
    }

    /// The documents a query must look at: one collection, a collection group below `parent`, or
    /// every document below `parent` (kindless).
    static func candidates<S: DocumentSource>(
        _ view: DatabaseView<S>, parent: ResourcePath, query: StructuredQuery
    ) throws(EmulatorError) -> [StoredDocument] {
        guard let selector = query.from.first else { return [] }
        if !selector.allDescendants { return try view.documents(in: parent.appending(selector.collectionID)) }
        return try view.documents(under: parent, collectionID: selector.collectionID.isEmpty ? nil : selector.collectionID)
    }

    /// The first top-level `field == value` conjunct on a stored field, if any: a query with one
    /// can be narrowed through an index (the engine re-applies the whole filter, so the result is
    /// the same as a scan's).
    static func indexableEquality(_ filter: QueryFilter?) -> (FieldPath, Value)? {
        guard let filter else { return nil }
        for c in filter.conjuncts {
            if case .field(let path, .equal, let value) = c, !path.isDocumentID { return (path, value) }
        }
        return nil
    }
}
