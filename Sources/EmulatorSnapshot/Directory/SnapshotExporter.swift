import Glibc

/// Writes a whole snapshot directory atomically.
///
/// The snapshot is written into a temporary directory beside the target (same file system),
/// every file and directory is synced, then it is renamed into place. A previous snapshot is
/// moved aside only for the final rename and removed after it succeeded, so any failure (disk
/// full, permission denied, a crash) leaves the previous snapshot intact.
///
/// Targets refused: the current directory and its parents, a file, and a non-empty directory
/// holding anything but an export (a user's files are never replaced). A directory holding an
/// export is replaced only with `force` (`--force`, or export-on-exit).
///
/// ```swift
/// let exporter = SnapshotExporter(version: "0.1.0")
/// try exporter.export(to: "emulator-data", force: true, database: [ns]) { writer throws(SnapshotError) in
///     for doc in docs { try writer.add(doc) }
/// }
/// ```
package struct SnapshotExporter: Sendable {
    package static let firestorePath = "firestore_export"
    package static let databasePath = "database_export"
    /// Entries an export directory may hold (ours, and the official suite's other emulators).
    static let exportEntries: Set<String> = [
        ExportMetadata.fileName, firestorePath, databasePath, "auth_export", "storage_export",
    ]

    package var fileSystem: SnapshotFileSystem
    /// The CLI version written at the top of the metadata file.
    package var version: String
    package var firestoreVersion: String
    package var databaseVersion: String

    package init(
        version: String, firestoreVersion: String = "1.22.0", databaseVersion: String = "4.11.2",
        fileSystem: SnapshotFileSystem = SnapshotFileSystem()
    ) {
        self.version = version
        self.firestoreVersion = firestoreVersion
        self.databaseVersion = databaseVersion
        self.fileSystem = fileSystem
    }

    /// Checks that `target` may receive an export; returns its canonical absolute path.
    package func checkTarget(_ target: String, force: Bool) throws(SnapshotError) -> String {
        let path = fileSystem.canonical(target)
        let cwd = fileSystem.canonical(fileSystem.currentDirectory())
        if path == "/" || path == cwd || cwd.hasPrefix(path + "/") {
            throw SnapshotError(
                .refused,
                "Export target \"\(path)\" must not be the current directory or one of its parents: an export replaces the whole target directory.")
        }
        guard try Self.checkExisting(path, fileSystem: fileSystem) else { return path }
        if !force {
            throw SnapshotError(.exists, "Export already exists in the target directory, re-run with --force to overwrite.")
        }
        return path
    }

    /// The refusals that depend on what `path` (canonical) holds now, with the messages `export`
    /// gives: a file, or a non-empty directory holding anything but export entries. Returns
    /// whether `path` holds an export to replace (false: missing or empty).
    ///
    /// The suite runs this at start for `--export-on-exit`, so a target the export would refuse
    /// fails the start instead of losing the session's data at exit.
    @discardableResult
    package static func checkExisting(
        _ path: String, fileSystem: SnapshotFileSystem = SnapshotFileSystem()
    ) throws(SnapshotError) -> Bool {
        guard fileSystem.exists(path) else { return false }
        guard fileSystem.isDirectory(path) else {
            throw SnapshotError(.refused, "Export target \"\(path)\" is a file, not a directory.")
        }
        let entries = try fileSystem.list(path)
        if entries.isEmpty { return false }
        if let foreign = entries.first(where: { !exportEntries.contains($0) }) {
            throw SnapshotError(
                .refused,
                "Export target \"\(path)\" is not empty and does not hold an emulator export (it contains \"\(foreign)\"); refusing to replace it.")
        }
        return true
    }

    /// Writes the snapshot and swaps it into place; returns the target's absolute path.
    ///
    /// - Parameters:
    ///   - firestore: writes the documents (nil: no Firestore section).
    ///   - database: the RTDB namespaces (nil: no database section).
    @discardableResult
    package func export(
        to target: String, force: Bool, database: [DatabaseExportNamespace]?,
        firestore: ((inout FirestoreExportWriter) throws(SnapshotError) -> Void)?
    ) throws(SnapshotError) -> String {
        let (parent, name) = SnapshotFileSystem.split(fileSystem.canonical(target))
        if fileSystem.isDirectory(parent) { recoverInterruptedExport(parent: parent, name: name) }
        let path = try checkTarget(target, force: force)
        try fileSystem.makeDirectories(parent)
        let stamp = "\(getpid())-\(Self.nowMicros())"
        let temporary = parent + "/." + name + ".export-" + stamp
        do throws(SnapshotError) {
            try fileSystem.makeDirectory(temporary)
            try writeContents(into: temporary, database: database, firestore: firestore)
            try fileSystem.syncDirectory(temporary)
        } catch {
            fileSystem.removeTree(temporary)
            throw error
        }
        try swap(temporary, into: path, stamp: stamp)
        return path
    }

    private func writeContents(
        into directory: String, database: [DatabaseExportNamespace]?,
        firestore: ((inout FirestoreExportWriter) throws(SnapshotError) -> Void)?
    ) throws(SnapshotError) {
        var metadata = ExportMetadata(version: version)
        if let firestore {
            var writer = try FirestoreExportWriter(
                directory: directory + "/" + Self.firestorePath, fileSystem: fileSystem, startMicros: Self.nowMicros())
            try firestore(&writer)
            try writer.finish(endMicros: Self.nowMicros())
            metadata.firestore = ExportMetadata.Section(
                version: firestoreVersion, path: Self.firestorePath,
                metadataFile: Self.firestorePath + "/" + FirestoreExportWriter.overallFile)
        }
        if let database {
            let dir = directory + "/" + Self.databasePath
            try fileSystem.makeDirectory(dir)
            for namespace in database {
                // Encoded, so no name (one kept from before names were checked, say) can fail the
                // whole export or write outside `dir`.
                let file = try fileSystem.create(dir + "/" + DatabaseExportFileName.encode(namespace.name) + ".json")
                defer { file.close() }
                try namespace.stream { bytes throws(SnapshotError) in try file.write(bytes) }
                try file.sync()
            }
            try fileSystem.syncDirectory(dir)
            metadata.database = ExportMetadata.Section(version: databaseVersion, path: Self.databasePath)
        }
        // Written last, as the official suite does: a directory without it is not a finished export.
        try fileSystem.writeFile(directory + "/" + ExportMetadata.fileName, metadata.encoded())
    }

    /// Renames `temporary` to `path`, keeping any previous snapshot until the rename succeeded.
    private func swap(_ temporary: String, into path: String, stamp: String) throws(SnapshotError) {
        let (parent, name) = SnapshotFileSystem.split(path)
        var previous: String?
        if fileSystem.exists(path) {
            let aside = parent + "/." + name + ".previous-" + stamp
            do throws(SnapshotError) {
                try fileSystem.rename(path, aside)
            } catch {
                fileSystem.removeTree(temporary)
                throw error
            }
            previous = aside
        }
        do throws(SnapshotError) {
            try fileSystem.rename(temporary, path)
            try fileSystem.syncDirectory(parent)
        } catch {
            if let previous, !fileSystem.exists(path) { try? fileSystem.rename(previous, path) }
            fileSystem.removeTree(temporary)
            throw error
        }
        if let previous { fileSystem.removeTree(previous) }
    }

    /// Cleans up after an export that was killed: temporary directories of processes that are
    /// gone are removed, and if the target itself is missing while a moved-aside previous
    /// snapshot survives (killed between the two renames), that snapshot is put back.
    /// Puts back a snapshot that an export killed between its two renames left moved aside
    /// (`.<name>.previous-<pid>` of a process that is gone) when `target` itself is missing;
    /// true when it did. `--import` runs this first, so a start does not take the directory for
    /// a first run (and an `--export-on-exit` into it overwrite the repaired snapshot).
    package static func restoreInterruptedExport(
        at target: String, fileSystem: SnapshotFileSystem = SnapshotFileSystem()
    ) -> Bool {
        guard !fileSystem.exists(target) else { return false }
        let (parent, name) = SnapshotFileSystem.split(target)
        guard isSafeFileName(name), fileSystem.isDirectory(parent) else { return false }
        SnapshotExporter(version: "", fileSystem: fileSystem).recoverInterruptedExport(parent: parent, name: name)
        return fileSystem.exists(target)
    }

    func recoverInterruptedExport(parent: String, name: String) {
        guard let entries = try? fileSystem.list(parent) else { return }
        let target = parent + "/" + name
        for entry in entries {
            for marker in [".export-", ".previous-"] where entry.hasPrefix("." + name + marker) {
                let rest = entry.dropFirst(name.count + 1 + marker.count)
                guard let pid = Int32(rest.prefix { $0 != "-" }), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else {
                    continue
                }
                let path = parent + "/" + entry
                if marker == ".previous-" && !fileSystem.exists(target) {
                    try? fileSystem.rename(path, target)
                } else {
                    fileSystem.removeTree(path)
                }
            }
        }
    }

    static func isSafeFileName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.utf8.contains(0)
    }

    static func nowMicros() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec / 1_000)
    }
}
