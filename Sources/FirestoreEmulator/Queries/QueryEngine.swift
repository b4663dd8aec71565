package import EmulatorModel

/// Runs a structured query over candidate documents: where → order by (with implicit orders and
/// existence of ordered fields) → cursors → offset → limit → select.
///
/// ```swift
/// let engine = try QueryEngine(query, database: db)
/// let (documents, skipped) = engine.run(candidates)
/// ```
package struct QueryEngine: Sendable {
    package let query: StructuredQuery
    package let database: DatabaseID
    /// The full ordering: explicit orders, inequality fields, then `__name__`. Cursors are
    /// positions in this ordering.
    package let order: [StructuredQuery.Order]
    /// The ordering that ranks documents for offset and limit: `order`, except that an
    /// aggregation's summed or averaged fields are ordered too (see `init(_:database:aggregating:)`).
    package let rank: [StructuredQuery.Order]

    /// - Parameter aggregating: fields a `sum` / `avg` aggregation reads. Production runs such an
    ///   aggregation as if each field were ordered (like an inequality field): documents missing it
    ///   are excluded — for every aggregation of the request, `count` included — and a limit keeps
    ///   the first documents by that field. With no explicit order,
    ///   `limit(2).sum("n")` over n = 5, 1, 3 (by name) sums 1 + 3.
    package init(_ query: StructuredQuery, database: DatabaseID, aggregating: [FieldPath] = []) throws(EmulatorError) {
        self.query = query
        self.database = database
        self.order = Self.normalizedOrder(query)
        self.rank = aggregating.isEmpty ? order : Self.normalizedOrder(query, alsoOrdering: aggregating)
        try QueryValidation.validate(query, order: order)
    }

    /// Explicit orders; then every inequality field not yet ordered, by field path; then
    /// `__name__`. Implicit orders take the direction of the last explicit one (ascending if none).
    /// `alsoOrdering` fields join the inequality fields.
    package static func normalizedOrder(
        _ query: StructuredQuery, alsoOrdering extra: [FieldPath] = []
    ) -> [StructuredQuery.Order] {
        var order = query.orderBy
        let direction = order.last?.direction ?? .ascending
        var inequalities = (query.filter?.inequalityFields ?? []) + extra
        inequalities.sort { FieldPath.compare($0, $1) < 0 }
        // `__name__` is never placed among the inequality fields: it always comes last.
        for field in inequalities where !field.isDocumentID && !order.contains(where: { $0.field == field }) {
            order.append(.init(field, direction))
        }
        if !order.contains(where: { $0.field.isDocumentID }) {
            order.append(.init(.documentID, direction))
        }
        return order
    }

    /// Whether the document passes the filter and has every ordered (and ranked) field.
    package func matches(_ document: StoredDocument) -> Bool {
        for o in rank where !o.field.isDocumentID {
            if document.fields.value(at: o.field) == nil { return false }
        }
        return query.filter?.matches(document, database: database) ?? true
    }

    /// Orders two matching documents by the ranking; negative when `a` comes first.
    package func compare(_ a: StoredDocument, _ b: StoredDocument) -> Int {
        for o in rank {
            let c: Int
            if o.field.isDocumentID {
                c = ResourcePath.compare(a.path, b.path)
            } else {
                c = Value.compare(a.fields.value(at: o.field) ?? .null, b.fields.value(at: o.field) ?? .null)
            }
            if c != 0 { return o.direction == .ascending ? c : -c }
        }
        return 0
    }

    /// Compares a document with a cursor position (a prefix of the ordering).
    private func compare(_ document: StoredDocument, _ cursor: StructuredQuery.Cursor) -> Int {
        for (i, value) in cursor.values.enumerated() {
            let o = order[i]
            let c = Value.compare(document.value(at: o.field, database: database) ?? .null, value)
            if c != 0 { return o.direction == .ascending ? c : -c }
        }
        return 0
    }

    /// Whether a matching document lies within `startAt` / `endAt`.
    package func withinCursors(_ document: StoredDocument) -> Bool { cursorPosition(document) == 0 }

    /// Where a document lies against the cursors: negative before `startAt`, 0 within, positive
    /// after `endAt` (a walk in query order stops at the first document after the end).
    package func cursorPosition(_ document: StoredDocument) -> Int {
        if let start = query.startAt {
            let c = compare(document, start)
            if start.before ? c < 0 : c <= 0 { return -1 }
        }
        if let end = query.endAt {
            let c = compare(document, end)
            if end.before ? c >= 0 : c > 0 { return 1 }
        }
        return 0
    }

    /// The ordered, windowed result without projection, and how many documents the offset skipped.
    package func window(_ candidates: [StoredDocument]) -> (documents: [StoredDocument], skipped: Int) {
        var matched = candidates.filter { matches($0) && withinCursors($0) }
        let limit = query.limit ?? Int.max
        let wanted = limit > Int.max - query.offset ? Int.max : query.offset + limit
        if wanted < matched.count / 8 {
            matched = Self.smallest(wanted, of: matched, by: compare)
        } else {
            matched.sort { compare($0, $1) < 0 }
        }
        let skipped = min(query.offset, matched.count)
        let end = min(matched.count, skipped + min(limit, matched.count))
        return (Array(matched[skipped..<end]), skipped)
    }

    /// The full result: windowed and projected.
    package func run(_ candidates: [StoredDocument]) -> (documents: [StoredDocument], skipped: Int) {
        var (documents, skipped) = window(candidates)
        if let select = query.select {
            for i in documents.indices { documents[i].fields = Self.project(documents[i].fields, select) }
        }
        return (documents, skipped)
    }

    /// Keeps only the selected paths (`__name__` alone selects no fields).
    package static func project(_ fields: ValueMap, _ paths: [FieldPath]) -> ValueMap {
        var out = ValueMap()
        for path in paths where !path.isDocumentID {
            if let v = fields.value(at: path) { out.setValue(v, at: path) }
        }
        return out
    }

    /// The `k` smallest elements in order (a bounded insertion, cheaper than sorting for small k).
    static func smallest(
        _ k: Int, of items: [StoredDocument], by compare: (StoredDocument, StoredDocument) -> Int
    ) -> [StoredDocument] {
        if k <= 0 { return [] }
        var best: [StoredDocument] = []
        best.reserveCapacity(k + 1)
        for item in items { _ = insert(item, into: &best, keeping: k, by: compare) }
        return best
    }

    /// Inserts `item` into `best` (in `compare` order, ties after their equals) and keeps its
    /// `k` smallest; returns true when an element, `item` or the one it pushed out, was dropped.
    static func insert<T>(_ item: T, into best: inout [T], keeping k: Int, by compare: (T, T) -> Int) -> Bool {
        if best.count == k, let last = best.last, compare(item, last) >= 0 { return true }
        var low = 0
        var high = best.count
        while low < high {
            let mid = (low + high) / 2
            if compare(best[mid], item) <= 0 { low = mid + 1 } else { high = mid }
        }
        best.insert(item, at: low)
        guard best.count > k else { return false }
        best.removeLast()
        return true
    }
}
