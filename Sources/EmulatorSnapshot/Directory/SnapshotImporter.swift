package import EmulatorSupport

/// A snapshot read from disk and fully checked: every file parsed, every record decoded.
package struct ImportedSnapshot: Sendable {
    package var directory: String
    /// nil when the snapshot has no Firestore part (empty when the documents went to a callback).
    package var firestore: [FirestoreExportDocument]?
    /// How many Firestore documents the snapshot holds.
    package var firestoreCount = 0
    /// nil when the snapshot has no Realtime Database part. One entry per `<namespace>.json`
    /// (`file`: its path, for errors found later).
    package var database: [(name: String, file: String, json: JSONValue)]?
}

/// Reads a snapshot directory for `--import`: the firebase-tools layout
/// (`firebase-export-metadata.json`), a bare production Firestore export (a
/// `*.overall_export_metadata` file), or a directory of production RTDB exports (`*.json`).
///
/// Nothing is returned unless the whole directory is valid, so a caller never loads half a
/// snapshot. Errors name the file (and the byte offset in binary files).
///
/// ```swift
/// let snapshot = try SnapshotImporter().read(directory: "emulator-data")
/// ```
package struct SnapshotImporter: Sendable {
    package var fileSystem: SnapshotFileSystem
    /// Told about what is skipped without failing the import (an unusable
    /// `output-N.emulators-times` side file: its documents get the import time).
    package var warn: @Sendable (String) -> Void

    package init(fileSystem: SnapshotFileSystem = SnapshotFileSystem(), warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.fileSystem = fileSystem
        self.warn = warn
    }

    package func read(directory: String) throws(SnapshotError) -> ImportedSnapshot {
        try read(directory: directory, firestoreDocument: nil)
    }

    /// Like `read(directory:)`, but hands each Firestore document to `firestoreDocument` as it is
    /// decoded instead of keeping them all (so a caller can keep a compact form). The caller must
    /// still load nothing until this returns: a later file may turn out to be damaged.
    package func read(
        directory: String, firestoreDocument: ((FirestoreExportDocument) -> Void)?
    ) throws(SnapshotError) -> ImportedSnapshot {
        try read(directory: directory, sink: firestoreDocument.map { .decoded($0) })
    }

    /// Like `read(directory:firestoreDocument:)`, with each document already in the storage
    /// encoding (fields as `ValueCodec` bytes, transcoded on the decoding threads without
    /// building value trees): the fast path for `--import`.
    package func read(
        directory: String, storedDocument: @escaping (FirestoreStoredDocument) -> Void
    ) throws(SnapshotError) -> ImportedSnapshot {
        try read(directory: directory, sink: .stored(storedDocument))
    }

    enum Sink {
        case decoded((FirestoreExportDocument) -> Void)
        case stored((FirestoreStoredDocument) -> Void)
    }

    private func read(directory: String, sink: Sink?) throws(SnapshotError) -> ImportedSnapshot {
        let root = fileSystem.absolute(directory)
        guard fileSystem.exists(root) else { throw SnapshotError(.notFound, "Directory \"\(root)\" does not exist.") }
        guard fileSystem.isDirectory(root) else {
            throw SnapshotError(.notFound, "\"\(root)\" is a file, not a snapshot directory.", file: root)
        }
        var result = ImportedSnapshot(directory: root)
        let metadataPath = root + "/" + ExportMetadata.fileName
        if fileSystem.exists(metadataPath) {
            let metadata = try ExportMetadata(parsing: try fileSystem.read(metadataPath), file: metadataPath)
            if let firestore = metadata.firestore, let file = firestore.metadataFile {
                try readFirestore(resolve(file, in: root), into: &result, sink)
            }
            if let database = metadata.database {
                let dir = resolve(database.path, in: root)
                guard fileSystem.isDirectory(dir) else {
                    throw SnapshotError(.notFound, "the database export directory named in \(ExportMetadata.fileName) does not exist", file: dir)
                }
                result.database = try readDatabase(dir)
            }
            return result
        }
        let entries = try fileSystem.list(root)
        if let overall = entries.first(where: { $0.hasSuffix(".overall_export_metadata") }) {
            try readFirestore(root + "/" + overall, into: &result, sink)
        } else if entries.contains(where: { $0.hasSuffix(".json") }) {
            result.database = try readDatabase(root)
        } else {
            throw SnapshotError(
                .notFound, "no \(ExportMetadata.fileName), *.overall_export_metadata or *.json file found", file: root)
        }
        return result
    }

    private func readFirestore(
        _ metadataFile: String, into result: inout ImportedSnapshot, _ sink: Sink?
    ) throws(SnapshotError) {
        var documents: [FirestoreExportDocument] = []
        var count = 0
        let reader = FirestoreExportReader(fileSystem: fileSystem, warn: warn)
        switch sink {
        case .decoded(let body)?:
            try reader.read(metadataFile: metadataFile) { document in
                count += 1
                body(document)
            }
        case .stored(let body)?:
            try reader.readStored(metadataFile: metadataFile) { document in
                count += 1
                body(document)
            }
        case nil:
            try reader.read(metadataFile: metadataFile) { document in
                count += 1
                documents.append(document)
            }
        }
        // Databases beyond the official part (ours; see FirestoreExportWriter).
        let more = SnapshotFileSystem.split(metadataFile).parent + "/" + FirestoreExportWriter.moreDatabasesDirectory + "/"
            + FirestoreExportWriter.overallFile
        if fileSystem.exists(more) {
            var extra = ImportedSnapshot(directory: result.directory)
            try readFirestore(more, into: &extra, sink)
            documents.append(contentsOf: extra.firestore ?? [])
            count += extra.firestoreCount
        }
        result.firestore = documents
        result.firestoreCount = count
    }

    private func resolve(_ path: String, in root: String) -> String {
        path.hasPrefix("/") ? path : root + "/" + path
    }

    /// Every `<namespace>.json` in `dir`, parsed.
    private func readDatabase(_ dir: String) throws(SnapshotError) -> [(name: String, file: String, json: JSONValue)] {
        var namespaces: [(name: String, file: String, json: JSONValue)] = []
        for entry in try fileSystem.list(dir) where entry.hasSuffix(".json") {
            let file = dir + "/" + entry
            let bytes = try fileSystem.read(file)
            do throws(JSONError) {
                let name = DatabaseExportFileName.decode(String(entry.dropLast(5)))
                namespaces.append((name, file, try JSONReader.parse(bytes, maxDepth: 64)))
            } catch {
                throw SnapshotError(.corrupted, "invalid JSON: \(error)", file: file, offset: error.offset)
            }
        }
        return namespaces
    }
}
