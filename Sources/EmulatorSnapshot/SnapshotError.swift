/// An error reading or writing a snapshot, naming the file (and the byte offset for binary files).
///
/// ```swift
/// // corrupted: /data/firestore_export/all_namespaces/all_kinds/output-0 at offset 32775: checksum mismatch
/// ```
package struct SnapshotError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong; extensible.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let name: String
        package init(_ name: String) { self.name = name }
        package var description: String { name }

        /// A file or directory the snapshot needs does not exist.
        package static let notFound = Code("notFound")
        /// A file's bytes do not follow its format (bad JSON, checksum, record, protobuf).
        package static let corrupted = Code("corrupted")
        /// The export target is not acceptable (cwd, a parent of cwd, a non-export directory).
        package static let refused = Code("refused")
        /// The target already holds an export and overwriting was not asked for (`--force`).
        package static let exists = Code("exists")
        /// The operating system refused an operation (disk full, permission denied, …).
        package static let io = Code("io")
    }

    package var code: Code
    package var message: String
    /// The file the error is about, if any.
    package var file: String?
    /// The byte offset in `file`, for binary formats.
    package var offset: Int?

    package init(_ code: Code, _ message: String, file: String? = nil, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.file = file
        self.offset = offset
    }

    /// The same error attributed to `file` (keeping an offset already known).
    package func inFile(_ path: String) -> SnapshotError {
        var copy = self
        copy.file = path
        return copy
    }

    package var description: String {
        guard let file else { return message }
        if let offset { return "\(file) at offset \(offset): \(message)" }
        return "\(file): \(message)"
    }
}
