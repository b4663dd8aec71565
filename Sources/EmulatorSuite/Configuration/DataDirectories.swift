import EmulatorSnapshot

/// Validation of `--import` and `--export-on-exit`, with the official CLI's messages.
package enum DataDirectories {
    package struct Resolved: Sendable, Equatable {
        package var importPlan: ImportPlan?
        package var exportOnExit: String?
        package var notices: [SuiteNotice] = []
    }

    package static func resolve(
        importDirectory: String?, exportOnExit: String??, workingDirectory: String
    ) throws(ConfigurationError) -> Resolved {
        var resolved = Resolved()
        let importPath = importDirectory.map { LocalFiles.absolute($0, relativeTo: workingDirectory) }

        if let exportOption = exportOnExit {
            guard let directory = exportOption ?? importDirectory else {
                throw ConfigurationError(
                    .invalidDataDirectory,
                    "\"--export-on-exit\" must be used with \"--import\" or provide a dir directly to \"--export-on-exit [dir]\"")
            }
            let exportPath = LocalFiles.absolute(directory, relativeTo: workingDirectory)
            let cwd = LocalFiles.absolute(".", relativeTo: workingDirectory)
            if cwd == exportPath || cwd.hasPrefix(exportPath == "/" ? "/" : exportPath + "/") {
                throw ConfigurationError(
                    .invalidDataDirectory,
                    "\"--export-on-exit\" must not point to the current directory or parents. Please choose a new/dedicated directory for exports.")
            }
            // What the export at exit would refuse (a file, a directory of other things) fails
            // the start now, with the export's own message, instead of losing the session's data.
            // A missing directory is fine: the export creates it.
            do throws(SnapshotError) {
                let fileSystem = SnapshotFileSystem()
                try SnapshotExporter.checkExisting(fileSystem.canonical(exportPath), fileSystem: fileSystem)
            } catch {
                throw ConfigurationError(.invalidDataDirectory, error.description)
            }
            resolved.exportOnExit = exportPath
        }

        guard let importPath else { return resolved }
        if SnapshotExporter.restoreInterruptedExport(at: importPath) {
            resolved.notices.append(SuiteNotice(
                .warning, "emulators",
                "Restored \"\(importPath)\" from the snapshot an interrupted export had moved aside."))
        }
        switch LocalFiles.kind(importPath) {
        case .missing:
            // First run of `--import d --export-on-exit d`: nothing to import yet.
            if importPath == resolved.exportOnExit { return resolved }
            throw ConfigurationError(.invalidDataDirectory, "Directory \"\(importPath)\" does not exist.")
        case .file, .other:
            resolved.notices.append(skipping)
        case .directory:
            if let source = detect(importPath) {
                resolved.importPlan = ImportPlan(directory: importPath, source: source)
            } else {
                resolved.notices.append(skipping)
            }
        }
        return resolved
    }

    /// What kind of export a directory holds, in the official order of checks.
    package static func detect(_ directory: String) -> ImportPlan.Source? {
        let names = LocalFiles.list(directory)
        if names.contains("firebase-export-metadata.json") {
            return .emulatorExport(metadataFile: directory + "/firebase-export-metadata.json")
        }
        if let firestore = names.first(where: { $0.hasSuffix(".overall_export_metadata") }) {
            return .productionFirestore(metadataFile: directory + "/" + firestore)
        }
        let json = names.filter { $0.hasSuffix(".json") }
        if !json.isEmpty { return .productionDatabase(files: json.map { directory + "/" + $0 }) }
        return nil
    }

    private static let skipping = SuiteNotice(
        .warning, "emulators", "Could not find import/export metadata file, skipping data import!")
}
