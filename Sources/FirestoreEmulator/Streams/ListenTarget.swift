import EmulatorModel

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
    }

    /// What one changed document means for the target.
    enum Change: Sendable, Equatable {
        /// The document now belongs to the result (new or changed): send it (projected).
        case put(StoredDocument)
        /// The document left the result; `deleted` when it no longer exists.
        case remove(ResourcePath, deleted: Bool)
        /// The document still exists but no longer matches (its new state, projected): the
        /// client hears it with the target in `removed_target_ids`, as production sends it.
        case leave(StoredDocument)
    }

    /// The answer of ``apply(_:document:)``.
    enum Decision: Sendable, Equatable {
        case changes([Change])
        /// The change alone cannot tell: evaluate the query again.
        case reevaluate
    }

    var id: Int32
    let kind: Kind
    /// What the target watches, for the stream's index.
    let watch: ListenWatch
    var once: Bool
    /// Whether the client asked to resume (resume_token or read_time).
    var resuming: Bool
    var documents: [ResourcePath: Int64] = [:]
    /// For a query with a limit: the held documents in query order, reduced to the ordered fields.
    /// Fewer than `limit` means the window holds every matching document.
    var window: [StoredDocument] = []
    /// The newest commit published before the last full evaluation began: that evaluation saw
    /// every commit up to it, so their changes are skipped. Later commits are folded in even when
    /// the evaluation already saw them; a change older than the version held is ignored.
    var asOf: Int64 = 0
    /// The validated query (nil for documents targets), set by ``prepare()``.
    private(set) var engine: QueryEngine?

    init(id: Int32, kind: Kind, once: Bool, resuming: Bool) {
        self.id = id
        self.kind = kind
        self.watch = Self.watch(kind)
        self.once = once
        self.resuming = resuming
    }

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
        engine = try QueryEngine(query, database: database)
        try FirestoreService.validateParent(parent.path, query)
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

    /// The target's current result at head (projected), and the read time; refills the window.
    mutating func evaluate(_ service: FirestoreService, caller: FirestoreCaller) throws(EmulatorError) -> ([StoredDocument], Int64) {
        switch kind {
        case .documents(let names):
            guard !names.isEmpty else { return ([], service.store.currentTime()) }
            let (_, items, readTime) = try service.batchGet(database, names: names, caller: caller)
            var out: [StoredDocument] = []
            for case .found(let d) in items { out.append(d) }
            return (out, readTime)
        case .query(let parent, let query):
            let engine: QueryEngine
            if let prepared = self.engine { engine = prepared } else { engine = try QueryEngine(query, database: database) }
            var (documents, readTime) = try service.listenQuery(database, parent: parent.path, engine: engine, caller: caller)
            if query.limit != nil { window = documents.map(orderKey) }
            if let select = query.select {
                for i in documents.indices { documents[i].fields = QueryEngine.project(documents[i].fields, select) }
            }
            return (documents, readTime)
        }
    }

    /// The document reduced to the fields the window orders by.
    private func orderKey(_ d: StoredDocument) -> StoredDocument {
        guard let engine else { return d }
        var key = d
        key.fields = QueryEngine.project(d.fields, engine.rank.map(\.field))
        return key
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

    /// Folds one changed document (`document`: its state after the commit, nil when deleted) into
    /// the held result and says what the client must hear, or that the query must run again (then
    /// nothing of the target has changed).
    mutating func apply(_ path: ResourcePath, document: StoredDocument?) -> Decision {
        guard watches(path) || documents[path] != nil else { return .changes([]) }
        guard case .query(_, let query) = kind, let engine else {
            // A documents target: the document is its own answer.
            if let document {
                if !isNewer(document, path) { return .changes([]) }
                return .changes([.put(document)])
            }
            return documents.removeValue(forKey: path) == nil ? .changes([]) : .changes([.remove(path, deleted: true)])
        }
        if query.offset > 0 { return .reevaluate }
        let matching = document.flatMap { d in engine.matches(d) && engine.withinCursors(d) ? d : nil }
        func projected(_ d: StoredDocument) -> StoredDocument {
            guard let select = query.select else { return d }
            var p = d
            p.fields = QueryEngine.project(d.fields, select)
            return p
        }
        guard let limit = query.limit else {
            if let d = matching {
                if !isNewer(d, path) { return .changes([]) }
                return .changes([.put(projected(d))])
            }
            guard documents.removeValue(forKey: path) != nil else { return .changes([]) }
            return .changes([document.map { .leave(projected($0)) } ?? .remove(path, deleted: true)])
        }
        let full = window.count >= limit
        // Every `.reevaluate` below returns before anything changes, so the caller keeps the state.
        if let index = window.firstIndex(where: { $0.path == path }) {
            guard let d = matching else {
                // A full window lost a document: the next one in order (unknown here) moves in.
                if full { return .reevaluate }
                window.remove(at: index)
                documents[path] = nil
                return .changes([document.map { .leave(projected($0)) } ?? .remove(path, deleted: true)])
            }
            let key = orderKey(d)
            // Moved past the last place of a full window: documents never seen may now come first.
            if let held = documents[path], held >= d.updateTime { return .changes([]) }
            if full, let boundary = window.last, engine.compare(key, boundary) > 0 { return .reevaluate }
            window.remove(at: index)
            insert(key, engine)
            documents[path] = d.updateTime
            return .changes([.put(projected(d))])
        }
        guard let d = matching else { return .changes([]) }
        if limit <= 0 { return .changes([]) }
        let key = orderKey(d)
        if !full {
            insert(key, engine)
            documents[path] = d.updateTime
            return .changes([.put(projected(d))])
        }
        guard let last = window.last, engine.compare(key, last) < 0 else { return .changes([]) }
        window.removeLast()
        documents[last.path] = nil
        insert(key, engine)
        documents[path] = d.updateTime
        return .changes([.put(projected(d)), .remove(last.path, deleted: false)])
    }

    /// Records `d` as held; false when the same or a newer version is held already (a change an
    /// evaluation already saw).
    private mutating func isNewer(_ d: StoredDocument, _ path: ResourcePath) -> Bool {
        guard let old = documents.updateValue(d.updateTime, forKey: path) else { return true }
        if old < d.updateTime { return true }
        documents[path] = old
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
