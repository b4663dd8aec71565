import EmulatorTestSupport
import Testing
import Glibc
import EmulatorModel
import EmulatorSupport
@testable import EmulatorSnapshot

@Suite struct SnapshotDirectoryTests {
    static let books = [
        FirestoreExportDocument(projectID: "demo", path: ResourcePath(segments: ["books", "hitchhiker"]),
                                fields: ["title": "The Hitchhiker's Guide to the Galaxy", "numberOfPages": .integer(816)]),
        FirestoreExportDocument(projectID: "demo", path: ResourcePath(segments: ["colors", "red"]), fields: ["hex": "#FF0000FF"]),
    ]
    static let users = DatabaseExportNamespace(name: "demo-default-rtdb", json: Array(#"{"users":{"u1":{"username":"ada"}}}"#.utf8))

    func export(_ target: String, force: Bool = false, fs: SnapshotFileSystem = SnapshotFileSystem(),
                docs: [FirestoreExportDocument] = books) throws(SnapshotError) {
        try SnapshotExporter(version: "0.1.0", fileSystem: fs).export(to: target, force: force, database: [Self.users]) {
            (writer: inout FirestoreExportWriter) throws(SnapshotError) in
            for doc in docs { try writer.add(doc) }
        }
    }

    @Test func metadataFileMatchesJSONStringifyLayout() throws {
        let metadata = ExportMetadata(
            version: "15.0.0",
            firestore: .init(version: "1.22.0", path: "firestore_export", metadataFile: "firestore_export/firestore_export.overall_export_metadata"),
            database: .init(version: "4.11.2", path: "database_export"))
        let expected = """
        {
          "version": "15.0.0",
          "firestore": {
            "version": "1.22.0",
            "path": "firestore_export",
            "metadata_file": "firestore_export/firestore_export.overall_export_metadata"
          },
          "database": {
            "version": "4.11.2",
            "path": "database_export"
          }
        }
        """
        #expect(String(decoding: metadata.encoded(), as: UTF8.self) == expected)
        #expect(try ExportMetadata(parsing: metadata.encoded(), file: "m") == metadata)
    }

    @Test func exportThenImportRoundTrips() throws {
        let dir = TemporaryDirectory()
        try export(dir.path + "/data")
        let entries = try SnapshotFileSystem().list(dir.path + "/data")
        #expect(entries == ["database_export", "firebase-export-metadata.json", "firestore_export"])
        #expect(try dir.read("data/database_export/demo-default-rtdb.json") == Array(#"{"users":{"u1":{"username":"ada"}}}"#.utf8))
        let snapshot = try SnapshotImporter().read(directory: dir.path + "/data")
        #expect(snapshot.firestore == Self.books)
        #expect(snapshot.database?.count == 1)
        #expect(snapshot.database?.first?.name == "demo-default-rtdb")
        // No temporary directories are left beside the target.
        #expect(try SnapshotFileSystem().list(dir.path) == ["data"])
    }

    @Test func officialLayoutFilesAreWhereFirebaseToolsLooks() throws {
        let dir = TemporaryDirectory()
        try export(dir.path + "/data")
        let fs = SnapshotFileSystem()
        for file in [
            "firestore_export/firestore_export.overall_export_metadata",
            "firestore_export/all_namespaces/all_kinds/all_namespaces_all_kinds.export_metadata",
            "firestore_export/all_namespaces/all_kinds/output-0",
        ] { #expect(fs.exists(dir.path + "/data/" + file), "\(file)") }
        var overall = LevelDBLogReader(bytes: try dir.read("data/firestore_export/firestore_export.overall_export_metadata"), file: "o")
        let records = try overall.readAll()
        #expect(records.first == [0x33])
        #expect(records.count == 2)
    }

    @Test func largeExportsStreamAcrossReadChunks() throws {
        let dir = TemporaryDirectory()
        let big = String(repeating: "x", count: 100_000)
        let docs = (0..<60).map { i in
            FirestoreExportDocument(projectID: "demo", path: ResourcePath(segments: ["big", "d\(i)"]), fields: ["text": .string(big), "i": .integer(Int64(i))])
        }
        try export(dir.path + "/data", docs: docs)
        #expect((SnapshotFileSystem().fileSize(dir.path + "/data/firestore_export/all_namespaces/all_kinds/output-0") ?? 0) > 4 << 20)
        #expect(try SnapshotImporter().read(directory: dir.path + "/data").firestore == docs)
    }

    @Test func manyDocumentsKeepTheirOrderThroughParallelDecoding() throws {
        let dir = TemporaryDirectory()
        let docs = (0..<20_000).map { i in
            FirestoreExportDocument(projectID: "demo", path: ResourcePath(segments: ["n", "d\(i)"]), fields: ["i": .integer(Int64(i))])
        }
        try export(dir.path + "/data", docs: docs)
        #expect(try SnapshotImporter().read(directory: dir.path + "/data").firestore == docs)
    }

    @Test func emptyFirestoreWritesOnlyTheVersionRecord() throws {
        let dir = TemporaryDirectory()
        try export(dir.path + "/data", docs: [])
        var overall = LevelDBLogReader(bytes: try dir.read("data/firestore_export/firestore_export.overall_export_metadata"), file: "o")
        #expect(try overall.readAll() == [[0x33]])
        #expect(try SnapshotImporter().read(directory: dir.path + "/data").firestore == [])
    }

    @Test func existingExportNeedsForceAndIsReplaced() throws {
        let dir = TemporaryDirectory()
        try export(dir.path + "/data")
        #expect(throws: SnapshotError(.exists, "Export already exists in the target directory, re-run with --force to overwrite.")) {
            try export(dir.path + "/data")
        }
        try export(dir.path + "/data", force: true, docs: [Self.books[0]])
        #expect(try SnapshotImporter().read(directory: dir.path + "/data").firestore == [Self.books[0]])
    }

    @Test func currentDirectoryAndParentsAreRefused() throws {
        let cwd = SnapshotFileSystem().currentDirectory()
        for target in [".", cwd, "..", "/"] {
            #expect(throws: SnapshotError.self) { try export(target, force: true) }
            do { try export(target, force: true) } catch { #expect(error.code == .refused) }
        }
    }

    @Test func nonExportDirectoryIsRefusedEvenWithForce() throws {
        let dir = TemporaryDirectory()
        try dir.write("project/notes.txt", Array("keep me".utf8))
        do {
            try export(dir.path + "/project", force: true)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.code == .refused)
            #expect(error.message.contains("notes.txt"))
        }
        #expect(try dir.read("project/notes.txt") == Array("keep me".utf8))
    }

    @Test func diskFullDuringExportKeepsThePreviousSnapshot() throws {
        let dir = TemporaryDirectory()
        try export(dir.path + "/data")
        let before = try dir.read("data/firestore_export/all_namespaces/all_kinds/output-0")
        let fs = SnapshotFileSystem(writeFault: { $0.hasSuffix("output-0") ? ENOSPC : nil })
        do {
            try export(dir.path + "/data", force: true, fs: fs, docs: [Self.books[1]])
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .io)
            #expect(error.message.contains("no space left on device"))
            #expect(error.file?.hasSuffix("output-0") == true)
        }
        #expect(try dir.read("data/firestore_export/all_namespaces/all_kinds/output-0") == before)
        #expect(try SnapshotImporter().read(directory: dir.path + "/data").firestore == Self.books)
        #expect(try SnapshotFileSystem().list(dir.path) == ["data"])
    }

    @Test(.enabled(if: getuid() != 0, "root ignores directory permissions"))
    func permissionDeniedIsAClearError() throws {
        let dir = TemporaryDirectory()
        try export(dir.path + "/ro/data")
        chmod(dir.path + "/ro", 0o555)
        defer { chmod(dir.path + "/ro", 0o755) }
        do {
            try export(dir.path + "/ro/data", force: true)
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .io)
            #expect(error.message.contains("permission denied"))
        }
        #expect(try SnapshotImporter().read(directory: dir.path + "/ro/data").firestore == Self.books)
    }

