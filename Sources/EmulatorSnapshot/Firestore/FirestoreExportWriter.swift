import EmulatorModel
import EmulatorProtobuf

/// Writes the `firestore_export/` part of a snapshot in the official managed-export layout:
///
/// ```
/// firestore_export/
///   firestore_export.overall_export_metadata            LevelDB log: [0x33], kind pointer
///   all_namespaces/all_kinds/
///     all_namespaces_all_kinds.export_metadata          protobuf: name, times, output files
///     output-0                                          LevelDB log of EntityProto
///     output-0.emulators-times                          create/update times (ours; see DocumentTimesFile)
///   emulators_more_databases/                           (ours) the same layout for every other database
/// ```
///
/// With `primary` set, only that database goes into the official part (the official suite
/// exports only the running project's `(default)` database, so that is all it finds there);
/// documents of any other database or project go into `emulators_more_databases/`, which the
/// official importer never looks at and ours reads too. Nothing is dropped.
///
/// ```swift
/// var writer = try FirestoreExportWriter(directory: tmp + "/firestore_export", fileSystem: fs, startMicros: now)
/// try writer.add(document)
/// try writer.finish(endMicros: now)
/// ```
package struct FirestoreExportWriter {
    package static let exportName = "firestore_export"
    package static let overallFile = "firestore_export.overall_export_metadata"
    package static let kindDirectory = "all_namespaces/all_kinds"
    package static let kindMetadataFile = "all_namespaces_all_kinds.export_metadata"
    package static let outputFile = "output-0"
    package static let moreDatabasesDirectory = "emulators_more_databases"
    /// The first record of an overall metadata file: the format version.
    static let formatVersion: UInt8 = 0x33

    private let directory: String
    private let fileSystem: SnapshotFileSystem
    private let startMicros: Int64
    private var log = LevelDBLogWriter()
    /// `output-0`, written with direct I/O in whole chunks (see BulkFile).
    private var output: BulkFile?
    package private(set) var entityCount = 0
    private var entityBytes = 0
    /// Create/update time of every document so far, for the times side file.
    private var times = DocumentTimesFile.Builder()
    /// One entity's bytes, reused for every document (no allocation per document).
    private var scratch: [UInt8] = []
    /// The (project, database) the official part holds; nil: every document goes there.
    package var primary: (project: String, database: String)?
    /// The writer of `emulators_more_databases/` (at most one element), made on first use.
    private var more: [FirestoreExportWriter] = []

    /// Creates `directory` and the kind directory, and opens `output-0`.
    package init(directory: String, fileSystem: SnapshotFileSystem, startMicros: Int64) throws(SnapshotError) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.startMicros = startMicros
        try fileSystem.makeDirectory(directory)
        try fileSystem.makeDirectory(directory + "/all_namespaces")
        try fileSystem.makeDirectory(directory + "/" + Self.kindDirectory)
        output = try BulkFile(path: directory + "/" + Self.kindDirectory + "/" + Self.outputFile, fileSystem: fileSystem)
    }

    /// Appends one document (as one EntityProto record).
    package mutating func add(_ document: FirestoreExportDocument) throws(SnapshotError) {
        if !isPrimary(document.projectID, document.databaseID) { return try other { (w) throws(SnapshotError) in try w.add(document) } }
        times.add(createTime: 0, updateTime: 0)
        try append(EntityProto.encode(document))
    }

    /// Appends one document whose fields are `ValueCodec` bytes (transcoded without value trees
    /// where possible). Throws `corrupted` if the bytes do not decode.
    package mutating func add(stored document: FirestoreStoredDocument) throws(SnapshotError) {
        if !isPrimary(document.projectID, document.databaseID) {
            return try other { (w) throws(SnapshotError) in try w.add(stored: document) }
        }
        times.add(createTime: document.createTime, updateTime: document.updateTime)
        if EntityProto.encode(stored: document, into: &scratch) { return try append(scratch) }
        let fields: ValueMap
        do throws(EmulatorError) { fields = try ValueCodec.decode(document.encodedFields) } catch {
            throw SnapshotError(.corrupted, "document \(document.path) does not decode: \(error.message)")
        }
        try append(EntityProto.encode(FirestoreExportDocument(
            projectID: document.projectID, databaseID: document.databaseID, path: document.path, fields: fields)))
    }

    private func isPrimary(_ project: String, _ database: String) -> Bool {
        guard let primary else { return true }
        return primary.project == project && primary.database == database
    }

    private mutating func other(_ body: (inout FirestoreExportWriter) throws(SnapshotError) -> Void) throws(SnapshotError) {
        if more.isEmpty {
            more.append(try FirestoreExportWriter(
                directory: directory + "/" + Self.moreDatabasesDirectory, fileSystem: fileSystem, startMicros: startMicros))
        }
        try body(&more[0])
    }

    private mutating func append(_ entity: [UInt8]) throws(SnapshotError) {
        entityCount += 1
        entityBytes += entity.count
        log.append(entity)
        if log.bytes.count >= 1 << 20, let output {
            try output.append(log.bytes)
            log.clearBuffer()
        }
    }

    /// Flushes the entities and writes both metadata files, all synced.
    package mutating func finish(endMicros: Int64) throws(SnapshotError) {
        guard let output else { return }
        for index in more.indices { try more[index].finish(endMicros: endMicros) }
        try output.append(log.bytes)
        log.clearBuffer()
        let size = try output.finish()
        self.output = nil
        let kindDir = directory + "/" + Self.kindDirectory
        let outputPath = kindDir + "/" + Self.outputFile
        if times.hasTimes {
            try fileSystem.writeFile(outputPath + DocumentTimesFile.suffix, times.encoded(outputBytes: size))
        }
        try fileSystem.writeFile(kindDir + "/" + Self.kindMetadataFile, Self.kindMetadata(startMicros: startMicros, endMicros: endMicros))
        try fileSystem.writeFile(
            directory + "/" + Self.overallFile,
            Self.overallMetadata(kindCount: entityCount, kindBytes: entityBytes))
        try fileSystem.syncDirectory(kindDir)
        try fileSystem.syncDirectory(directory + "/all_namespaces")
        try fileSystem.syncDirectory(directory)
    }

    /// `{1: {1: name, 2: start µs, 3: end µs}, 2: {1: "", 2: "output-0"}}`.
    static func kindMetadata(startMicros: Int64, endMicros: Int64) -> [UInt8] {
        var w = ProtoWriter()
        w.message(1) { m in
            m.string(1, exportName)
            m.int64(2, startMicros)
            m.int64(3, endMicros)
        }
        w.message(2) { f in
            f.string(1, "")
            f.string(2, outputFile)
        }
        return w.bytes
    }

    /// A log of `[0x33]` and, when there are entities, `{1: {1: 2, 3: 3}, 2: path, 3: count, 4: bytes}`.
    static func overallMetadata(kindCount: Int, kindBytes: Int) -> [UInt8] {
        var records: [[UInt8]] = [[formatVersion]]
        if kindCount > 0 {
            var w = ProtoWriter()
            w.message(1) { k in
                k.uint64(1, 2)
                k.uint64(3, 3)
            }
            w.string(2, kindDirectory + "/" + kindMetadataFile)
            w.uint64(3, UInt64(kindCount))
            w.uint64(4, UInt64(kindBytes))
            records.append(w.bytes)
        }
        return LevelDBLogWriter.encode(records)
    }
}
