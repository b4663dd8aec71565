import EmulatorModel

/// One target of a Listen stream: what it watches and the documents the client currently holds
/// for it (path → update time).
struct ListenTarget: Sendable {
    enum Kind: Sendable {
        case documents([DocumentName])
        case query(parent: DocumentName, StructuredQuery)
    }

    var id: Int32
    var kind: Kind
    var once: Bool
    /// Whether the client asked to resume (resume_token or read_time).
    var resuming: Bool
    var documents: [ResourcePath: Int64] = [:]

    init(id: Int32, kind: Kind, once: Bool, resuming: Bool) {
        self.id = id
        self.kind = kind
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

    /// The target's current result at head, and the read time.
    func evaluate(_ service: FirestoreService, caller: FirestoreCaller) throws(EmulatorError) -> ([StoredDocument], Int64) {
        switch kind {
        case .documents(let names):
            guard !names.isEmpty else { return ([], service.store.currentTime()) }
            let (_, items, readTime) = try service.batchGet(database, names: names, caller: caller)
            var out: [StoredDocument] = []
            for case .found(let d) in items { out.append(d) }
            return (out, readTime)
        case .query(let parent, let query):
            let result = try service.runQuery(database, parent: parent.path, query: query, caller: caller)
            return (result.documents, result.readTime)
        }
    }

    /// Whether a commit that changed the documents at `paths` can change this target's result.
    func isAffected(by paths: Set<ResourcePath>) -> Bool {
        for path in paths {
            if documents[path] != nil { return true }
            switch kind {
            case .documents(let names):
                if names.contains(where: { $0.path == path }) { return true }
            case .query(let parent, let query):
                let segments = path.segments
                guard segments.count >= 2 else { continue }
                let collection = segments[segments.count - 2]
                let container = ResourcePath(segments: Array(segments.dropLast(2)))
                for selector in query.from {
                    let idMatches = selector.collectionID.isEmpty || selector.collectionID.utf8.elementsEqual(collection.utf8)
                    let placeMatches = selector.allDescendants ? parent.path.isPrefix(of: container) : container == parent.path
                    if idMatches && placeMatches { return true }
                }
            }
        }
        return false
    }
}
