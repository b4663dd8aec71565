package import EmulatorModel

/// The answer to RunQuery: the documents in order, the offset's skipped count and the read time.
package struct QueryResult: Sendable, Equatable {
    package var transaction: [UInt8]?
    package var documents: [StoredDocument]
    package var skipped: Int
    package var readTime: Int64
}

/// The answer to RunAggregationQuery.
package struct AggregationResult: Sendable, Equatable {
    package var transaction: [UInt8]?
    package var fields: ValueMap
    package var readTime: Int64
}

extension FirestoreService {
    /// RunQuery: `parent` is the documents root or a document; the query's `from` is relative to it.
    package func runQuery(
        _ database: DatabaseID, parent: ResourcePath, query: StructuredQuery,
        consistency: ReadConsistency = .latest, caller: FirestoreCaller = .owner
    ) throws(EmulatorError) -> QueryResult {
        let engine = try QueryEngine(query, database: database)
        try Self.validateParent(parent, query)
        let resolved = try resolve(consistency, database)
        let gate = gate(database)
        let useIndexes = self.useIndexes
        let (documents, skipped, readTime): ([StoredDocument], Int, Int64) = try store.read(database) {
            (state, headTime) throws(EmulatorError) in
            let time = resolved.time
            let candidates = try Self.candidates(&state, parent: parent, query: query, time: time, allowIndex: useIndexes)
            let (documents, skipped) = engine.window(candidates)
            if caller != .owner {
                let snapshot = state
                for d in documents {
                    try gate.check(
                        FirestoreAccess(method: .list, database: database, path: d.path, caller: caller, resource: d),
                        lookup: { try? snapshot.document($0, at: time ?? .max) })
                }
            }
            return (documents, skipped, time ?? headTime)
        }
        if let id = resolved.recordingTransaction {
            transactions.recordQuery(id, .init(parent: parent, query: query, seen: Self.versions(documents)))
        }
        var projected = documents
        if let select = query.select {
            for i in projected.indices { projected[i].fields = QueryEngine.project(projected[i].fields, select) }
        }
        return QueryResult(transaction: resolved.newTransaction, documents: projected, skipped: skipped, readTime: readTime)
    }

    /// RunAggregationQuery: count, sum and avg over the windowed result of the query.
    package func runAggregationQuery(
        _ database: DatabaseID, parent: ResourcePath, aggregation: AggregationQuery,
        consistency: ReadConsistency = .latest, caller: FirestoreCaller = .owner
    ) throws(EmulatorError) -> AggregationResult {
        let aliases = try aggregation.aliases()
        let query = aggregation.query
        let engine = try QueryEngine(query, database: database)
        try Self.validateParent(parent, query)
        let resolved = try resolve(consistency, database)
        let gate = gate(database)
        let useIndexes = self.useIndexes
        let (documents, readTime): ([StoredDocument], Int64) = try store.read(database) {
            (state, headTime) throws(EmulatorError) in
            let candidates = try Self.candidates(
                &state, parent: parent, query: query, time: resolved.time, allowIndex: useIndexes)
            let documents = engine.window(candidates).documents
            if caller != .owner {
                let snapshot = state
                for d in documents {
                    try gate.check(
                        FirestoreAccess(method: .list, database: database, path: d.path, caller: caller, resource: d),
                        lookup: { try? snapshot.document($0, at: resolved.time ?? .max) })
                }
            }
            return (documents, resolved.time ?? headTime)
        }
        if let id = resolved.recordingTransaction {
            transactions.recordQuery(id, .init(parent: parent, query: query, seen: Self.versions(documents)))
        }
        return AggregationResult(
            transaction: resolved.newTransaction, fields: aggregation.evaluate(documents, aliases: aliases),
            readTime: readTime)
    }

    /// PartitionQuery: the official emulator does not implement it.
    package func partitionQuery(_ database: DatabaseID, parent: ResourcePath, query: StructuredQuery) throws(EmulatorError) {
        _ = try QueryEngine(query, database: database)
        throw .unimplemented("PartitionQuery is not supported by the Firestore emulator.")
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
    /// every document below `parent`. An equality conjunct at head narrows a single collection
    /// through an index (the engine re-applies the whole filter, so the result is the same).
    static func candidates(
        _ state: inout DatabaseState, parent: ResourcePath, query: StructuredQuery, time: Int64?, allowIndex: Bool
    ) throws(EmulatorError) -> [StoredDocument] {
        guard let selector = query.from.first else { return [] }
        let at = time ?? .max
        if !selector.allDescendants {
            let collection = parent.appending(selector.collectionID)
            if allowIndex, time == nil, let (field, value) = indexableEquality(query.filter) {
                return try state.indexedDocuments(in: collection, field: field, equalTo: value)
            }
            return try state.documents(in: collection, at: at)
        }
        let collections =
            selector.collectionID.isEmpty
            ? state.collections(under: parent)
            : state.collections(withID: selector.collectionID).filter {
                $0.path.count > parent.count && parent.isPrefix(of: $0.path)
            }
        var out: [StoredDocument] = []
        for c in collections { out += try DatabaseState.decode(c, c.documents.values, at: at) }
        return out
    }

    /// The first top-level `field == value` conjunct on a stored field, if any.
    static func indexableEquality(_ filter: QueryFilter?) -> (FieldPath, Value)? {
        guard let filter else { return nil }
        for c in filter.conjuncts {
            if case .field(let path, .equal, let value) = c, !path.isDocumentID { return (path, value) }
        }
        return nil
    }
}
