import EmulatorProtobuf
/// Reads a managed-export Firestore snapshot from its `*.overall_export_metadata` file, following
/// the pointers inside (so production exports with one kind directory per collection and several
/// `output-N` files read too). Every record is checked; nothing is returned unless all are good.
///
/// ```swift
/// let docs = try FirestoreExportReader(fileSystem: fs).read(metadataFile: dir + "/firestore_export/firestore_export.overall_export_metadata")
/// ```
package struct FirestoreExportReader {
    package let fileSystem: SnapshotFileSystem
    /// Told about what is skipped without failing the read (an unusable times side file).
    package var warn: @Sendable (String) -> Void

    package init(fileSystem: SnapshotFileSystem, warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.fileSystem = fileSystem
        self.warn = warn
    }

    package func read(metadataFile: String) throws(SnapshotError) -> [FirestoreExportDocument] {
        var documents: [FirestoreExportDocument] = []
        try read(metadataFile: metadataFile) { documents.append($0) }
        return documents
    }

    /// Calls `body` for every document, in file order. Throws on the first damaged byte.
    package func read(
        metadataFile: String, _ body: (FirestoreExportDocument) -> Void
    ) throws(SnapshotError) {
        try read(metadataFile: metadataFile, transform: { (record) throws(ProtoFailure) in try EntityProto.decode(record) }, body)
    }

    /// Like `read(metadataFile:_:)`, but each document arrives already in the storage encoding
    /// (fields as `ValueCodec` bytes, transcoded without building value trees).
    package func readStored(metadataFile: String, _ body: (FirestoreStoredDocument) -> Void) throws(SnapshotError) {
        try read(
            metadataFile: metadataFile, transform: { (record) throws(ProtoFailure) in try EntityProto.transcode(record) },
            stamp: { document, created, updated in
                document.createTime = created
                document.updateTime = updated
            }, body)
    }

    /// Runs `transform` on every entity record (on the decoding threads), then `body` with its
    /// result, in file order.
    /// `stamp` (if given) sets the create/update times from the `output-N` side file.
    func read<Prepared>(
        metadataFile: String, transform: @escaping @Sendable ([UInt8]) throws(ProtoFailure) -> Prepared,
        stamp: ((inout Prepared, Int64, Int64) -> Void)? = nil,
        _ body: (Prepared) -> Void
    ) throws(SnapshotError) {
        let overall = try fileSystem.read(metadataFile)
        var log = LevelDBLogReader(bytes: overall, file: metadataFile)
        guard let version = try log.next() else {
            throw SnapshotError(.corrupted, "empty export metadata (expected a format version record)", file: metadataFile, offset: 0)
        }
        guard version.count == 1 else {
            throw SnapshotError(.corrupted, "the first record is not a format version byte", file: metadataFile, offset: 0)
        }
        let baseDirectory = SnapshotFileSystem.split(metadataFile).parent
        while true {
            let recordOffset = log.position
            guard let record = try log.next() else { break }
            let kindPath: String
            do throws(ProtoFailure) {
                kindPath = try Self.kindMetadataPath(record)
            } catch {
                throw SnapshotError(.corrupted, "bad kind pointer: \(error.message)", file: metadataFile, offset: recordOffset)
            }
            let kindFile = resolve(kindPath, base: baseDirectory)
            try readKind(kindFile, transform, stamp, body)
        }
    }

    private static func kindMetadataPath(_ record: [UInt8]) throws(ProtoFailure) -> String {
        var r = ProtoRecordReader(record)
        var path: String?
        while let (f, w) = try r.next() {
            if f == 2 {
                try r.expect(w, .lengthDelimited, f)
                path = try r.string()
            } else {
                try r.skip(w)
            }
        }
        guard let path, !path.isEmpty else { throw ProtoFailure(offset: 0, message: "no kind metadata path") }
        return path
    }

    /// A relative path resolves against the metadata file's directory; an absolute one (or a
    /// `gs://` one from production) that is not there falls back to its last three components.
    private func resolve(_ path: String, base: String) -> String {
        if !path.hasPrefix("/") && !path.contains("://") { return base + "/" + path }
        if fileSystem.exists(path) { return path }
        let parts = path.split(separator: "/")
        return base + "/" + parts.suffix(3).joined(separator: "/")
    }

    private func readKind<Prepared>(
        _ kindFile: String, _ transform: @escaping @Sendable ([UInt8]) throws(ProtoFailure) -> Prepared,
        _ stamp: ((inout Prepared, Int64, Int64) -> Void)?, _ body: (Prepared) -> Void
    ) throws(SnapshotError) {
        let bytes = try fileSystem.read(kindFile)
        var outputs: [String] = []
        do throws(ProtoFailure) {
            var r = ProtoRecordReader(bytes)
            while let (f, w) = try r.next() {
                guard f == 2 else { try r.skip(w); continue }
                try r.expect(w, .lengthDelimited, f)
                var entry = try r.message()
                while let (ef, ew) = try entry.next() {
                    guard ef == 2 else { try entry.skip(ew); continue }
                    try entry.expect(ew, .lengthDelimited, ef)
                    outputs.append(try entry.string())
                }
            }
        } catch {
            throw SnapshotError(.corrupted, "bad export metadata: \(error.message)", file: kindFile, offset: error.offset)
        }
        let directory = SnapshotFileSystem.split(kindFile).parent
        for output in outputs {
            let outputFile = output.hasPrefix("/") ? output : directory + "/" + output
            try readEntities(outputFile, transform, stamp, body)
        }
    }

    private func readEntities<Prepared>(
        _ file: String, _ transform: @escaping @Sendable ([UInt8]) throws(ProtoFailure) -> Prepared,
        _ stamp: ((inout Prepared, Int64, Int64) -> Void)?, _ body: (Prepared) -> Void
    ) throws(SnapshotError) {
        if let stamp {
            let times: [(Int64, Int64)]
            switch DocumentTimesFile.read(for: file, fileSystem: fileSystem) {
            case .absent:
                return try readEntities(file, transform, body)
            case .ignored(let reason):
                warn("Ignoring \(file)\(DocumentTimesFile.suffix): \(reason); its documents get the import time.")
                return try readEntities(file, transform, body)
            case .times(let pairs):
                times = pairs
            }
            var index = 0
            return try readEntities(file, transform) { (prepared: consuming Prepared) in
                var stamped = prepared
                if index < times.count { stamp(&stamped, times[index].0, times[index].1) }
                index += 1
                body(stamped)
            }
        }
        try readEntities(file, transform, body)
    }

    private func readEntities<Prepared>(
        _ file: String, _ transform: @escaping @Sendable ([UInt8]) throws(ProtoFailure) -> Prepared,
        _ body: (consuming Prepared) -> Void
    ) throws(SnapshotError) {
        // Streamed in 4 MiB chunks (whole 32 KiB blocks): a 1 GB export never sits in memory at once.
        var batch = EntityBatchDecoder(transform: transform)
        var carry: (record: [UInt8], start: Int)?
        try fileSystem.readChunks(file, chunkSize: 128 * LevelDBLog.blockSize) {
            (chunk: [UInt8], base: Int, isFinal: Bool) throws(SnapshotError) in
            var log = LevelDBLogReader(
                bytes: chunk, file: file, baseOffset: base, isFinal: isFinal, carry: carry?.record, carryStart: carry?.start ?? 0)
            while true {
                let offset = log.nextRecordStart
                guard let record = try log.next() else { break }
                batch.append(record, offset: offset)
                if batch.isFull { try batch.flush(file: file, body) }
            }
            carry = log.carry.map { ($0, log.carryStart) }
        }
        try batch.flush(file: file, body)
    }
}
