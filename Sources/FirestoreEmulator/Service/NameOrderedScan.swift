import EmulatorModel
import EmulatorStorage

/// The documents of a query ordered by name alone (`__name__` ascending or descending, the
/// implicit order of a query without orderBy or inequality on a field), read lazily from one
/// snapshot through a ``NameOrderWalk``: filters, cursors, offset and limit are applied one
/// document at a time, so only the document being looked at is decoded.
struct NameOrderedScan: QueryDocumentProducer {
    private let engine: QueryEngine
    /// The query's end cursor alone: a name past it ends the scan (no later name comes back).
    private let endOnly: QueryEngine?
    private let hasCursors: Bool
    private var walk: NameOrderWalk
    private var offsetLeft: Int
    private var limitLeft: Int

    var held: Int { 0 }

    /// - Parameter index: an index to read the candidates from (head snapshots only), with the
    ///   range of its keys; the scan reads the store when the snapshot cannot scan it.
    init(
        engine: QueryEngine, parent: ResourcePath, snapshot: StorageSnapshot, namespace: NamespaceID,
        index: (id: String, range: IndexRange)?
    ) {
        let query = engine.query
        self.engine = engine
        hasCursors = query.startAt != nil || query.endAt != nil
        if query.endAt != nil {
            var end = query
            end.startAt = nil
            endOnly = try? QueryEngine(end, database: engine.database)
        } else {
            endOnly = nil
        }
        offsetLeft = max(0, query.offset)
        limitLeft = max(0, query.limit ?? Int.max)
        var start: String?
        if let begin = query.startAt, let selector = query.from.first, !selector.allDescendants {
            start = FirestoreService.seekID(begin, in: parent.appending(selector.collectionID), database: engine.database)
        }
        walk = NameOrderWalk(
            query: query, parent: parent, snapshot: snapshot, namespace: namespace, index: index,
            descending: engine.rank.first?.direction == .descending, from: start)
    }

    mutating func next(skipped: inout Int, probe: QueryCursorProbe?) throws(EmulatorError) -> StoredDocument? {
        while offsetLeft > 0 || limitLeft > 0 {
            guard let (path, found) = walk.next() else { break }
            guard let entry = found else { continue }
            if hasCursors {
                let named = StoredDocument(path: path, fields: ValueMap(), createTime: 0, updateTime: 0)
                if !engine.withinCursors(named) {
                    if let endOnly, !endOnly.withinCursors(named) { break }
                    continue
                }
            }
            let document = try DatabaseView<StorageSnapshot>.decode(entry, path: path)
            probe?.decoded(1)
            guard engine.matches(document) else {
                probe?.release(1)
                continue
            }
            if offsetLeft > 0 {
                offsetLeft -= 1
                skipped += 1
                probe?.release(1)
                continue
            }
            limitLeft -= 1
            return document
        }
        offsetLeft = 0
        limitLeft = 0
        return nil
    }
}

/// The documents a query's `from` names (one collection, a collection group or every document
/// below the parent), in Firestore's document-name order (descending: the reverse), from one
/// snapshot; nothing is decoded. The one walk in name order: RunQuery's cursor
/// (``NameOrderedScan``) and the whole-result paths, ListDocuments' pages and the Emulator UI's
/// (``FirestoreService/nameOrderedCandidates(_:parent:engine:includeMissing:)``).
///
/// Key order is name order but for numeric ids (`__id<n>__`, which sort before every other id
/// in name order, by their number, ``ResourcePath/compareSegments(_:_:)``): documents with one
/// below the query's parent are taken out of the key-order stream, found first by their keys
/// alone (the key range `__id`…`__ie` of one collection, one seek when it holds none; a pass over
/// the keys for a group or a kindless query), sorted by name and merged back.
struct NameOrderWalk {
    private let snapshot: StorageSnapshot
    private let namespace: NamespaceID
    private let descending: Bool
    private var main: KeyStream
    /// Segments of a path before the first one a numeric id is looked for in.
    private let numericFrom: Int
    /// The documents with a numeric id, in walk order, and the next to merge.
    private var numeric: [(path: ResourcePath, entry: StoredEntry?)]
    private var numericNext = 0
    /// Whether `numeric` holds paths alone (a group or a kindless query), their entries read as merged.
    private var numericByKey = false
    /// The next document of the key-order stream, once read ahead for the merge.
    private var pending: (path: ResourcePath, entry: StoredEntry?)?
    private var mainDone = false

