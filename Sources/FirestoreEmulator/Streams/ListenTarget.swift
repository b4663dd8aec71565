import EmulatorModel
import EmulatorStorage

/// One target of a Listen stream: what it watches and the documents the client currently holds
/// for it (path → update time).
///
/// After the first evaluation a target follows commits from the changed documents alone
/// (``apply(_:document:)``): a document that matches the query is added or modified, one that no
/// longer matches (or was deleted) is removed. Only a `limit` window can need the query again —
/// when a held document leaves a full window, or moves past its last place, some document the
/// target never saw may take its place — and an `offset` always does; ``apply(_:document:)``
/// says so and the stream re-evaluates that target alone.
struct ListenTarget: Sendable {
    enum Kind: Sendable {
        case documents([DocumentName])
        case query(parent: DocumentName, StructuredQuery)

        var isDocuments: Bool {
            if case .documents = self { return true }
            return false
        }
    }

    /// What one changed document means for the target.
    enum Change: Sendable, Equatable {
        /// The document now belongs to the result (new or changed): send it (projected).
        case put(ListenDocument)
        /// The document left the result; `deleted` when it no longer exists.
        case remove(StorageKey, deleted: Bool)
        /// The document still exists but no longer matches (its new state, projected): the
        /// client hears it with the target in `removed_target_ids`, as production sends it.
        case leave(ListenDocument)
    }

    var id: Int32
    let kind: Kind
    /// What the target watches, for the stream's index.
    let watch: ListenWatch
    var once: Bool
    /// Where the client asked to resume from (resume_token or read_time), if it did.
    var resume: Resume?
    /// The documents the client holds, by storage key (cheaper to hash than a path).
    var documents = HeldDocuments()
    /// For a query with a limit: the held documents in query order, reduced to the ordered fields.
    /// Fewer than `limit` means the window holds every matching document.
    var window: [StoredDocument] = []
    /// The newest commit published before the last full evaluation began: that evaluation saw
    /// every commit up to it, so their changes are skipped. Later commits are folded in even when
    /// the evaluation already saw them; a change older than the version held is ignored.
    var asOf: Int64 = 0
    /// The validated query (nil for documents targets), set by ``prepare()``.
    private(set) var engine: QueryEngine?
    /// Every document the target watches belongs to its result as it is (a documents target, or
    /// a query with no filter, ordered field, cursor, limit, offset or projection): a change is
    /// decided, and sent, without decoding the document. Set by ``prepare()``.
    private(set) var takesEverything = false
    /// The storage keys a documents target or a collection query watches (checked bytewise).
    private let watchKeys: WatchKeys

    private enum WatchKeys: Sendable {
        case documents([StorageKey])
        case collection(StorageKey)
        case other
    }

    /// A resume point as the client sent it.
    enum Resume: Sendable, Equatable {
        case token([UInt8])
        /// Microseconds since the epoch.
        case readTime(Int64)
    }

    init(id: Int32, kind: Kind, once: Bool, resume: Resume? = nil) {
        self.id = id
        self.kind = kind
        self.watch = Self.watch(kind)
        self.once = once
        self.resume = resume
        switch watch {
        case .documents(let paths): watchKeys = .documents(paths.map(Self.key))
        case .collection(let c): watchKeys = .collection(Self.key(c))
        default: watchKeys = .other
        }
        if case .documents = kind { takesEverything = true }
    }

    static func key(_ path: ResourcePath) -> StorageKey { DatabaseView<StorageSnapshot>.key(path) }

    var database: DatabaseID {
        switch kind {
        case .documents(let names):
            names.first.map { DatabaseID(project: $0.projectID, database: $0.databaseID) } ?? DatabaseID(project: "", database: "")
        case .query(let parent, _): DatabaseID(project: parent.projectID, database: parent.databaseID)
        }
    }

