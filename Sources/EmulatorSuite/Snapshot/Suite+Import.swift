import EmulatorSnapshot

extension Suite {
    /// `POST /_admin/import` (the Emulator UI's import): the directory is checked as `--import`
    /// checks it (an export moved aside by an interrupted export is put back; it must exist and
    /// hold an emulator export, a production Firestore export or RTDB JSON files) and loaded by
    /// the same hook, over the running data: documents it holds replace those at the same paths,
    /// a Realtime Database namespace it holds replaces that namespace. Clients see the load as
    /// one change (listeners and streams included).
    static func importWhileRunning(
        _ path: String, hook: SnapshotHooks.Import, _ context: EmulatorContext
    ) throws(SnapshotFailure) -> String {
        if SnapshotExporter.restoreInterruptedExport(at: path) {
            context.console.warning("emulators", "Restored \"\(path)\" from the snapshot an interrupted export had moved aside.")
        }
        guard case .directory = LocalFiles.kind(path) else {
            throw SnapshotFailure(.invalid, "Directory \"\(path)\" does not exist.")
        }
        guard let source = DataDirectories.detect(path) else {
            throw SnapshotFailure(.invalid, "Could not find import/export metadata file in \"\(path)\"; nothing was imported.")
        }
        try hook(ImportPlan(directory: path, source: source), context)
        context.console.info("emulators", "Imported \(path) from the Emulator UI")
        return "Imported \(path)"
    }
}
