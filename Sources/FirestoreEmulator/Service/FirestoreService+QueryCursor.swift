package import EmulatorModel
import EmulatorStorage

/// The order a fold needs a query's documents in.
enum QueryScanOrder {
    /// Query order, windowed by offset and limit (answers, and folds over a window).
    case query
    /// Any order (an aggregation with neither offset nor limit): read in key order, nothing sorted.
    case any
}

/// One snapshot a query reads from, with what it reads its candidates through: everything a
/// ``QueryCursor`` needs to read the query, as often as the caller asks, with the same answer.
struct QuerySource {
    let engine: QueryEngine
    let parent: ResourcePath
    let snapshot: StorageSnapshot
    let namespace: NamespaceID
    /// An index to read the candidates from (head snapshots only), with the range of its keys.
    let index: (id: String, range: IndexRange)?
    /// The window read whole from an ordered index (`[where e == x] orderBy f limit n` at head).
    let prefetched: [StoredDocument]?
    let readTime: Int64

    /// The documents in `order`.
    func producer(_ order: QueryScanOrder) -> any QueryDocumentProducer {
        if let prefetched { return DocumentList(prefetched) }
        let query = engine.query
        if order == .any, query.offset == 0, query.limit == nil {
            return UnorderedScan(engine: engine, parent: parent, snapshot: snapshot, namespace: namespace, index: index)
        }
        if engine.rank.count == 1 && engine.rank[0].field.isDocumentID {
            return NameOrderedScan(engine: engine, parent: parent, snapshot: snapshot, namespace: namespace, index: index)
        }
        return SortedScan(engine: engine, parent: parent, snapshot: snapshot, namespace: namespace, index: index)
    }
}

extension FirestoreService {
    /// RunQuery as the transports answer it: a ``QueryCursor`` that makes the documents as the
    /// client reads them. Rules, consistency and the read time are settled here, before the first
    /// answer; the documents all come from one snapshot at that read time.
    ///
    /// A query ordered by name alone (no orderBy, or only `__name__`, and no inequality on a
    /// field) is read lazily (``NameOrderedScan``): at most one decoded document is held, whatever
    /// the size of the result. One sorted on a field holds a path and the sort values per match
    /// (``SortedScan``), and decodes the documents of its window as they are handed out. In a
    /// read-write transaction the result's names (and update times) are read first, to lock them
    /// or record them for the commit's check before anything is answered (see
    /// ``source(_:parent:engine:resolved:caller:order:)``). With `explain` and `analyze` the
    /// statistics go with the last answer; without `analyze` nothing is read.
    package func openQuery(
        _ database: DatabaseID, parent: ResourcePath, query: StructuredQuery,
        consistency: ReadConsistency = .latest, caller: FirestoreCaller = .owner, explain: ExplainOptions? = nil
    ) throws(EmulatorError) -> QueryCursor {
        let engine = try QueryEngine(query, database: database)
        try Self.validateParent(parent, query)
        let resolved = try resolve(consistency, database)
        let plan = explain.map { QueryCursor.Explain(plan: ExplainMetrics(indexesUsed: QueryPlan.indexesUsed(engine)), analyze: $0.analyze) }
        if let explain, !explain.analyze {
            // The plan alone: nothing is read or locked.
            let (view, time) = try store.view(database, at: resolved.time)
            try checkList(database, parent: parent, query: query, caller: caller, view: view, time: time)
            return QueryCursor(
                transaction: resolved.newTransaction, readTime: time, producer: DocumentList([]), select: nil, explain: plan,
                probe: cursorProbe)
        }
        let source = try source(database, parent: parent, engine: engine, resolved: resolved, caller: caller, order: .query)
        let cursor = QueryCursor(
            transaction: resolved.newTransaction, readTime: source.readTime, producer: source.producer(.query),
            select: query.select, explain: plan, probe: cursorProbe)
        cursor.expireWhenIdle(after: UInt64(max(1, queryIdleTimeout)) &* 1000)
        return cursor
    }