    /// Validates the query (the errors RunQuery gives) and keeps its engine.
    mutating func prepare() throws(EmulatorError) {
        guard case .query(let parent, let query) = kind else { return }
        let engine = try QueryEngine(query, database: database)
        self.engine = engine
        try FirestoreService.validateParent(parent.path, query)
        takesEverything = query.filter == nil && query.startAt == nil && query.endAt == nil && query.offset == 0
            && query.limit == nil && query.select == nil && engine.rank.allSatisfy(\.field.isDocumentID)
    }

    private static func watch(_ kind: Kind) -> ListenWatch {
        switch kind {
        case .documents(let names): return .documents(names.map(\.path))
        case .query(let parent, let query):
            guard let selector = query.from.first else { return .documents([]) }
            if !selector.allDescendants { return .collection(parent.path.appending(selector.collectionID)) }
            if selector.collectionID.isEmpty { return .descendants(parent.path) }
            return .group(selector.collectionID, under: parent.path)
        }
    }

    /// The target's current result at head (projected), handed to `visit` a document at a time
    /// as it is read (nothing else holds it), and the read time; refills the window. With
    /// `time`, the result as it was then (a resume's starting point), the window untouched.
    mutating func evaluate(
        _ service: FirestoreService, caller: FirestoreCaller, at time: Int64? = nil, visit: (StoredDocument) -> Void
    ) throws(EmulatorError) -> Int64 {
        switch kind {
        case .documents(let names):
            guard !names.isEmpty else { return time ?? service.store.currentTime() }
            let (_, items, readTime) = try service.batchGet(
                database, names: names, consistency: time.map { .readTime($0) } ?? .latest, caller: caller)
            for case .found(let d) in items { visit(d) }
            return readTime
        case .query(let parent, let query):
            let engine: QueryEngine
            if let prepared = self.engine { engine = prepared } else { engine = try QueryEngine(query, database: database) }
            let refill = query.limit != nil && time == nil
            var window: [StoredDocument] = []
            let readTime = try service.listenQuery(database, parent: parent.path, engine: engine, caller: caller, at: time) { d in
                if refill { window.append(orderKey(d)) }
                var document = d
                if let select = query.select { document.fields = QueryEngine.project(d.fields, select) }
                visit(document)
            }
            if refill { self.window = window }
            return readTime
        }
    }

    /// The document reduced to the fields the window orders by.
    private func orderKey(_ d: StoredDocument) -> StoredDocument {
        guard let engine else { return d }
        var key = d
        key.fields = QueryEngine.project(d.fields, engine.rank.map(\.field))
        return key
    }

    /// ``watches(_:)-(ResourcePath)`` for a storage key: bytewise for documents and collection
    /// targets.
    func watches(_ key: StorageKey) -> Bool {
        switch watchKeys {
        case .documents(let keys): return keys.contains(key)
        case .collection(let c):
            // The key is `c` plus exactly one segment (a terminator only at its end).
            let k = key.encoded
            let prefix = c.encoded
            guard k.count > prefix.count + 1, k.starts(with: prefix) else { return false }
            return k[prefix.count..<(k.count - 1)].firstIndex(of: 0) == nil
        case .other: return watches(DatabaseView<StorageSnapshot>.path(key))
        }
    }

    /// Whether the target's result can hold the document at `path` (its collection, group or name).
    func watches(_ path: ResourcePath) -> Bool {
        switch watch {
        case .documents(let paths): return paths.contains(path)
        case .collection(let collection): return path.count == collection.count + 1 && collection.isPrefix(of: path)
        case .group(let id, let parent):
            return path.count > parent.count + 1 && path.isDocument && parent.isPrefix(of: path)
                && UTF8Order.equal(path.segments[path.count - 2], id)
        case .descendants(let parent): return path.count > parent.count && path.isDocument && parent.isPrefix(of: path)
        }
    }

