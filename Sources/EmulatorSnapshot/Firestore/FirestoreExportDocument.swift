package import EmulatorModel

/// One Firestore document as a snapshot carries it, independent of how an emulator stores it.
///
/// ```swift
/// let doc = FirestoreExportDocument(
///     projectID: "demo", databaseID: "(default)",
///     path: ResourcePath(segments: ["books", "hitchhiker"]), fields: ["title": "The Hitchhiker's Guide"])
/// ```
package struct FirestoreExportDocument: Sendable, Equatable {
    /// The project named in the export (an import loads into the running project regardless).
    package var projectID: String
    /// `(default)` unless the export names another database.
    package var databaseID: String
    /// The document path, e.g. `books/hitchhiker` (an even number of segments).
    package var path: ResourcePath
    package var fields: ValueMap

    package init(projectID: String, databaseID: String = "(default)", path: ResourcePath, fields: ValueMap) {
        self.projectID = projectID
        self.databaseID = databaseID
        self.path = path
        self.fields = fields
    }
}
