package import EmulatorModel
package import EmulatorStorage

/// How Firestore documents go to and from a snapshot: the neutral form is (database, path,
/// fields); the snapshot layer turns it into export records and back.
///
/// ```swift
/// FirestoreSnapshotAdapter.exportDocuments(from: snapshot) { database, path, fields in … }
/// try FirestoreSnapshotAdapter.importDocuments(documents, into: engine)
/// ```
package enum FirestoreSnapshotAdapter {
    static let prefix = "firestore/"

    /// Calls `body` for every document in `snapshot` (every project and database), in key order.
    /// Documents that exist only as parents of others are not stored, so not exported.
    /// Throws the first error `body` throws; a stored value that does not decode is skipped.
    package static func exportDocuments<Failure: Error>(
        from snapshot: StorageSnapshot,
        _ body: (DatabaseID, ResourcePath, ValueMap) throws(Failure) -> Void
    ) throws(Failure) {
        try exportStoredDocuments(from: snapshot) { (database, path, entry) throws(Failure) in
            // Values were encoded by this emulator; one that does not decode is skipped
            // rather than failing the whole export.
            guard let fields = try? ValueCodec.decode(entry.value) else { return }
            try body(database, path, fields)
        }
    }

    /// The engine namespace of a database.
    package static func namespace(_ database: DatabaseID) -> NamespaceID { DocumentStore.namespace(database) }

    /// A document in the form the engine stores it: namespace, key and ValueCodec bytes (compact:
    /// an import keeps these, not value trees, until the whole snapshot is known to be good).
    package struct Entry: Sendable {
        package var namespace: NamespaceID
        package var key: StorageKey
        package var value: [UInt8]
        /// The document's original times when the snapshot carries them; 0 = the import's time.
        package var createTime: CommitTime = 0
        package var updateTime: CommitTime = 0
    }

    /// The stored form of a document; throws `INVALID_ARGUMENT` for a path that is not a document.
    package static func entry(database: DatabaseID, path: ResourcePath, fields: ValueMap) throws(EmulatorError) -> Entry {
        guard path.isDocument else { throw .invalidArgument("\"\(path)\" is not a document path") }
        return Entry(
            namespace: DocumentStore.namespace(database), key: DatabaseView<StorageSnapshot>.key(path),
            value: ValueCodec.encode(fields))
    }

    /// The stored form of a document whose fields are already `ValueCodec` bytes (a snapshot
    /// transcoded them); throws `INVALID_ARGUMENT` for a path that is not a document.
    package static func entry(database: DatabaseID, path: ResourcePath, encodedFields: [UInt8]) throws(EmulatorError) -> Entry {
        guard path.isDocument else { throw .invalidArgument("\"\(path)\" is not a document path") }
        return Entry(namespace: DocumentStore.namespace(database), key: DatabaseView<StorageSnapshot>.key(path), value: encodedFields)
    }

    /// Like `exportDocuments`, but hands over each document's stored entry (`ValueCodec`
    /// fields, create and update time) without decoding it, for exporters that transcode directly.
    package static func exportStoredDocuments<Failure: Error>(
        from snapshot: StorageSnapshot,
        _ body: (DatabaseID, ResourcePath, StoredEntry) throws(Failure) -> Void
    ) throws(Failure) {
        for namespace in snapshot.namespaces where namespace.name.hasPrefix(prefix) {
            let parts = namespace.name.dropFirst(prefix.count).split(separator: "/", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let database = DatabaseID(project: String(parts[0]), database: String(parts[1]))
            for entry in snapshot.scan(namespace) where entry.key.depth % 2 == 0 {
                try body(database, ResourcePath(segments: entry.key.segments), entry)
            }
        }
    }

    /// The engine key of a document path (throws `INVALID_ARGUMENT` for a path that is not a document).
    package static func key(_ path: ResourcePath) throws(EmulatorError) -> StorageKey {
        guard path.isDocument else { throw .invalidArgument("\"\(path)\" is not a document path") }
        return DatabaseView<StorageSnapshot>.key(path)
    }

    /// Loads the documents of each database (stored entries, keys from `key(_:)`, values
    /// `ValueCodec` bytes) with their times; one `StorageEngine.restore` per database, so entries
    /// in key order go into an empty database as a bottom-up tree build.
    package static func load(_ databases: [(DatabaseID, [StoredEntry])], into engine: StorageEngine) throws(EmulatorError) {
        for (database, entries) in databases {
            do throws(StorageError) { try engine.restore(namespace(database), entries) } catch {
                throw .invalidArgument("cannot import documents into \(database.database): \(error.message)")
            }
        }
    }

    /// Loads prepared entries, keeping their times (`StorageEngine.restore`): one restore per
    /// namespace, so entries in key order (as every export holds them) go into an empty database
    /// as a bottom-up tree build rather than one commit per batch.
    package static func load(_ entries: [Entry], into engine: StorageEngine) throws(EmulatorError) {
        var order: [NamespaceID] = []
        var groups: [NamespaceID: [StoredEntry]] = [:]
        for entry in entries {
            let stored = StoredEntry(key: entry.key, value: entry.value, createTime: entry.createTime, updateTime: entry.updateTime)
            if order.last != entry.namespace && groups[entry.namespace] == nil { order.append(entry.namespace) }
            groups[entry.namespace, default: []].append(stored)
        }
        for namespace in order {
            guard let group = groups.removeValue(forKey: namespace) else { continue }
            do throws(StorageError) { try engine.restore(namespace, group) } catch {
                throw .invalidArgument("cannot import documents: \(error.message)")
            }
        }
    }

    /// Writes `documents` (replacing any document at the same path) in commits of `batchSize`.
    package static func importDocuments(
        _ documents: some Sequence<(database: DatabaseID, path: ResourcePath, fields: ValueMap)>,
        into engine: StorageEngine, batchSize: Int = 10_000
    ) throws(EmulatorError) {
        var batch: [(NamespaceID, StorageKey, [UInt8])] = []
        batch.reserveCapacity(batchSize)
        func flush() throws(EmulatorError) {
            guard !batch.isEmpty else { return }
            try engine.commit { (txn: inout CommitBuilder) throws(EmulatorError) in
                for (ns, key, value) in batch {
                    do throws(StorageError) { _ = try txn.put(ns, key, value) } catch {
                        throw .invalidArgument("cannot import document \(key): \(error.message)")
                    }
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
        for document in documents {
            guard document.path.isDocument else {
                throw .invalidArgument("\"\(document.path)\" is not a document path")
            }
            batch.append((
                DocumentStore.namespace(document.database), DatabaseView<StorageSnapshot>.key(document.path),
                ValueCodec.encode(document.fields)))
            if batch.count >= batchSize { try flush() }
        }
        try flush()
    }
}