    /// The snapshot `engine`'s query reads from, after rules and a read-write transaction's
    /// bookkeeping. A pessimistic transaction locks the documents of the result before it is
    /// answered: read the names, lock them, read again until the result holds only locked
    /// documents (one that joins the result later aborts the commit); an optimistic one records
    /// the names and update times it read, for the commit to check. The names are held, not the
    /// documents: they must all be known before the first answer goes out (a lock wait parks the
    /// request and runs it again, which cannot happen once it answered), and the documents are
    /// decoded again as they are answered.
    func source(
        _ database: DatabaseID, parent: ResourcePath, engine: QueryEngine, resolved: ResolvedRead, caller: FirestoreCaller,
        order: QueryScanOrder, aggregating: [FieldPath] = []
    ) throws(EmulatorError) -> QuerySource {
        var source = try readSource(database, parent: parent, engine: engine, time: resolved.time, caller: caller)
        guard resolved.lock != nil || resolved.recordingTransaction != nil else { return source }
        var read = names(source, order)
        if let lock = resolved.lock {
            var locked = Set<ResourcePath>()
            for _ in 0..<3 {
                let fresh = try read.get().map(\.path).filter { !locked.contains($0) }
                if fresh.isEmpty && !locked.isEmpty { break }
                try lockForRead(database, fresh, lock)
                locked.formUnion(fresh)
                source = try readSource(database, parent: parent, engine: engine, time: resolved.time, caller: caller)
                read = names(source, order)
                if fresh.isEmpty { break }
            }
        }
        let result = try read.get()
        if let id = resolved.recordingTransaction {
            var seen: [ResourcePath: Int64] = [:]
            for (path, time) in result { seen[path] = time }
            transactions.recordQuery(id, .init(parent: parent, query: engine.query, aggregating: aggregating, seen: seen))
        }
        return source
    }

    /// The names and update times of the result, read through a cursor (each document dropped
    /// as soon as it is looked at).
    private func names(_ source: QuerySource, _ order: QueryScanOrder) -> Result<[(path: ResourcePath, updateTime: Int64)], EmulatorError> {
        let cursor = QueryCursor(transaction: nil, readTime: source.readTime, producer: source.producer(order), select: nil, probe: cursorProbe)
        var out: [(path: ResourcePath, updateTime: Int64)] = []
        while let (document, _) = cursor.next() {
            if let document { out.append((document.path, document.updateTime)) }
        }
        if let failure = cursor.failure { return .failure(failure) }
        return .success(out)
    }

    /// One snapshot of the query at `time` (head when nil), with rules checked.
    private func readSource(
        _ database: DatabaseID, parent: ResourcePath, engine: QueryEngine, time: Int64?, caller: FirestoreCaller
    ) throws(EmulatorError) -> QuerySource {
        let query = engine.query
        // Indexes are ensured before the snapshot is taken, so that the snapshot holds them.
        let ns = DocumentStore.namespace(database)
        var index: (id: String, range: IndexRange)?
        if useIndexes, time == nil, let selector = query.from.first {
            if selector.allDescendants {
                if !selector.collectionID.isEmpty {
                    index = (store.ensureGroupIndex(ns, collectionID: selector.collectionID), .all)
                }
            } else if let (field, value) = Self.indexableEquality(query.filter) {
                let collection = parent.appending(selector.collectionID)
                index = (store.ensureEqualityIndex(ns, collection: collection, field: field), .prefix(IndexKey.key(value)))
            }
        }
        let (view, viewTime) = try store.view(database, at: time)
        try checkList(database, parent: parent, query: query, caller: caller, view: view, time: viewTime)
        var prefetched: [StoredDocument]?
        var readTime = viewTime
        if useIndexes, time == nil, Self.fitsOrderedIndex(engine), let hit = try orderedCandidates(database, parent: parent, engine: engine) {
            // At most offset + limit documents, read whole (the index walk is not a producer yet).
            let window = engine.window(hit.0)
            prefetched = window.documents
            readTime = hit.1
        }
        return QuerySource(
            engine: engine, parent: parent, snapshot: view.source, namespace: view.namespace, index: index,
            prefetched: prefetched, readTime: readTime)
    }

    /// Whether the query has the shape the ordered indexes answer at head
    /// (`[where e == x] orderBy f [desc] limit n` on one collection; see `orderedCandidates`)
    /// and a window small enough to read whole (offset + limit at most ``maxOrderedIndexWindow``;
    /// a larger one goes through ``SortedScan``, which holds sort keys, not documents).
    /// The most documents an ordered-index answer reads whole.
    static let maxOrderedIndexWindow = 1_000

    static func fitsOrderedIndex(_ engine: QueryEngine) -> Bool {
        let order = engine.rank
        guard let limit = engine.query.limit, let selector = engine.query.from.first, !selector.allDescendants, order.count == 2 else {
            return false
        }
        let (window, overflow) = engine.query.offset.addingReportingOverflow(limit)
        guard !overflow, window <= maxOrderedIndexWindow else { return false }
        return !order[0].field.isDocumentID && order[1].field.isDocumentID && order[0].direction == order[1].direction
    }
}

extension FirestoreREST {
    /// A `StructuredQuery` in its JSON form (benchmarks and tools).
    package static func structuredQuery(json: String) throws(EmulatorError) -> StructuredQuery {
        try RESTDecoding.structuredQuery(object(Array(json.utf8), .structuredQuery))
    }
}