    /// - Parameters:
    ///   - index: an index to read the candidates from (head snapshots only), with the range of
    ///     its keys; the walk reads the store when the snapshot cannot scan it.
    ///   - start: for one collection, an id the walk may start at: ids before it (in walk order)
    ///     are not visited. The caller still checks each name against its cursor; this only
    ///     saves reading them.
    ///   - includeMissing: for one collection, also ids that have no document but have
    ///     descendants ("missing" documents), with a nil entry.
    init(
        query: StructuredQuery, parent: ResourcePath, snapshot: StorageSnapshot, namespace: NamespaceID,
        index: (id: String, range: IndexRange)?, descending: Bool, from start: String? = nil, includeMissing: Bool = false
    ) {
        self.snapshot = snapshot
        self.namespace = namespace
        self.descending = descending
        let order: (ResourcePath, ResourcePath) -> Bool = { a, b in
            descending ? ResourcePath.compare(a, b) > 0 : ResourcePath.compare(a, b) < 0
        }
        guard let selector = query.from.first else {
            main = KeyStream()
            mainDone = true
            (numericFrom, numeric) = (0, [])
            return
        }
        if !selector.allDescendants {
            let collection = parent.appending(selector.collectionID)
            numericFrom = collection.count
            let startIsNumeric = start.map { ResourcePath.numericID($0) != nil }
            // A start among the other ids is reached by a seek; a numeric one comes before every
            // other id, so (descending) none of them is visited.
            let seek = startIsNumeric == false ? start : nil
            main = KeyStream(
                query: query, parent: parent, snapshot: snapshot, namespace: namespace, index: index, reverse: descending,
                from: seek, includeMissing: includeMissing)
            if startIsNumeric == true && descending { mainDone = true }
            let key = DatabaseView<StorageSnapshot>.key(collection)
            // Numeric ids sort among the ids that begin with `__id` in key order.
            let range = StorageKeyRange(from: .including(key.appending("__id")), to: .excluding(key.appending("__ie")))
            var found: [(path: ResourcePath, entry: StoredEntry?)] = []
            for child in snapshot.children(namespace, of: key, in: range) where child.entry != nil || includeMissing {
                guard let id = child.key.lastSegment, ResourcePath.numericID(id) != nil else { continue }
                if let start, startIsNumeric == true {
                    let c = ResourcePath.compareSegments(id, start)
                    if descending ? c > 0 : c < 0 { continue }
                }
                found.append((collection.appending(id), child.entry))
            }
            found.sort { order($0.path, $1.path) }
            numeric = found
            return
        }
        numericFrom = parent.count
        numericByKey = true
        main = KeyStream(query: query, parent: parent, snapshot: snapshot, namespace: namespace, index: index, reverse: descending)
        // A pass over the keys alone: a numeric id may be any segment below the parent.
        var pass = main
        var paths: [ResourcePath] = []
        while let (key, _) = pass.nextKey(snapshot, namespace) {
            if Self.hasNumericID(key, from: parent.count) { paths.append(DatabaseView<StorageSnapshot>.path(key)) }
        }
        paths.sort(by: order)
        numeric = paths.map { ($0, nil) }
    }

    /// Whether a segment of `key` from index `start` on is a numeric id (a byte search first: most
    /// keys have no `__id` at all).
    static func hasNumericID(_ key: StorageKey, from start: Int) -> Bool {
        let bytes = key.encoded
        var found = false
        bytes.withUnsafeBufferPointer { b in
            var i = 0
            while i + 3 < b.count {
                if b[i] == 0x5F, b[i + 1] == 0x5F, b[i + 2] == 0x69, b[i + 3] == 0x64 {
                    found = true
                    return
                }
                i += 1
            }
        }
        guard found else { return false }
        let segments = key.segments
        guard start < segments.count else { return false }
        return segments[start...].contains { ResourcePath.numericID($0) != nil }
    }

    /// The next name in walk order, with its entry (nil for a missing document); nil after the last.
    mutating func next() -> (path: ResourcePath, entry: StoredEntry?)? {
        while true {
            if pending == nil && !mainDone {
                pending = nextInKeyOrder()
                mainDone = pending == nil
            }
            if numericNext < numeric.count {
                let n = numeric[numericNext]
                var first = true
                if let p = pending {
                    let c = ResourcePath.compare(n.path, p.path)
                    first = descending ? c > 0 : c < 0
                }
                if first {
                    numericNext += 1
                    // One collection's numeric ids come with their entries (nil: missing); a
                    // group's or a kindless query's were found by key alone.
                    if !numericByKey { return n }
                    guard let entry = snapshot.get(namespace, DatabaseView<StorageSnapshot>.key(n.path)) else { continue }
                    return (n.path, entry)
                }
            }
            guard let p = pending else { return nil }
            pending = nil
            return p
        }
    }

