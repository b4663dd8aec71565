import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import SecurityRules

/// A namespace's data at one point in time, read straight from storage: a committed snapshot,
/// or the inside of a commit before it writes (`CommitBuilder.snapshot`). Reads, streams,
/// pushes and the rules (`value(at:)`, their `data` and `root`) all read through it, lazily.
struct DatabaseSnapshotSource: DatabaseRulesDataSource {
    let snapshot: StorageSnapshot
    let namespace: NamespaceID

    /// The node at `path` (`.empty` when absent).
    func node(at path: DatabasePath) -> DatabaseNode {
        DatabaseStorageMapping.node(
            at: path, get: { snapshot.get(namespace, $0) }, scan: { snapshot.scan(namespace, $0) })
    }

    /// The one stored entry that holds the whole node at `path`, when that is a packed object:
    /// then `node(at:)` is `DatabaseStorageMapping.storedNode(entry.value)`, a function of the
    /// entry's bytes alone (a packed object carries its priorities inside). Nil for anything else
    /// (a leaf, whose priority is an entry of its own; entries below `path`; nothing).
    func packedEntry(at path: DatabasePath) -> StoredEntry? {
        guard let entry = snapshot.get(namespace, DatabaseStorageMapping.leafKey(path)),
            DatabasePackedCodec.isPacked(entry.value)
        else { return nil }
        return entry
    }

    /// Whether anything is stored at `path` (without building the subtree).
    func exists(_ path: DatabasePath) -> Bool {
        if snapshot.get(namespace, DatabaseStorageMapping.leafKey(path)) != nil { return true }
        var entries = snapshot.scan(namespace, .descendants(of: DatabaseStorageMapping.key(path))).makeIterator()
        if entries.next() != nil { return true }
        guard let container = packedContainer(of: path), let inner = path.relative(to: container.path) else { return false }
        return !container.node.child(at: inner).isEmpty
    }

    /// Key and value bytes of the stored entries at and below `path`, counted only until they
    /// pass `limit` (the estimate `writeSizeLimit` compares against); inside a packed object, its
    /// entry's bytes.
    func storedBytes(at path: DatabasePath, upTo limit: Int) -> Int {
        let range: StorageKeyRange = path.isRoot ? .all : .subtree(of: DatabaseStorageMapping.key(path))
        var total = 0
        for entry in snapshot.scan(namespace, range) {
            total += entry.key.encoded.count + entry.value.count
            if total > limit { break }
        }
        if total == 0, let container = packedContainer(of: path) {
            let key = DatabaseStorageMapping.key(container.path)
            total = key.encoded.count + (snapshot.get(namespace, key)?.value.count ?? 0)
        }
        return total
    }

    /// The packed object `path` lies strictly inside, if any.
    private func packedContainer(of path: DatabasePath) -> (path: DatabasePath, node: DatabaseNode)? {
        DatabaseStorageMapping.packedContainer(of: path, get: { snapshot.get(namespace, $0) })
    }

    /// The value at `path` from at most `limit` stored entries (the Requests view's copy of
    /// `data`); `truncated` when the subtree holds more.
    func boundedValue(at path: DatabasePath, limit: Int) -> (value: JSONValue?, truncated: Bool) {
        DatabaseStorageMapping.exportValue(
            at: path, limit: limit, get: { snapshot.get(namespace, $0) }, scan: { snapshot.scan(namespace, $0) })
    }

    /// The value at `path` as rules see it: export form, built from the stored entries.
    func value(at path: [String]) -> JSONValue? {
        DatabaseStorageMapping.exportValue(
            at: DatabasePath(keys: path), get: { snapshot.get(namespace, $0) }, scan: { snapshot.scan(namespace, $0) })
    }
}
