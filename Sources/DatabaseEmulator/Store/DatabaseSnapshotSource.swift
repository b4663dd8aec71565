import EmulatorModel
import EmulatorStorage

/// Reads a committed snapshot.
struct DatabaseSnapshotSource: DatabaseDataSource {
    let snapshot: StorageSnapshot
    let namespace: NamespaceID

    func node(at path: DatabasePath) -> DatabaseNode {
        DatabaseStorageMapping.node(
            at: path, get: { snapshot.get(namespace, $0) }, scan: { snapshot.scan(namespace, $0) })
    }
}

/// Reads the inside of a commit (head plus nothing written yet).
struct DatabaseCommitSource: DatabaseDataSource {
    let txn: CommitBuilder
    let namespace: NamespaceID

    func node(at path: DatabasePath) -> DatabaseNode {
        DatabaseStorageMapping.node(at: path, get: { txn.get(namespace, $0) }, scan: { txn.scan(namespace, $0) })
    }

    /// Key and value bytes of the stored entries at and below `path`, stopping once past `limit`.
    func storedBytes(at path: DatabasePath, upTo limit: Int) -> Int {
        let range: StorageKeyRange = path.isRoot ? .all : .subtree(of: DatabaseStorageMapping.key(path))
        var total = 0
        for entry in txn.scan(namespace, range) {
            total += entry.key.encoded.count + entry.value.count
            if total > limit { break }
        }
        return total
    }
}
