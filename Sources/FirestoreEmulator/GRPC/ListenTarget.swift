import EmulatorModel
import EmulatorProtobuf

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

    /// Decodes a `Target` message.
    init(_ reader: ProtoReader) throws(EmulatorError) {
        var r = reader
        var kind: Kind?
        id = 0
        once = false
        resuming = false
        while let (f, w) = try r.next() {
            switch f {
            case 2:
                try r.expect(w, .lengthDelimited, f)
                var q = try r.message()
                var parent = ""
                var query: StructuredQuery?
                while let (qf, qw) = try q.next() {
                    switch qf {
                    case 1: try q.expect(qw, .lengthDelimited, qf); parent = try q.string()
                    case 2: try q.expect(qw, .lengthDelimited, qf); query = try ProtoDecoding.structuredQuery(q.message())
                    default: try q.skip(qw)
                    }
                }
                guard let query else { throw .invalidArgument("A query target must have a structured_query.") }
                kind = .query(parent: try DocumentName.parent(parent), query)
            case 3:
                try r.expect(w, .lengthDelimited, f)
                var d = try r.message()
                var names: [DocumentName] = []
                while let (df, dw) = try d.next() {
                    if df == 2 { try d.expect(dw, .lengthDelimited, df); names.append(try DocumentName.document(d.string())) } else { try d.skip(dw) }
                }
                kind = .documents(names)
            case 4: try r.expect(w, .lengthDelimited, f); resuming = !(try r.bytes()).isEmpty
            case 11: try r.expect(w, .lengthDelimited, f); _ = try r.message(); resuming = true
            case 5: try r.expect(w, .varint, f); id = try r.int32()
            case 6: try r.expect(w, .varint, f); once = try r.bool()
            default: try r.skip(w)
            }
        }
        guard let kind else { throw .invalidArgument("A target must set query or documents.") }
        self.kind = kind
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
