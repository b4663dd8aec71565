import EmulatorModel

/// Everything stored for one database: its collections (each a map of document histories) and
/// the equality indexes queries have asked for.
///
/// Keys are UTF-8 bytes (never `String`, whose `==` treats canonically equivalent ids as equal).
struct DatabaseState: Sendable {
    struct Collection: Sendable {
        let path: ResourcePath
        var documents: [[UInt8]: DocumentHistory] = [:]
    }

    /// Collections by the bytes of their `/`-joined path.
    var collections: [[UInt8]: Collection] = [:]
    /// Collection paths by collection id, for collection-group queries.
    var collectionsByID: [[UInt8]: Set<[UInt8]>] = [:]
    /// Equality indexes by collection and field.
    var indexes: [EqualityIndex.ID: EqualityIndex] = [:]

    static func key(_ path: ResourcePath) -> [UInt8] { Array(path.description.utf8) }
    static func key(_ id: String) -> [UInt8] { Array(id.utf8) }

    // MARK: Reads at a time

    func document(_ path: ResourcePath, at time: Int64) throws(EmulatorError) -> StoredDocument? {
        guard let parent = path.parent, let id = path.lastSegment,
            let history = collections[Self.key(parent)]?.documents[Self.key(id)],
            let version = history.live(at: time), let bytes = version.bytes
        else { return nil }
        return StoredDocument(
            path: path, fields: try ValueCodec.decode(bytes), createTime: version.createTime, updateTime: version.time)
    }

    /// The live documents of one collection at `time`, in no particular order.
    func documents(in collection: ResourcePath, at time: Int64) throws(EmulatorError) -> [StoredDocument] {
        guard let c = collections[Self.key(collection)] else { return [] }
        return try Self.decode(c, c.documents.values, at: time)
    }

    static func decode(
        _ c: Collection, _ histories: some Sequence<DocumentHistory>, at time: Int64
    ) throws(EmulatorError) -> [StoredDocument] {
        var out: [StoredDocument] = []
        for history in histories {
            guard let v = history.live(at: time), let bytes = v.bytes else { continue }
            out.append(
                StoredDocument(
                    path: c.path.appending(history.id), fields: try ValueCodec.decode(bytes),
                    createTime: v.createTime, updateTime: v.time))
        }
        return out
    }

    /// True when `collection` holds a live document at `time`.
    func hasLiveDocument(_ c: Collection, at time: Int64) -> Bool {
        c.documents.values.contains { $0.live(at: time) != nil }
    }

    /// Paths of collections with id `collectionID` (any depth).
    func collections(withID collectionID: String) -> [Collection] {
        guard let keys = collectionsByID[Self.key(collectionID)] else { return [] }
        return keys.compactMap { collections[$0] }
    }

    /// Collections strictly below `parent` (any depth); the root's are all collections.
    func collections(under parent: ResourcePath) -> [Collection] {
        if parent.isEmpty { return Array(collections.values) }
        return collections.values.filter { $0.path.count > parent.count && parent.isPrefix(of: $0.path) }
    }

    /// The documents of `collection` whose indexed `field` is equivalent to `value`, at head.
    mutating func indexedDocuments(
        in collection: ResourcePath, field: FieldPath, equalTo value: Value
    ) throws(EmulatorError) -> [StoredDocument] {
        let collectionKey = Self.key(collection)
        guard let c = collections[collectionKey] else { return [] }
        let id = EqualityIndex.ID(collection: collectionKey, field: Array(field.canonicalString.utf8))
        if indexes[id] == nil {
            var index = EqualityIndex(field: field)
            try index.build(from: c)
            indexes[id] = index
        }
        guard let docKeys = indexes[id]?.entries[IndexKey.key(value)] else { return [] }
        return try Self.decode(c, docKeys.lazy.compactMap { c.documents[$0] }, at: .max)
    }

    // MARK: Writes

    /// Applies the final state of each written document at `time`. Returns nothing: times are
    /// reported by the commit buffer, which saw the same state.
    mutating func apply(_ changes: [(path: ResourcePath, bytes: [UInt8]?)], at time: Int64, retainAfter: Int64) {
        for change in changes {
            guard let parent = change.path.parent, let id = change.path.lastSegment else { continue }
            let collectionKey = Self.key(parent)
            let docKey = Self.key(id)
            if collections[collectionKey] == nil {
                guard change.bytes != nil else { continue }  // deleting in a collection never written
                collections[collectionKey] = Collection(path: parent)
                collectionsByID[Self.key(parent.lastSegment ?? ""), default: []].insert(collectionKey)
            }
            let previous = collections[collectionKey]?.documents[docKey]?.live(at: .max)
            if change.bytes == nil && previous == nil { continue }
            if let previous, let bytes = change.bytes, previous.bytes == bytes { continue }
            let createTime = change.bytes == nil ? 0 : (previous?.createTime ?? time)
            let version = DocumentHistory.Version(time: time, bytes: change.bytes, createTime: createTime)
            collections[collectionKey]?.documents[docKey, default: DocumentHistory(id: id)]
                .append(version, retainAfter: retainAfter)
            updateIndexes(collection: collectionKey, docKey: docKey, bytes: change.bytes)
        }
    }

    private mutating func updateIndexes(collection: [UInt8], docKey: [UInt8], bytes: [UInt8]?) {
        guard !indexes.isEmpty else { return }
        let ids = indexes.keys.filter { $0.collection == collection }
        if ids.isEmpty { return }
        let fields = bytes.flatMap { try? ValueCodec.decode($0) }
        for id in ids { indexes[id]?.update(docKey: docKey, fields: fields) }
    }

    /// Removes every document (and all history) at or below `path`; the root clears everything.
    mutating func clear(under path: ResourcePath) {
        if path.isEmpty {
            self = DatabaseState()
            return
        }
        let doomed = collections.filter { path.isPrefix(of: $0.value.path) }.keys
        for key in doomed { removeCollection(key) }
        if path.isDocument, let parent = path.parent, let id = path.lastSegment {
            collections[Self.key(parent)]?.documents[Self.key(id)] = nil
            let collectionKey = Self.key(parent)
            for id in indexes.keys where id.collection == collectionKey {
                indexes[id]?.update(docKey: Self.key(path.lastSegment ?? ""), fields: nil)
            }
        }
    }

    private mutating func removeCollection(_ key: [UInt8]) {
        guard let c = collections.removeValue(forKey: key) else { return }
        collectionsByID[Self.key(c.path.lastSegment ?? "")]?.remove(key)
        for id in indexes.keys where id.collection == key { indexes[id] = nil }
    }
}
