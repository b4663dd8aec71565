import EmulatorStorage

extension StorageEngine {
    /// Commits one write of `value` (UTF-8) at `key` in `namespace`.
    func put(_ namespace: NamespaceID, _ key: String, _ value: String) throws {
        try commit { (txn: inout CommitBuilder) throws(StorageError) in
            _ = try txn.put(namespace, StorageKey(key), Array(value.utf8))
        }
    }

    /// Every live entry as key → UTF-8 value; with `namespaced`, each key is prefixed with its
    /// namespace's name.
    func contents(namespaced: Bool) throws -> [String: String] {
        var result: [String: String] = [:]
        let snapshot = try snapshot()
        for namespace in snapshot.namespaces {
            for entry in snapshot.scan(namespace) {
                result[(namespaced ? namespace.name : "") + entry.key.description] = String(decoding: entry.value, as: UTF8.self)
            }
        }
        return result
    }
}
