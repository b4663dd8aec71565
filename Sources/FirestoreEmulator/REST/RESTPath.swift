import EmulatorHTTP
import EmulatorModel
import EmulatorSupport

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
        segments.reserveCapacity(raw.count)
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
        // The joined name is built only for an error message.
        func full() -> String { segments.joined(separator: "/") }
        // `utf8Equal` compares the bytes in place; `elementsEqual` on the views walks them generically.
        guard segments.count >= 5, utf8Equal(segments[0], "projects"),
            utf8Equal(segments[2], "databases"), utf8Equal(segments[4], "documents"),
            !segments[1].isEmpty, !segments[3].isEmpty
        else {
            throw .invalidArgument("Invalid resource name: \"\(full())\"; must match projects/{project_id}/databases/{database_id}/documents/{document_path}.")
        }
        database = DatabaseID(project: segments[1], database: segments[3])
        var path: [String] = []
        path.reserveCapacity(segments.count - 5)
        var fullCount = segments.count - 1
        for (i, s) in segments.enumerated() {
            fullCount += s.utf8.count
            guard i >= 5 else { continue }
            do { try ResourcePath.validateSegment(s) } catch {
                throw .invalidArgument("Invalid resource name \"\(full())\": \(error.message)")
            }
            path.append(s)
        }
        self.path = ResourcePath(segments: path)
        if fullCount > DocumentName.maxNameBytes {
            throw .invalidArgument("Document name \"\(full())\" is longer than \(DocumentName.maxNameBytes) bytes.")
        }
    }

    /// `text` split at every `/` byte, empty segments kept (as `split(separator:
    /// omittingEmptySubsequences: false)` would, without breaking the text into Characters).
    static func split(_ text: Substring) -> [Substring] {
        var result: [Substring] = []
        result.reserveCapacity(8)
        var start = text.startIndex
        let utf8 = text.utf8
        // The slashes found in the bytes in place (a generic search of the view costs tens of
        // instructions a byte); a native string's UTF-8 index moves by an offset in O(1).
        let searched: Void? = utf8.withContiguousStorageIfAvailable { bytes in
            var after = 0
            for offset in bytes.indices where bytes[offset] == UInt8(ascii: "/") {
                let slash = utf8.index(start, offsetBy: offset - after)
                result.append(text[start..<slash])
                start = utf8.index(after: slash)
                after = offset + 1
            }
        }
        if searched != nil {
            result.append(text[start...])
            return result
        }
        while let slash = utf8[start...].firstIndex(of: UInt8(ascii: "/")) {
            result.append(text[start..<slash])
            start = utf8.index(after: slash)
        }
        result.append(text[start...])
        return result
    }

    var name: DocumentName { DocumentName(projectID: database.project, databaseID: database.database, path: path) }
}
