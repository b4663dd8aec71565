import EmulatorModel
import EmulatorStorage

/// The writes of one commit in progress over the engine's commit builder.
///
/// `document(_:)` answers with this commit's own earlier writes first, so several writes to one
/// document in one commit apply in order.
struct CommitBuffer {
    /// The commit's builder, where the engine keeps it while the commit body runs: the buffer
    /// works on it there, so the builder is neither copied in nor copied back (a copy of it
    /// retains its state's references and its change log; a copy that shared its trees would
    /// make every write copy nodes). Valid only inside `DocumentStore.commit`'s body, which is
    /// all the buffer lives for.
    private let pointer: UnsafeMutablePointer<CommitBuilder>
    let namespace: NamespaceID
    /// The document the last write of this buffer stored (nil after a delete): the fields it was
    /// encoded from and its times, so reading it back needs no decode (``written(_:)``).
    private var lastSet: StoredDocument?

    init(builder: UnsafeMutablePointer<CommitBuilder>, namespace: NamespaceID) {
        pointer = builder
        self.namespace = namespace
    }

    var builder: CommitBuilder {
        unsafeAddress { UnsafePointer(pointer) }
        nonmutating unsafeMutableAddress { pointer }
    }

    var commitTime: Int64 { builder.commitTime }
    var view: DatabaseView<CommitBuilder> { DatabaseView(source: builder, namespace: namespace) }

    /// The document as this commit currently sees it.
    func document(_ path: ResourcePath) throws(EmulatorError) -> StoredDocument? {
        try view.document(path)
    }

    /// The document at `key` (``DatabaseView/key(_:)`` of `path`), for a caller that writes it
    /// next. With `decodingFields: false` its fields are left empty (for a caller that only needs
    /// to know whether it exists and when it was written).
    func document(_ path: ResourcePath, key: StorageKey, decodingFields: Bool = true) throws(EmulatorError) -> StoredDocument? {
        guard let e = builder.entry(namespace, key) else { return nil }
        if !decodingFields { return StoredDocument(path: path, fields: ValueMap(), createTime: e.createTime, updateTime: e.updateTime) }
        return try DatabaseView<CommitBuilder>.decode(e, path: path)
    }

    /// The document at `path` as this commit currently sees it, without decoding it when it is
    /// the one the buffer's last write stored (the fields encoded are exactly the fields read
    /// back: the value encoding round-trips).
    func written(_ path: ResourcePath) throws(EmulatorError) -> StoredDocument? {
        if let lastSet, lastSet.path == path { return lastSet }
        return try document(path)
    }

    /// Sets the document's fields. Returns its update time after this write: the commit time, or
    /// the previous update time when nothing changed.
    @discardableResult
    mutating func set(_ path: ResourcePath, fields: ValueMap) throws(EmulatorError) -> Int64 {
        try set(path, key: DatabaseView<CommitBuilder>.key(path), fields: fields)
    }

    /// ``set(_:fields:)`` with the storage key already built.
    @discardableResult
    mutating func set(_ path: ResourcePath, key: StorageKey, fields: ValueMap) throws(EmulatorError) -> Int64 {
        let times: WriteTimes
        do {
            times = try builder.put(namespace, key, ValueCodec.encode(fields))
        } catch {
            lastSet = nil
            throw .internal("Storage rejected the write of \(path): \(error.message)")
        }
        lastSet = StoredDocument(path: path, fields: fields, createTime: times.createTime, updateTime: times.updateTime)
        return times.updateTime
    }

    /// Deletes the document (a no-op when it is missing).
    mutating func delete(_ path: ResourcePath) throws(EmulatorError) {
        lastSet = nil
        do { try builder.delete(namespace, DatabaseView<CommitBuilder>.key(path)) } catch {
            throw .internal("Storage rejected the delete of \(path): \(error.message)")
        }
    }
}
