import EmulatorModel
import EmulatorStorage

extension DocumentStore {
    /// Walks an index on `[equality field,] order field` of one collection in query order and
    /// returns the first `needed` documents `accept` keeps: the shape
    /// `where e == x orderBy f [desc] limit n` touches only the documents it answers.
    ///
    /// Index order is (equality value, order value, document key); document keys sort like names
    /// except for numeric ids `__id<n>__`, so a collection holding one gets nil (scan instead).
    /// Also nil when the head moved on between the index build and the scan.
    func orderedDocuments(
        _ database: DatabaseID, collection: ResourcePath, equality: (FieldPath, Value)?, order: FieldPath,
        descending: Bool, needed: Int, accept: (StoredDocument) -> Bool
    ) throws(EmulatorError) -> (documents: [StoredDocument], readTime: Int64)? {
        let ns = Self.namespace(database)
        let equalityField = equality?.0
        let id = "firestore-ord|\(collection.description)|\(equalityField?.canonicalString ?? "")|\(order.canonicalString)"
        ensureIndex(ns, id: id) { [depth = collection.count + 1] in
            IndexDefinition(
                id: id, scope: DatabaseView<StorageSnapshot>.key(collection), includes: { $0.depth == depth },
                extract: { _, bytes in
                    guard let fields = try? ValueCodec.decode(bytes), let o = fields.value(at: order) else { return [] }
                    var key: [UInt8] = []
                    if let equalityField {
                        guard let e = fields.value(at: equalityField) else { return [] }
                        IndexKey.append(e, to: &key)
                    }
                    IndexKey.append(o, to: &key)
                    return [key]
                })
        }
        let before = clock() - 1
        let snapshot: StorageSnapshot
        do { snapshot = try engine.snapshot() } catch { return nil }
        let range = equality.map { IndexRange.prefix(IndexKey.key($0.1)) } ?? .all
        guard let hits = try? snapshot.scanIndex(ns, id, range, reverse: descending) else { return nil }
        var out: [StoredDocument] = []
        if needed <= 0 { return (out, readTime(snapshot, clockBefore: before)) }
        for hit in hits {
            let segments = hit.key.segments
            guard let last = segments.last else { continue }
            if ResourcePath.numericID(last) != nil { return nil }
            guard let e = snapshot.get(ns, hit.key) else { continue }
            let d = try DatabaseView<StorageSnapshot>.decode(e, path: ResourcePath(segments: segments))
            if accept(d) {
                out.append(d)
                if out.count >= needed { break }
            }
        }
        return (out, readTime(snapshot, clockBefore: before))
    }
}
