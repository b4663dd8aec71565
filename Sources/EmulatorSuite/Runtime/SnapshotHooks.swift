/// What the suite calls to import at start and export on request and at exit: `.live` (SuiteSnapshots)
/// over EmulatorSnapshot, or a test's stand-in. A hook that throws `notImplemented` makes an
/// import warn and start empty, and an export answer 501 at the hub.
package struct SnapshotHooks: Sendable {
    package typealias Import = @Sendable (ImportPlan, EmulatorContext) throws(SnapshotFailure) -> Void
    package typealias Export = @Sendable (ExportRequest, EmulatorContext) throws(SnapshotFailure) -> Void

    package var importData: Import
    package var exportData: Export

    package init(importData: @escaping Import, exportData: @escaping Export) {
        self.importData = importData
        self.exportData = exportData
    }
}

/// `POST /_admin/export` and `--export-on-exit`, decoded.
package struct ExportRequest: Sendable, Equatable {
    /// The absolute target directory.
    package var path: String
    /// `emulators:export` or `exit`.
    package var initiatedBy: String
    /// The emulators to export (running ones only).
    package var targets: [EmulatorKind]

    package init(path: String, initiatedBy: String, targets: [EmulatorKind]) {
        self.path = path
        self.initiatedBy = initiatedBy
        self.targets = targets
    }
}

/// Why an import or export did not happen.
package struct SnapshotFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package struct Code: Sendable, Hashable, RawRepresentable {
        package var rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }
        package static let notImplemented = Code(rawValue: "not-implemented")
        package static let failed = Code(rawValue: "failed")
        /// The request itself is wrong (no such directory, not an export).
        package static let invalid = Code(rawValue: "invalid")
    }

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }
}
