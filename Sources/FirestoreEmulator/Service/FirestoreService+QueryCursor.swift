package import EmulatorModel
import EmulatorStorage

extension FirestoreService {
    /// RunQuery as the transports answer it: a ``QueryCursor`` that makes the documents as the
    /// client reads them. Rules, consistency and the read time are settled here, before the first
    /// answer; the documents all come from one snapshot at that read time.
    ///
    /// A query ordered by name alone (no orderBy, or only `__name__`, and no inequality on a
    /// field) is read lazily (``NameOrderedScan``): at most one decoded document is held, whatever
    /// the size of the result. One sorted on a field holds a path and the sort values per match
    /// (``SortedScan``), and decodes the documents of its window as they are handed out. Read
    /// whole first, as ``runQuery(_:parent:query:consistency:caller:explain:)`` reads them: the
    /// shape an ordered index answers (at most offset + limit documents), reads in a read-write
    /// transaction (the result is locked, or recorded for the commit's check, before it is
    /// answered), and explain requests.
    package func openQuery(
        _ database: DatabaseID, parent: ResourcePath, query: StructuredQuery,
        consistency: ReadConsistency = .latest, caller: FirestoreCaller = .owner, explain: ExplainOptions? = nil
    ) throws(EmulatorError) -> QueryCursor {
        if explain != nil {
            let r = try runQuery(database, parent: parent, query: query, consistency: consistency, caller: caller, explain: explain)
            return QueryCursor(
                transaction: r.transaction, readTime: r.readTime, producer: DocumentList(r.documents), skipped: r.skipped,
                select: nil, explainMetrics: r.explainMetrics, probe: cursorProbe)
        }
        let engine = try QueryEngine(query, database: database)
        try Self.validateParent(parent, query)
        let resolved = try resolve(consistency, database)
        let nameOrdered = engine.rank.count == 1 && engine.rank[0].field.isDocumentID
        let orderedIndex = useIndexes && resolved.time == nil && Self.fitsOrderedIndex(engine)
        guard !orderedIndex, resolved.lock == nil, resolved.recordingTransaction == nil else {
            let (documents, skipped, readTime) = try window(database, parent: parent, engine: engine, resolved: resolved, caller: caller)
            return QueryCursor(
                transaction: resolved.newTransaction, readTime: readTime, producer: DocumentList(documents), skipped: skipped,
                select: query.select, probe: cursorProbe)
        }
        // Indexes are ensured before the snapshot is taken, so that the snapshot holds them.
        let ns = DocumentStore.namespace(database)
        var index: (id: String, range: IndexRange)?
        if useIndexes, resolved.time == nil, let selector = query.from.first {
            if selector.allDescendants {
                if !selector.collectionID.isEmpty {
                    index = (store.ensureGroupIndex(ns, collectionID: selector.collectionID), .all)
                }
            } else if let (field, value) = Self.indexableEquality(query.filter) {
                let collection = parent.appending(selector.collectionID)
                index = (store.ensureEqualityIndex(ns, collection: collection, field: field), .prefix(IndexKey.key(value)))
            }
        }
        let (view, time) = try store.view(database, at: resolved.time)
        try checkList(database, parent: parent, query: query, caller: caller, view: view, time: time)
        let producer: any QueryDocumentProducer =
            nameOrdered
            ? NameOrderedScan(engine: engine, parent: parent, snapshot: view.source, namespace: view.namespace, index: index)
            : SortedScan(engine: engine, parent: parent, snapshot: view.source, namespace: view.namespace, index: index)
        return QueryCursor(
            transaction: resolved.newTransaction, readTime: time, producer: producer, select: query.select, probe: cursorProbe)
    }

    /// Whether the query has the shape the ordered indexes answer at head
    /// (`[where e == x] orderBy f [desc] limit n` on one collection; see `orderedCandidates`):
    /// its window is read whole, at most offset + limit documents.
    static func fitsOrderedIndex(_ engine: QueryEngine) -> Bool {
        let order = engine.rank
        guard engine.query.limit != nil, let selector = engine.query.from.first, !selector.allDescendants, order.count == 2 else {
            return false
        }
        return !order[0].field.isDocumentID && order[1].field.isDocumentID && order[0].direction == order[1].direction
    }
}

extension FirestoreREST {
    /// A `StructuredQuery` in its JSON form (benchmarks and tools).
    package static func structuredQuery(json: String) throws(EmulatorError) -> StructuredQuery {
        try RESTDecoding.structuredQuery(object(Array(json.utf8), .structuredQuery))
    }
}
