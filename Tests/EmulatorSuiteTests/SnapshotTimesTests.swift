import EmulatorModel
import EmulatorSnapshot
import EmulatorStorage
import EmulatorTestSupport
import FirestoreEmulator
import Testing
@testable import EmulatorSuite

/// Export then import through the suite's snapshot hooks: documents come back with their
/// original create and update times, and later commits are later than all of them.
@Suite struct SnapshotTimesTests {
    @Test func documentsKeepTheirTimesAcrossExportAndImport() throws {
        let dir = TemporaryDirectory()
        let output = CapturedOutput()
        let source = EmulatorContext(projectId: "demo-times", console: output.console)
        let ns = FirestoreSnapshotAdapter.namespace(DatabaseID(project: "demo-times", database: "(default)"))
        let fields = ValueCodec.encode(["title": .string("Dune")] as ValueMap)
        try source.storage.commit { (txn: inout CommitBuilder) throws(StorageError) in
            try txn.put(ns, StorageKey("books/a"), fields)
            try txn.put(ns, StorageKey("books/b"), fields)
        }
        try source.storage.commit { (txn: inout CommitBuilder) throws(StorageError) in
            try txn.put(ns, StorageKey("books/a"), ValueCodec.encode(["title": .string("Dune Messiah")] as ValueMap))
        }
        let before = Array(try source.storage.snapshot().scan(ns))
        #expect(before.count == 2, "\(before.map { ($0.key.description, $0.createTime, $0.updateTime) })")
        #expect(before.first.map { $0.createTime < $0.updateTime } == true)

        let snapshots = SuiteSnapshots(version: "test")
        try snapshots.exportData(ExportRequest(path: dir.path + "/data", initiatedBy: "test", targets: [.firestore]), source)

        let target = EmulatorContext(projectId: "demo-other", console: output.console)
        try snapshots.importData(ImportPlan(directory: dir.path + "/data", source: .emulatorExport(
            metadataFile: dir.path + "/data/firebase-export-metadata.json")), target)
        let imported = FirestoreSnapshotAdapter.namespace(DatabaseID(project: "demo-other", database: "(default)"))
        let after = Array(try target.storage.snapshot().scan(imported))
        #expect(after.map(\.key) == before.map(\.key))
        #expect(after.map(\.value) == before.map(\.value))
        #expect(after.map(\.createTime) == before.map(\.createTime))
        #expect(after.map(\.updateTime) == before.map(\.updateTime))
        let next = try target.storage.commit { (txn: inout CommitBuilder) throws(StorageError) in
            try txn.put(imported, StorageKey("books/c"), fields)
        }
        #expect(next.commitTime > before.map(\.updateTime).max() ?? 0)
    }

    /// A times side file that does not describe its `output-0` (here: another export's) is
    /// ignored with a warning naming it; the documents still import, with the import time.
    @Test func aSideFileForAnotherOutputIsIgnoredWithAWarning() throws {
        let dir = TemporaryDirectory()
        let output = CapturedOutput()
        let snapshots = SuiteSnapshots(version: "test")
        let ns = FirestoreSnapshotAdapter.namespace(DatabaseID(project: "demo-times", database: "(default)"))
        let fields = ValueCodec.encode(["title": .string("Dune")] as ValueMap)
        let source = EmulatorContext(projectId: "demo-times", console: output.console)
        try source.storage.commit { (txn: inout CommitBuilder) throws(StorageError) in try txn.put(ns, StorageKey("books/a"), fields) }
        try snapshots.exportData(ExportRequest(path: dir.path + "/one", initiatedBy: "test", targets: [.firestore]), source)
        try source.storage.commit { (txn: inout CommitBuilder) throws(StorageError) in try txn.put(ns, StorageKey("books/b"), fields) }
        try snapshots.exportData(ExportRequest(path: dir.path + "/two", initiatedBy: "test", targets: [.firestore]), source)
        let kinds = "/firestore_export/all_namespaces/all_kinds/"
        let sideFile = dir.path + "/one" + kinds + "output-0.emulators-times"
        let other = try #require(LocalFiles.read(dir.path + "/two" + kinds + "output-0.emulators-times"))
        #expect(LocalFiles.write(other, to: sideFile))

        let target = EmulatorContext(projectId: "demo-times", console: output.console)
        try snapshots.importData(ImportPlan(directory: dir.path + "/one", source: .emulatorExport(
            metadataFile: dir.path + "/one/firebase-export-metadata.json")), target)
        let after = Array(try target.storage.snapshot().scan(ns))
        let before = Array(try source.storage.snapshot().scan(ns))
        #expect(after.map(\.key) == [StorageKey("books/a")])
        #expect(after.first?.createTime != before.first?.createTime)
        let text = output.standardOutput + output.standardError
        #expect(text.contains("Ignoring \(sideFile): it was written for output-0 at "), "\(text)")
        #expect(text.contains("its documents get the import time."))
    }

    @Test func theOfficialPartHoldsOnlyTheDefaultDatabaseAndNothingIsLost() throws {
        let dir = TemporaryDirectory()
        let output = CapturedOutput()
        let source = EmulatorContext(projectId: "demo-main", console: output.console)
        let fields = ValueCodec.encode(["n": .integer(1)] as ValueMap)
        let databases = [
            DatabaseID(project: "demo-main", database: "(default)"), DatabaseID(project: "demo-main", database: "other"),
            DatabaseID(project: "demo-else", database: "(default)"),
        ]
        try source.storage.commit { (txn: inout CommitBuilder) throws(StorageError) in
            for database in databases {
                try txn.put(FirestoreSnapshotAdapter.namespace(database), StorageKey("docs/\(database.project)-\(database.database)"), fields)
            }
        }
        let snapshots = SuiteSnapshots(version: "test")
        try snapshots.exportData(ExportRequest(path: dir.path + "/data", initiatedBy: "test", targets: [.firestore]), source)

        // What the official importer reads: the metadata file and what it points at.
        let official = try FirestoreExportReader(fileSystem: SnapshotFileSystem())
            .read(metadataFile: dir.path + "/data/firestore_export/firestore_export.overall_export_metadata")
        #expect(official.map(\.path.description) == ["docs/demo-main-(default)"])
        #expect(official.map(\.databaseID) == ["(default)"])

        let target = EmulatorContext(projectId: "demo-main", console: output.console)
        try snapshots.importData(ImportPlan(directory: dir.path + "/data", source: .emulatorExport(
            metadataFile: dir.path + "/data/firebase-export-metadata.json")), target)
        let snapshot = try target.storage.snapshot()
        for database in databases {
            #expect(snapshot.count(FirestoreSnapshotAdapter.namespace(database)) == 1, "\(database)")
        }
    }
}
