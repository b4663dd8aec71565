import EmulatorModel

/// The writes of one commit in progress, over the head state it started from.
///
/// `document(_:)` answers with this commit's own earlier writes first, so several writes to one
/// document in one commit apply in order.
struct CommitBuffer {
    let view: DatabaseState
    let commitTime: Int64
    private var order: [[UInt8]] = []
    private var pending: [[UInt8]: (path: ResourcePath, document: StoredDocument?)] = [:]

    init(view: DatabaseState, commitTime: Int64) {
        self.view = view
        self.commitTime = commitTime
    }

    private static func key(_ path: ResourcePath) -> [UInt8] { Array(path.description.utf8) }

    /// The document as this commit currently sees it.
    func document(_ path: ResourcePath) throws(EmulatorError) -> StoredDocument? {
        if let p = pending[Self.key(path)] { return p.document }
        return try view.document(path, at: .max)
    }

    /// The document at the head before this commit (ignoring its own writes).
    func committedDocument(_ path: ResourcePath) throws(EmulatorError) -> StoredDocument? {
        try view.document(path, at: .max)
    }

    /// Sets the document's fields. Returns its update time after this write: the commit time, or the
    /// previous update time when nothing changed.
    @discardableResult
    mutating func set(_ path: ResourcePath, fields: ValueMap) throws(EmulatorError) -> Int64 {
        let current = try document(path)
        if let current, current.fields == fields {
            record(path, current)
            return current.updateTime
        }
        let created = current?.createTime ?? commitTime
        record(path, StoredDocument(path: path, fields: fields, createTime: created, updateTime: commitTime))
        return commitTime
    }

    /// Deletes the document (a no-op when it is missing).
    mutating func delete(_ path: ResourcePath) throws(EmulatorError) {
        if try document(path) == nil, pending[Self.key(path)] == nil { return }
        record(path, nil)
    }

    private mutating func record(_ path: ResourcePath, _ document: StoredDocument?) {
        let key = Self.key(path)
        if pending.updateValue((path, document), forKey: key) == nil { order.append(key) }
    }

    /// The final state of every touched document, in first-touch order.
    var finalChanges: [(path: ResourcePath, bytes: [UInt8]?)] {
        order.compactMap { key in
            guard let p = pending[key] else { return nil }
            return (p.path, p.document.map { ValueCodec.encode($0.fields) })
        }
    }
}
