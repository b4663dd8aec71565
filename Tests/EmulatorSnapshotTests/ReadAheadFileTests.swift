import EmulatorTestSupport
import Glibc
import Testing
import EmulatorModel
@testable import EmulatorSnapshot

@Suite struct ReadAheadFileTests {
    static func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) } }

    /// Every byte arrives once, in order, in chunks of `chunk` bytes; only the last is final;
    /// through the page cache and with direct I/O (directFrom 0), at any depth.
    @Test(arguments: [(0, 4096), (1, 4096), (4095, 4096), (4096, 4096), (4097, 4096), (5 * 4096 + 17, 4096), (100_000, 333),
                      (3 * 65_536 + 4095, 65_536)])
    func deliversTheWholeFileInOrder(size: Int, chunk: Int) throws {
        let dir = TemporaryDirectory()
        let bytes = Self.pattern(size)
        try dir.write("f", bytes)
        for (depth, directFrom) in [(2, Int.max), (3, Int.max), (5, Int.max), (2, 0), (3, 0)] {
            var seen: [UInt8] = []
            var finals: [Bool] = []
            try SnapshotFileSystem().readChunks(dir.path + "/f", chunkSize: chunk, depth: depth, directFrom: directFrom) {
                piece, offset, isFinal throws(SnapshotError) in
                #expect(offset == seen.count)
                #expect(piece.count <= chunk)
                seen += piece
                finals.append(isFinal)
            }
            #expect(seen == bytes)
            #expect(finals.last == true)
            #expect(finals.dropLast().allSatisfy { !$0 })
            #expect(finals.count == max(1, (size + chunk - 1) / chunk))
        }
    }

    /// A file that gets shorter while it is read is refused at the offset where it ended,
    /// through the page cache or with direct I/O.
    @Test(arguments: [Int.max, 0])
    func aFileThatShrinksWhileReadIsRefused(directFrom: Int) throws {
        let dir = TemporaryDirectory()
        try dir.write("f", Self.pattern(8 * 4096))
        let path = dir.path + "/f"
        var offsets: [Int] = []
        do {
            try SnapshotFileSystem().readChunks(path, chunkSize: 4096, depth: 2, directFrom: directFrom) {
                _, offset, _ throws(SnapshotError) in
                offsets.append(offset)
                if offset == 0 { #expect(truncate(path, 3 * 4096 + 100) == 0) }
            }
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .corrupted)
            #expect(error.file == path)
            #expect(error.offset == 3 * 4096 + 100)
        }
        #expect(offsets.last == 2 * 4096)  // the cut chunk itself is never handed out
    }

    @Test func aReadErrorNamesTheFileAndOffsetAfterTheChunksBeforeIt() throws {
        let dir = TemporaryDirectory()
        try dir.write("f", Self.pattern(10 * 1000))
        let fs = SnapshotFileSystem(readFault: { _, offset in offset == 3000 ? EIO : nil })
        var offsets: [Int] = []
        do {
            try fs.readChunks(dir.path + "/f", chunkSize: 1000) { _, offset, _ throws(SnapshotError) in offsets.append(offset) }
            Issue.record("expected a read error")
        } catch {
            #expect(error.code == .io)
            #expect(error.file == dir.path + "/f")
            #expect(error.offset == 3000)
        }
        #expect(offsets == [0, 1000, 2000])
    }

    @Test func stoppingEarlyEndsTheReaderThread() throws {
        let dir = TemporaryDirectory()
        try dir.write("f", Self.pattern(64 * 1024))
        struct Stop: Error {}
        // The consumer throws after the first chunk while the reader has filled every buffer.
        var calls = 0
        #expect(throws: SnapshotError.self) {
            try SnapshotFileSystem().readChunks(dir.path + "/f", chunkSize: 1024, depth: 2) { _, _, _ throws(SnapshotError) in
                calls += 1
                usleep(20_000)
                throw SnapshotError(.corrupted, "stop")
            }
        }
        #expect(calls == 1)
        let file = try ReadAheadFile(path: dir.path + "/f", chunkSize: 1024, depth: 2, fileSystem: SnapshotFileSystem())
        #expect(try file.next()?.offset == 0)
        file.close()
        file.close()
    }

    @Test func aMissingFileIsNotFound() {
        do {
            _ = try ReadAheadFile(path: "/nonexistent/output-0", chunkSize: 1024, fileSystem: SnapshotFileSystem())
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .notFound)
            #expect(error.file == "/nonexistent/output-0")
        }
    }
}

/// The importer over the read-ahead reader: records across chunk boundaries, a cut last chunk,
/// and a read error, each refused with file and offset and nothing handed out after it.
@Suite struct ImportReadAheadTests {
    static let output = "data/firestore_export/all_namespaces/all_kinds/output-0"

    /// 60 documents of ~100 KB: about 6 MB, so records straddle the 4 MiB read chunks.
    static func bigExport(_ dir: TemporaryDirectory) throws -> [FirestoreExportDocument] {
        let big = String(repeating: "y", count: 100_000)
        let docs = (0..<60).map { i in
            FirestoreExportDocument(projectID: "demo", path: ResourcePath(segments: ["big", "d\(i)"]), fields: ["text": .string(big), "i": .integer(Int64(i))])
        }
        try SnapshotExporter(version: "0.1.0").export(to: dir.path + "/data", force: false, database: nil) {
            (writer: inout FirestoreExportWriter) throws(SnapshotError) in
            for doc in docs { try writer.add(doc) }
        }
        return docs
    }

    @Test func storedImportReadsRecordsAcrossChunkBoundaries() throws {
        let dir = TemporaryDirectory()
        let docs = try Self.bigExport(dir)
        var paths: [ResourcePath] = []
        let snapshot = try SnapshotImporter().read(directory: dir.path + "/data") { (stored: FirestoreStoredDocument) in
            paths.append(stored.path)
        }
        #expect(snapshot.firestoreCount == 60)
        #expect(paths == docs.map(\.path))
    }

    @Test(arguments: [1, 5, 40_000, 1_000_000, 2_000_000])
    func aFileCutInsideItsLastChunkIsRefusedWithFileAndOffset(cut: Int) throws {
        let dir = TemporaryDirectory()
        _ = try Self.bigExport(dir)
        let bytes = try dir.read(Self.output)
        try dir.write(Self.output, Array(bytes.dropLast(cut)))
        var handed = 0
        do {
            _ = try SnapshotImporter().read(directory: dir.path + "/data") { (_: FirestoreStoredDocument) in handed += 1 }
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .corrupted)
            #expect(error.file == dir.path + "/" + Self.output)
            #expect((error.offset ?? -1) >= 0 && (error.offset ?? .max) < bytes.count - cut)
        }
        // Documents decoded before the damage may reach the callback (the caller loads nothing
        // until read returns), but never the damaged record or anything after it.
        #expect(handed < 60)
    }

    @Test func aReadErrorInTheMiddleIsRefusedWithFileAndOffset() throws {
        let dir = TemporaryDirectory()
        _ = try Self.bigExport(dir)
        let path = dir.path + "/" + Self.output
        let fs = SnapshotFileSystem(readFault: { file, offset in file == path && offset > 0 ? EIO : nil })
        do {
            _ = try SnapshotImporter(fileSystem: fs).read(directory: dir.path + "/data")
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .io)
            #expect(error.file == path)
            #expect(error.offset == 4 << 20)
            #expect(error.description.contains("output-0 at offset 4194304: reading failed: input/output error"))
        }
    }
}