    @Test func permissionDeniedWhileWritingKeepsThePreviousSnapshot() throws {
        let dir = TemporaryDirectory()
        try export(dir.path + "/data")
        let fs = SnapshotFileSystem(writeFault: { $0.hasSuffix(".json") ? EACCES : nil })
        do {
            try export(dir.path + "/data", force: true, fs: fs, docs: [])
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .io)
            #expect(error.message.contains("permission denied"))
        }
        #expect(try SnapshotImporter().read(directory: dir.path + "/data").firestore == Self.books)
    }

    @Test func anExportKilledBetweenTheRenamesIsRepairedByTheNext() throws {
        let dir = TemporaryDirectory()
        try export(dir.path + "/data")
        let fs = SnapshotFileSystem()
        // As if a process (pid 999999, gone) moved the snapshot aside and died before the swap,
        // leaving its temporary directory too.
        try fs.rename(dir.path + "/data", dir.path + "/.data.previous-999999-1")
        try fs.makeDirectory(dir.path + "/.data.export-999999-1")
        try export(dir.path + "/data", force: true, docs: [Self.books[0]])
        #expect(try fs.list(dir.path) == ["data"])
        #expect(try SnapshotImporter().read(directory: dir.path + "/data").firestore == [Self.books[0]])
    }

    @Test func corruptedOutputFileIsRefusedWithFileAndOffset() throws {
        let dir = TemporaryDirectory()
        try export(dir.path + "/data")
        let output = "data/firestore_export/all_namespaces/all_kinds/output-0"
        var bytes = try dir.read(output)
        bytes[bytes.count - 1] ^= 0x40
        try dir.write(output, bytes)
        do {
            _ = try SnapshotImporter().read(directory: dir.path + "/data")
            Issue.record("expected a failure")
        } catch {
            #expect(error.code == .corrupted)
            #expect(error.file == dir.path + "/" + output)
            #expect(error.offset != nil)
            #expect(error.description.contains("output-0 at offset"))
        }
    }

    @Test func truncatedOutputFileIsRefused() throws {
        let dir = TemporaryDirectory()
        try export(dir.path + "/data")
        let output = "data/firestore_export/all_namespaces/all_kinds/output-0"
        try dir.write(output, Array(try dir.read(output).dropLast(5)))
        #expect(throws: SnapshotError.self) { _ = try SnapshotImporter().read(directory: dir.path + "/data") }
    }

    @Test func missingAndMalformedImportsNameTheFile() throws {
        let dir = TemporaryDirectory()
        #expect(throws: SnapshotError(.notFound, "Directory \"\(dir.path)/nope\" does not exist.")) {
            _ = try SnapshotImporter().read(directory: dir.path + "/nope")
        }
        try dir.write("bad/firebase-export-metadata.json", Array("{\"version\": ".utf8))
        do {
            _ = try SnapshotImporter().read(directory: dir.path + "/bad")
            Issue.record("expected a failure")
        } catch {
            #expect(error.file == dir.path + "/bad/firebase-export-metadata.json")
        }
        try dir.write("badjson/firebase-export-metadata.json", Array(#"{"version":"1","database":{"version":"x","path":"database_export"}}"#.utf8))
        try dir.write("badjson/database_export/ns.json", Array("{\"a\": }".utf8))
        do {
            _ = try SnapshotImporter().read(directory: dir.path + "/badjson")
            Issue.record("expected a failure")
        } catch {
            #expect(error.file == dir.path + "/badjson/database_export/ns.json")
            #expect(error.code == .corrupted)
        }
    }

    @Test func productionExportsAreDetected() throws {
        let dir = TemporaryDirectory()
        try export(dir.path + "/data")
        // A bare production Firestore export: the overall metadata file at the top.
        let fs = SnapshotFileSystem()
        try fs.rename(dir.path + "/data/firestore_export", dir.path + "/prod")
        #expect(try SnapshotImporter().read(directory: dir.path + "/prod").firestore == Self.books)
        // A directory of RTDB JSON exports.
        try dir.write("rtdb/my-ns.json", Array("{\"a\":1}".utf8))
        #expect(try SnapshotImporter().read(directory: dir.path + "/rtdb").database?.first?.name == "my-ns")
    }
}
