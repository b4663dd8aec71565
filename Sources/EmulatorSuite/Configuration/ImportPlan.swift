/// What `--import` found in its directory. The snapshot layer carries it out.
package struct ImportPlan: Sendable, Equatable {
    package enum Source: Sendable, Equatable {
        /// `firebase-export-metadata.json` written by an emulator export.
        case emulatorExport(metadataFile: String)
        /// A production Firestore export (`*.overall_export_metadata`).
        case productionFirestore(metadataFile: String)
        /// Production Realtime Database exports: every `*.json` file in the directory.
        case productionDatabase(files: [String])
    }

    /// The absolute import directory.
    package var directory: String
    package var source: Source

    package init(directory: String, source: Source) {
        self.directory = directory
        self.source = source
    }
}
