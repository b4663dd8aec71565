/// The seam the snapshot layer (EmulatorSnapshot) fills: import at start, export on request and at exit.
///
/// Until it is filled, import warns and starts empty, and export fails with `notImplemented`
/// (the hub answers 501).
package struct SnapshotHooks: Sendable {
    package typealias Import = @Sendable (ImportPlan, EmulatorContext) throws(SnapshotFailure) -> Void
    package typealias Export = @Sendable (ExportRequest, EmulatorContext) throws(SnapshotFailure) -> Void

    package var importData: Import
    package var exportData: Export

    package init(importData: @escaping Import, exportData: @escaping Export) {
        self.importData = importData
        self.exportData = exportData
    }

    package static let unimplemented = SnapshotHooks(
        importData: { _, _ throws(SnapshotFailure) in
            throw SnapshotFailure(.notImplemented, "Importing data is not implemented yet")
        },
        exportData: { _, _ throws(SnapshotFailure) in
            throw SnapshotFailure(.notImplemented, "Exporting data is not implemented yet")
        })
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
    }

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }
}
