package import EmulatorModel

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

    package static func == (a: DatabaseID, b: DatabaseID) -> Bool {
        sameUTF8(a.project, b.project) && sameUTF8(a.database, b.database)
    }

    /// Byte equality (not String's canonical equivalence), over contiguous storage when the
    /// strings have it (every native string does).
    private static func sameUTF8(_ a: String, _ b: String) -> Bool {
        let same = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in x.count == y.count && x.elementsEqual(y) }
        }
        if let same, let same { return same }
        return a.utf8.elementsEqual(b.utf8)
    }

    package func hash(into hasher: inout Hasher) {
        Value.hashUTF8(project, into: &hasher)
        Value.hashUTF8(database, into: &hasher)
    }
}
