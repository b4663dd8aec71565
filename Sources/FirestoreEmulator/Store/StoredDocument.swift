package import EmulatorModel
import EmulatorSupport

/// One live document as a read sees it: its path below `documents`, its fields and its times
/// (microseconds since the epoch).
package struct StoredDocument: Sendable, Equatable {
    package var path: ResourcePath
    package var fields: ValueMap
    package var createTime: Int64
    package var updateTime: Int64

    package init(path: ResourcePath, fields: ValueMap, createTime: Int64, updateTime: Int64) {
        self.path = path
        self.fields = fields
        self.createTime = createTime
        self.updateTime = updateTime
    }

    /// The value at `field`; `__name__` is the document's reference in `database`.
    package func value(at field: FieldPath, database: DatabaseID) -> Value? {
        if field.isDocumentID { return .reference(database.documentName(path)) }
        return fields.value(at: field)
    }
}

/// A project and database id pair: the unit of isolation. Documents of different pairs never mix.
package struct DatabaseID: Sendable, Hashable, CustomStringConvertible {
    package var project: String
    package var database: String

    package init(project: String, database: String) {
        self.project = project
        self.database = database
    }

    /// `projects/{p}/databases/{d}`.
    package var name: String { "projects/\(project)/databases/\(database)" }
    /// `projects/{p}/databases/{d}/documents`.
    package var rootName: String { name + "/documents" }
    package var description: String { name }

    /// The full resource name of `path`.
    package func documentName(_ path: ResourcePath) -> String {
        path.isEmpty ? rootName : rootName + "/" + path.description
    }

    /// Byte equality of the names (not String's canonical equivalence).
    package static func == (a: DatabaseID, b: DatabaseID) -> Bool {
        utf8Equal(a.project, b.project) && utf8Equal(a.database, b.database)
    }

    package func hash(into hasher: inout Hasher) {
        Value.hashUTF8(project, into: &hasher)
        Value.hashUTF8(database, into: &hasher)
    }
}
