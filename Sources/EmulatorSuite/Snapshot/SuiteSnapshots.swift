import DatabaseEmulator
import EmulatorModel
import EmulatorSnapshot
import EmulatorStorage
import EmulatorSupport
import FirestoreEmulator
import Synchronization

/// The snapshot layer wired into the suite: `--import` at start, `POST /_admin/export` and
/// `--export-on-exit`. An export takes one engine snapshot and hands it to both emulators'
/// exporters, so Firestore and the Realtime Database are cut at the same instant.
///
/// ```swift
/// CommandRunner(hooks: .live(version: SuiteVersion.current))
/// ```
final class SuiteSnapshots: Sendable {
    let version: String
    let fileSystem: SnapshotFileSystem
    /// RTDB namespaces imported at start-up: exported even when empty (as `null`), as officially.
    private let importedNamespaces = Mutex<[String]>([])

    init(version: String, fileSystem: SnapshotFileSystem = SnapshotFileSystem()) {
        self.version = version
        self.fileSystem = fileSystem
    }

    /// Reads and checks the whole directory, then loads it into the engine.
    func importData(_ plan: ImportPlan, _ context: EmulatorContext) throws(SnapshotFailure) {
        // Documents are kept in their stored form (grouped by database, in file order) while the
        // rest of the directory is checked. A snapshot of one project (every official export)
        // goes into the running project, whatever project it names; one holding several projects
        // keeps each project apart.
        var groups: [(database: DatabaseID, entries: [StoredEntry])] = []
        var groupIndex: [DatabaseID: Int] = [:]
        var current = -1
        var invalid: EmulatorError?
        let snapshot: ImportedSnapshot
        do throws(SnapshotError) {
            // Entities are transcoded straight to the stored encoding on the decoding threads.
            let console = context.console
            let importer = SnapshotImporter(fileSystem: fileSystem) { console.warning("firestore", $0) }
            snapshot = try importer.read(directory: plan.directory) { document in
                guard invalid == nil else { return }
                if current < 0 || groups[current].database.project != document.projectID
                    || groups[current].database.database != document.databaseID
                {
                    let database = DatabaseID(project: document.projectID, database: document.databaseID)
                    if let index = groupIndex[database] {
                        current = index
                    } else {
                        current = groups.count
                        groupIndex[database] = current
                        groups.append((database, []))
                    }
                }
                do throws(EmulatorError) {
                    groups[current].entries.append(StoredEntry(
                        key: try FirestoreSnapshotAdapter.key(document.path), value: document.encodedFields,
                        createTime: document.createTime, updateTime: document.updateTime))
                } catch {
                    invalid = error
                }
            }
        } catch {
            throw SnapshotFailure(.failed, error.description)
        }
        if let invalid { throw SnapshotFailure(.failed, invalid.message) }
        // Every RTDB namespace is checked before anything loads: a refused import leaves the
        // engine (and a --data-dir journal) untouched, so a corrected import can follow.
        for namespace in snapshot.database ?? [] {
            if let problem = DatabaseSnapshotAdapter.importProblem(in: namespace.json) {
                throw SnapshotFailure(.failed, "\(namespace.file): \(problem)")
            }
        }
        if Set(groups.map(\.database.project)).count == 1 {
            for index in groups.indices {
                groups[index].database = DatabaseID(project: context.projectId, database: groups[index].database.database)
            }
        }
        do throws(EmulatorError) {
            if snapshot.firestore != nil {
                try FirestoreSnapshotAdapter.load(groups.map { ($0.database, $0.entries) }, into: context.storage)
                groups = []
                context.console.info("firestore", "Imported \(snapshot.firestoreCount) documents from \(plan.directory)")
            }
            if let namespaces = snapshot.database {
                for namespace in namespaces {
                    DatabaseSnapshotAdapter.loadNamespace(namespace.name, json: namespace.json, into: context.storage)
                }
                importedNamespaces.withLock { $0 = namespaces.map(\.name) }
                context.console.info("database", "Imported \(namespaces.count) namespace(s) from \(plan.directory)")
            }
        } catch {
            throw SnapshotFailure(.failed, error.message)
        }
    }

    /// Writes one consistent cut of the engine to `request.path`, atomically.
    func exportData(_ request: ExportRequest, _ context: EmulatorContext) throws(SnapshotFailure) {
        let cut: StorageSnapshot
        do throws(StorageError) { cut = try context.storage.snapshot() } catch {
            throw SnapshotFailure(.failed, error.description)
        }
        let database: [DatabaseExportNamespace]? =
            request.targets.contains(.database)
            ? DatabaseSnapshotAdapter.exportNamespaceNames(from: cut, alsoInclude: importedNamespaces.withLock { $0 })
                .map { name in
                    // Streamed from the snapshot into the file, never held whole in memory.
                    DatabaseExportNamespace(name: name) { write throws(SnapshotError) in
                        try DatabaseSnapshotAdapter.streamExport(name, from: cut, write)
                    }
                }
            : nil
        let firestore: ((inout FirestoreExportWriter) throws(SnapshotError) -> Void)? =
            request.targets.contains(.firestore)
            ? { (writer: inout FirestoreExportWriter) throws(SnapshotError) in
                // The official part holds what the official suite exports: the running project's
                // (default) database. Every other database goes beside it, so nothing is lost.
                writer.primary = (context.projectId, "(default)")
                try FirestoreSnapshotAdapter.exportStoredDocuments(from: cut) {
                    (database: DatabaseID, path: ResourcePath, stored: StoredEntry) throws(SnapshotError) in
                    try writer.add(stored: FirestoreStoredDocument(
                        projectID: database.project, databaseID: database.database, path: path, encodedFields: stored.value,
                        createTime: stored.createTime, updateTime: stored.updateTime))
                }
            }
            : nil
        do throws(SnapshotError) {
            // The CLI asked before overwriting (or --force / export-on-exit said so); the exporter
            // still refuses the current directory, its parents and directories that are not exports.
            try SnapshotExporter(version: version, fileSystem: fileSystem)
                .export(to: request.path, force: true, database: database, firestore: firestore)
        } catch {
            throw SnapshotFailure(.failed, error.description)
        }
        context.console.info("hub", "Exported data to \(request.path)")
    }
}

extension SnapshotHooks {
    /// Import and export through EmulatorSnapshot, over the suite's shared engine.
    package static func live(version: String) -> SnapshotHooks {
        let snapshots = SuiteSnapshots(version: version)
        return SnapshotHooks(
            importData: { plan, context throws(SnapshotFailure) in try snapshots.importData(plan, context) },
            exportData: { request, context throws(SnapshotFailure) in try snapshots.exportData(request, context) })
    }
}
