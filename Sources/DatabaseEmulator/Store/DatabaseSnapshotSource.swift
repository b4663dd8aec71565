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
}