    private mutating func nextInKeyOrder() -> (path: ResourcePath, entry: StoredEntry?)? {
        while let (key, entry) = main.nextKey(snapshot, namespace) {
            if Self.hasNumericID(key, from: numericFrom) { continue }
            return (DatabaseView<StorageSnapshot>.path(key), entry)
        }
        return nil
    }
}

/// The candidates of a query (undecoded entries), in key order or its reverse, one of three ways.
struct KeyStream {
    /// The documents of one collection: the children of its key.
    var children: ChildSequence.Iterator?
    /// Every entry below the parent; documents of the group whose encoded id is `wanted`, or
    /// of any collection when nil.
    var entries: EntrySequence.Iterator?
    var wanted: [UInt8]?
    /// Hits of an index (a collection group's members, or one collection's documents with an
    /// equal field), read from the snapshot; only those below `within` when set.
    var hits: IndexSequence.Iterator?
    var within: StorageKey?
    /// One collection's children that have no document but have descendants come too (with a
    /// nil entry, from ``nextKey(_:_:)``).
    var includeMissing = false

    /// No candidates.
    init() {}

    /// The candidates of `query` below `parent`: through `index` when given and the snapshot
    /// can scan it (head snapshots), else from the documents themselves; a collection's from the
    /// id `seek` on (down from it when reversed), when given.
    init(
        query: StructuredQuery, parent: ResourcePath, snapshot: StorageSnapshot, namespace: NamespaceID,
        index: (id: String, range: IndexRange)?, reverse: Bool, from seek: String? = nil, includeMissing: Bool = false
    ) {
        self.includeMissing = includeMissing
        guard let selector = query.from.first else { return }
        let hits = index.flatMap { try? snapshot.scanIndex(namespace, $0.id, $0.range, reverse: reverse) }
        let parentKey = DatabaseView<StorageSnapshot>.key(parent)
        if !selector.allDescendants {
            if let hits { self.hits = hits.makeIterator() } else {
                let collection = DatabaseView<StorageSnapshot>.key(parent.appending(selector.collectionID))
                var range = StorageKeyRange.all
                if let seek {
                    // `seek` first (after it, reversed): the ids before it are before the cursor.
                    let key = collection.appending(seek)
                    range = reverse ? StorageKeyRange(from: .unbounded, to: .including(key)) : StorageKeyRange(from: .including(key), to: .unbounded)
                }
                children = snapshot.children(namespace, of: collection, in: range, reverse: reverse).makeIterator()
            }
            return
        }
        if !selector.collectionID.isEmpty { wanted = StorageKey(segments: [selector.collectionID]).encoded }
        if let hits {
            within = parent.isEmpty ? nil : parentKey
            self.hits = hits.makeIterator()
        } else {
            entries = snapshot.scan(namespace, parent.isEmpty ? .all : .descendants(of: parentKey), reverse: reverse).makeIterator()
        }
    }

    mutating func next(_ snapshot: StorageSnapshot, _ namespace: NamespaceID) -> StoredEntry? {
        while let (_, entry) = nextKey(snapshot, namespace) {
            if let entry { return entry }
        }
        return nil
    }

    /// The next candidate's key and entry; the entry is nil only for a missing document of one
    /// collection, with ``includeMissing``.
    mutating func nextKey(_ snapshot: StorageSnapshot, _ namespace: NamespaceID) -> (key: StorageKey, entry: StoredEntry?)? {
        while let child = children?.next() {
            if let entry = child.entry { return (entry.key, entry) }
            if includeMissing { return (child.key, nil) }
        }
        while let entry = entries?.next() {
            if let wanted {
                if DocumentStore.isMember(entry.key.encoded, ofGroup: wanted) { return (entry.key, entry) }
            } else if entry.key.depth % 2 == 0 {
                return (entry.key, entry)
            }
        }
        while let hit = hits?.next() {
            if let within, !within.isAncestor(of: hit.key) { continue }
            if let entry = snapshot.get(namespace, hit.key) { return (entry.key, entry) }
        }
        return nil
    }
}

