import EmulatorModel
import EmulatorStorage

/// The documents of a query's result in key order, not query order, from one snapshot: for folds
/// that do not depend on the order (an aggregation without offset or limit), so nothing is kept
/// to sort. Filter and cursors are applied one document at a time; only the document being
/// looked at is decoded.
struct UnorderedScan: QueryDocumentProducer {
    private let engine: QueryEngine
    private let snapshot: StorageSnapshot
    private let namespace: NamespaceID
    private var stream: KeyStream

    var held: Int { 0 }

    init(engine: QueryEngine, parent: ResourcePath, snapshot: StorageSnapshot, namespace: NamespaceID, index: (id: String, range: IndexRange)?) {
        self.engine = engine
        self.snapshot = snapshot
        self.namespace = namespace
        stream = KeyStream(query: engine.query, parent: parent, snapshot: snapshot, namespace: namespace, index: index, reverse: false)
    }

    mutating func next(skipped: inout Int, probe: QueryCursorProbe?) throws(EmulatorError) -> StoredDocument? {
        while let entry = stream.next(snapshot, namespace) {
            let document = try DatabaseView<StorageSnapshot>.decode(entry, path: DatabaseView<StorageSnapshot>.path(entry.key))
            probe?.decoded(1)
            if engine.matches(document), engine.withinCursors(document) { return document }
            probe?.release(1)
        }
        return nil
    }
}
