import DatabaseEmulator
import EmulatorModel
import EmulatorStorage

extension StorageEngine {
    /// The RTDB node stored at `path` of namespace `ns` now, read back whole from the entries.
    func databaseNode(_ ns: NamespaceID, at path: DatabasePath) throws -> DatabaseNode {
        let snapshot = try snapshot()
        return DatabaseStorageMapping.node(at: path, get: { snapshot.get(ns, $0) }, scan: { snapshot.scan(ns, $0) })
    }
}
