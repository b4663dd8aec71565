import EmulatorHTTP
import EmulatorModel

/// A parsed `/v1/projects/{p}/databases/{d}/documents[/{path}][:{method}]` request path.
struct RESTPath {
    var database: DatabaseID
    /// The path below `documents` (validated segments).
    var path: ResourcePath
    /// The custom method after the last `:` (`runQuery`, `commit`, …), when it is a known one.
    var method: String?

    static let methods: Set<String> = [
        "batchGet", "beginTransaction", "commit", "rollback", "runQuery", "runAggregationQuery", "partitionQuery",
        "listCollectionIds", "batchWrite", "listen", "write", "executePipeline", "listDocuments",
    ]

    /// Parses the segments after the version prefix. `allowMethod` is false for GET/PATCH/DELETE,
    /// where a `:` belongs to the document id.
    init(segments raw: [Substring], allowMethod: Bool) throws(EmulatorError) {
        var segments: [String] = []
        for s in raw {
            guard let d = PercentEncoding.decode(s) else { throw .invalidArgument("Invalid percent-encoding in the request path.") }
            segments.append(d)
        }
        if allowMethod, var last = segments.last, let colon = last.utf8.lastIndex(of: 0x3A) {
            let name = String(last[last.index(after: colon)...])
            if Self.methods.contains(name) {
                method = name
                last = String(last[..<colon])
                segments[segments.count - 1] = last
            }
        }
        let full = segments.joined(separator: "/")
        guard segments.count >= 5, segments[0] == "projects", segments[2] == "databases", segments[4] == "documents",
            !segments[1].isEmpty, !segments[3].isEmpty
        else {
            throw .invalidArgument("Invalid resource name: \"\(full)\"; must match projects/{project_id}/databases/{database_id}/documents/{document_path}.")
        }
        database = DatabaseID(project: segments[1], database: segments[3])
        var path: [String] = []
        for s in segments.dropFirst(5) {
            do { try ResourcePath.validateSegment(s) } catch {
                throw .invalidArgument("Invalid resource name \"\(full)\": \(error.message)")
            }
            path.append(s)
        }
        self.path = ResourcePath(segments: path)
        if full.utf8.count > DocumentName.maxNameBytes {
            throw .invalidArgument("Document name \"\(full)\" is longer than \(DocumentName.maxNameBytes) bytes.")
        }
    }

    var name: DocumentName { DocumentName(projectID: database.project, databaseID: database.database, path: path) }
}