    /// Folds one changed document into the held result and tells `emit` what the client must
    /// hear; false when the query must run again (then nothing of the target has changed).
    /// `decode` gives the document's state after the commit (nil when deleted); it is called only
    /// when the target must look inside the document.
    mutating func apply(_ changed: ChangedDocument, decode: () -> StoredDocument?, emit: (Change) -> Void) -> Bool {
        let key = changed.key
        guard watches(key) || documents[key] != nil else { return true }
        if takesEverything {
            // A documents target (the document is its own answer) or a query that takes all.
            if let entry = changed.entry {
                if isNewer(key, entry.updateTime) { emit(.put(.stored(entry))) }
            } else if documents.removeValue(forKey: key) != nil {
                emit(.remove(key, deleted: true))
            }
            return true
        }
        guard case .query(_, let query) = kind, let engine else { return true }
        if query.offset > 0 { return false }
        let document = changed.entry == nil ? nil : decode()
        let matching = document.flatMap { d in engine.matches(d) && engine.withinCursors(d) ? d : nil }
        func projected(_ d: StoredDocument) -> ListenDocument {
            guard let select = query.select else { return .decoded(d) }
            var p = d
            p.fields = QueryEngine.project(d.fields, select)
            return .decoded(p)
        }
        guard let limit = query.limit else {
            if let d = matching {
                if isNewer(key, d.updateTime) { emit(.put(projected(d))) }
                return true
            }
            guard documents.removeValue(forKey: key) != nil else { return true }
            emit(document.map { .leave(projected($0)) } ?? .remove(key, deleted: true))
            return true
        }
        let full = window.count >= limit
        let path = changed.path
        // Every `return false` below comes before anything changes, so the caller keeps the state.
        if let index = window.firstIndex(where: { $0.path == path }) {
            guard let d = matching else {
                // A full window lost a document: the next one in order (unknown here) moves in.
                if full { return false }
                window.remove(at: index)
                documents[key] = nil
                emit(document.map { .leave(projected($0)) } ?? .remove(key, deleted: true))
                return true
            }
            let rankKey = orderKey(d)
            // Moved past the last place of a full window: documents never seen may now come first.
            if let held = documents[key], held >= d.updateTime { return true }
            if full, let boundary = window.last, engine.compare(rankKey, boundary) > 0 { return false }
            window.remove(at: index)
            insert(rankKey, engine)
            documents[key] = d.updateTime
            emit(.put(projected(d)))
            return true
        }
        guard let d = matching, limit > 0 else { return true }
        let rankKey = orderKey(d)
        if !full {
            insert(rankKey, engine)
            documents[key] = d.updateTime
            emit(.put(projected(d)))
            return true
        }
        guard let last = window.last, engine.compare(rankKey, last) < 0 else { return true }
        window.removeLast()
        let lastKey = Self.key(last.path)
        documents[lastKey] = nil
        insert(rankKey, engine)
        documents[key] = d.updateTime
        emit(.put(projected(d)))
        emit(.remove(lastKey, deleted: false))
        return true
    }

    /// Records `updateTime` as held for `key`; false when the same or a newer version is held
    /// already (a change an evaluation already saw).
    private mutating func isNewer(_ key: StorageKey, _ updateTime: Int64) -> Bool {
        guard let old = documents.updateValue(updateTime, forKey: key) else { return true }
        if old < updateTime { return true }
        documents[key] = old
        return false
    }

    /// Inserts `key` into the window at its place in query order.
    private mutating func insert(_ key: StoredDocument, _ engine: QueryEngine) {
        var low = 0
        var high = window.count
        while low < high {
            let mid = (low + high) / 2
            if engine.compare(window[mid], key) < 0 { low = mid + 1 } else { high = mid }
        }
        window.insert(key, at: low)
    }
}

/// What a Listen target watches, as the stream index files it.
enum ListenWatch: Sendable, Equatable {
    /// These documents.
    case documents([ResourcePath])
    /// The documents directly in this collection.
    case collection(ResourcePath)
    /// The documents of every collection with this id below the parent (a collection group).
    case group(String, under: ResourcePath)
    /// Every document below the parent (a kindless query).
    case descendants(ResourcePath)
}
