import EmulatorModel
import EmulatorStorage

/// What the query and read code needs from a state of the store: a snapshot at a read time, or
/// the inside of a commit (head plus the commit's own writes).
protocol DocumentSource {
    func entry(_ namespace: NamespaceID, _ key: StorageKey) -> StoredEntry?
    func childEntries(_ namespace: NamespaceID, of parent: StorageKey) -> ChildSequence
    func childEntries(_ namespace: NamespaceID, of parent: StorageKey, in range: StorageKeyRange, reverse: Bool) -> ChildSequence
    func entries(_ namespace: NamespaceID, _ range: StorageKeyRange) -> EntrySequence
}

extension StorageSnapshot: DocumentSource {
    func entry(_ namespace: NamespaceID, _ key: StorageKey) -> StoredEntry? { get(namespace, key) }
    func childEntries(_ namespace: NamespaceID, of parent: StorageKey) -> ChildSequence { children(namespace, of: parent) }
    func childEntries(_ namespace: NamespaceID, of parent: StorageKey, in range: StorageKeyRange, reverse: Bool) -> ChildSequence {
        children(namespace, of: parent, in: range, reverse: reverse)
    }
    func entries(_ namespace: NamespaceID, _ range: StorageKeyRange) -> EntrySequence { scan(namespace, range) }
}

extension CommitBuilder: DocumentSource {
    func entry(_ namespace: NamespaceID, _ key: StorageKey) -> StoredEntry? { get(namespace, key) }
    func childEntries(_ namespace: NamespaceID, of parent: StorageKey) -> ChildSequence { children(namespace, of: parent) }
    func childEntries(_ namespace: NamespaceID, of parent: StorageKey, in range: StorageKeyRange, reverse: Bool) -> ChildSequence {
        children(namespace, of: parent, in: range, reverse: reverse)
    }
    func entries(_ namespace: NamespaceID, _ range: StorageKeyRange) -> EntrySequence { scan(namespace, range) }
}

/// Reads of documents of one database from a ``DocumentSource``.
struct DatabaseView<Source: DocumentSource> {
    let source: Source
    let namespace: NamespaceID

    static func key(_ path: ResourcePath) -> StorageKey { StorageKey(segments: path.segments) }

    static func path(_ key: StorageKey) -> ResourcePath { ResourcePath(segments: key.segments) }

    static func decode(_ entry: StoredEntry, path: ResourcePath) throws(EmulatorError) -> StoredDocument {
        StoredDocument(
            path: path, fields: try ValueCodec.decode(entry.value), createTime: entry.createTime,
            updateTime: entry.updateTime)
    }

    func document(_ path: ResourcePath) throws(EmulatorError) -> StoredDocument? {
        guard let e = source.entry(namespace, Self.key(path)) else { return nil }
        return try Self.decode(e, path: path)
    }

    /// The live documents directly in `collection`, in key order.
    func documents(in collection: ResourcePath) throws(EmulatorError) -> [StoredDocument] {
        var out: [StoredDocument] = []
        for child in source.childEntries(namespace, of: Self.key(collection)) {
            guard let e = child.entry, let id = child.key.lastSegment else { continue }
            out.append(try Self.decode(e, path: collection.appending(id)))
        }
        return out
    }

    /// Live documents at any depth below `parent` (the documents root when empty) whose
    /// immediate collection id is `collectionID` (any collection when nil).
    func documents(under parent: ResourcePath, collectionID: String?) throws(EmulatorError) -> [StoredDocument] {
        let range: StorageKeyRange = parent.isEmpty ? .all : .descendants(of: Self.key(parent))
        var out: [StoredDocument] = []
        let wanted = collectionID.map { Array($0.utf8) }
        for e in source.entries(namespace, range) {
            let segments = e.key.segmentBytes
            guard segments.count % 2 == 0, segments.count > parent.count else { continue }
            if let wanted, segments[segments.count - 2] != wanted { continue }
            out.append(try Self.decode(e, path: ResourcePath(segments: segments.map { String(decoding: $0, as: UTF8.self) })))
        }
        return out
    }

    /// Paths of the live documents at any depth below `parent` whose immediate collection id is
    /// `collectionID` (any collection when nil), in key order; nothing is decoded.
    func documentPaths(under parent: ResourcePath, collectionID: String?) -> [ResourcePath] {
        let range: StorageKeyRange = parent.isEmpty ? .all : .descendants(of: Self.key(parent))
        var out: [ResourcePath] = []
        let wanted = collectionID.map { Array($0.utf8) }
        for e in source.entries(namespace, range) {
            let segments = e.key.segmentBytes
            guard segments.count % 2 == 0, segments.count > parent.count else { continue }
            if let wanted, segments[segments.count - 2] != wanted { continue }
            out.append(ResourcePath(segments: segments.map { String(decoding: $0, as: UTF8.self) }))
        }
        return out
    }

    /// Ids of the collections directly below `parent` that hold a document at any depth.
    func collectionIDs(under parent: ResourcePath) -> [String] {
        source.childEntries(namespace, of: Self.key(parent)).compactMap { $0.key.lastSegment }
    }

    /// Ids of documents of `collection` that do not exist but have descendants ("missing" documents).
    func missingDocumentIDs(in collection: ResourcePath) -> [String] {
        source.childEntries(namespace, of: Self.key(collection)).compactMap { $0.entry == nil ? $0.key.lastSegment : nil }
    }
}
