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
        let snapshot: ImportedSnapshot
        do throws(SnapshotError) {
            snapshot = try SnapshotImporter(fileSystem: fileSystem).read(directory: plan.directory)
        } catch {
            throw SnapshotFailure(.failed, error.description)
        }
        do throws(EmulatorError) {
            if let documents = snapshot.firestore {
                // Documents go into the running project whatever project the export names.
                let project = context.projectId
                try FirestoreSnapshotAdapter.importDocuments(
                    documents.lazy.map { (DatabaseID(project: project, database: $0.databaseID), $0.path, $0.fields) },
                    into: context.storage)
                context.console.info("firestore", "Imported \(documents.count) documents from \(plan.directory)")
            }
            if let namespaces = snapshot.database {
                for namespace in namespaces {
                    try DatabaseSnapshotAdapter.importNamespace(namespace.name, json: namespace.json, into: context.storage)
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
            ? DatabaseSnapshotAdapter.exportNamespaces(from: cut, alsoInclude: importedNamespaces.withLock { $0 })
                .map { DatabaseExportNamespace(name: $0.name, json: $0.json) }
            : nil
        let firestore: ((inout FirestoreExportWriter) throws(SnapshotError) -> Void)? =
            request.targets.contains(.firestore)
            ? { (writer: inout FirestoreExportWriter) throws(SnapshotError) in
                try FirestoreSnapshotAdapter.exportDocuments(from: cut) {
                    (database: DatabaseID, path: ResourcePath, fields: ValueMap) throws(SnapshotError) in
                    try writer.add(FirestoreExportDocument(
                        projectID: database.project, databaseID: database.database, path: path, fields: fields))
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
