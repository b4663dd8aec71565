/// A full Firestore resource name: `projects/{project}/databases/{database}/documents[/{path}]`.
///
/// `path` may be empty (the documents root), a collection (odd segments) or a document (even).
///
/// ```swift
/// let n = try DocumentName(parsing: "projects/p/databases/(default)/documents/users/ada")
/// n.path.isDocument        // true
/// n.documentID             // "ada"
/// n.parentName             // "projects/p/databases/(default)/documents/users"
/// ```
package struct DocumentName: Sendable, Hashable, CustomStringConvertible {
    package var projectID: String
    package var databaseID: String
    package var path: ResourcePath

    /// Maximum UTF-8 bytes of a document name.
    package static let maxNameBytes = 6 * 1024

    package init(projectID: String, databaseID: String, path: ResourcePath) {
        self.projectID = projectID
        self.databaseID = databaseID
        self.path = path
    }

    /// Parses and validates a full name. Throws `INVALID_ARGUMENT` on a malformed prefix, an empty
    /// or invalid segment, or a name longer than 6 KiB.
    package init(parsing name: String) throws(EmulatorError) {
        let parts = Self.slashSeparated(name)
        guard parts.count >= 5, UTF8Order.equal(parts[0], "projects"), !parts[1].isEmpty,
            UTF8Order.equal(parts[2], "databases"), !parts[3].isEmpty, UTF8Order.equal(parts[4], "documents")
        else {
            throw .invalidArgument("Invalid resource name: \"\(name)\"; must match projects/{project_id}/databases/{database_id}/documents/{document_path}.")
        }
        if name.utf8.count > Self.maxNameBytes {
            throw .invalidArgument("Document name \"\(name)\" is longer than \(Self.maxNameBytes) bytes.")
        }
        var segments: [String] = []
        segments.reserveCapacity(parts.count - 5)
        for segment in parts.dropFirst(5) {
            try ResourcePath.validateSegment(segment)
            segments.append(segment)
        }
        self.init(projectID: parts[1], databaseID: parts[3], path: ResourcePath(segments: segments))
    }

    /// `name`'s parts between slashes, empty ones kept, made in one pass over its bytes (every
    /// gRPC document request parses a name; `split` then `map` cost two arrays and a generic walk).
    private static func slashSeparated(_ name: String) -> [String] {
        if let parts = name.utf8.withContiguousStorageIfAvailable({ slashSeparated($0) }) { return parts }
        return Array(name.utf8).withUnsafeBufferPointer { slashSeparated($0) }
    }

    private static func slashSeparated(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        var parts: [String] = []
        parts.reserveCapacity(8)
        var start = 0
        for i in 0..<bytes.count where bytes[i] == 0x2F {
            parts.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self))
            start = i + 1
        }
        parts.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self))
        return parts
    }

    /// Parses a name that must denote a document (even number of segments below `documents`).
    package static func document(_ name: String) throws(EmulatorError) -> DocumentName {
        let n = try DocumentName(parsing: name)
        guard n.path.isDocument else {
            throw .invalidArgument("Document name \"\(name)\" has odd number of segments.")
        }
        return n
    }

    /// Parses a parent for listing/queries: the documents root or a document.
    package static func parent(_ name: String) throws(EmulatorError) -> DocumentName {
        let n = try DocumentName(parsing: name)
        guard n.path.isEmpty || n.path.isDocument else {
            throw .invalidArgument("Parent resource \"\(name)\" is not a document or the documents root.")
        }
        return n
    }

    /// `projects/{p}/databases/{d}`.
    package var databaseName: String { "projects/\(projectID)/databases/\(databaseID)" }
    /// `projects/{p}/databases/{d}/documents`.
    package var rootName: String { databaseName + "/documents" }
    /// The full name.
    package var name: String { path.isEmpty ? rootName : rootName + "/" + path.description }
    package var description: String { name }

    /// The last segment when this names a document.
    package var documentID: String? { path.isDocument ? path.lastSegment : nil }
    /// The id of the collection that contains the document (or of the collection itself).
    package var collectionID: String? { path.collectionID }
    /// The name of the parent (collection of a document, document of a subcollection, or root).
    package var parentName: String? {
        guard let p = path.parent else { return nil }
        return DocumentName(projectID: projectID, databaseID: databaseID, path: p).name
    }

    /// This name with `segment` appended.
    package func appending(_ segment: String) -> DocumentName {
        DocumentName(projectID: projectID, databaseID: databaseID, path: path.appending(segment))
    }

    package static func == (a: DocumentName, b: DocumentName) -> Bool {
        UTF8Order.equal(a.projectID, b.projectID) && UTF8Order.equal(a.databaseID, b.databaseID) && a.path == b.path
    }

    package func hash(into hasher: inout Hasher) {
        Value.hashUTF8(projectID, into: &hasher)
        Value.hashUTF8(databaseID, into: &hasher)
        hasher.combine(path)
    }
}
