import EmulatorModel
import EmulatorStorage
import EmulatorSupport

/// Writes one namespace in export format straight from a storage snapshot, depth first, in
/// pieces of about `chunkBytes`: the same bytes as `DatabaseNode.encoded(export: true)` of the
/// root, without building the tree or the whole document in memory. Memory is bounded by the
/// keys of one level at a time (children are listed per node and sorted in database key order)
/// plus one chunk.
struct DatabaseExportStream<Failure: Error> {
    let snapshot: StorageSnapshot
    let namespace: NamespaceID
    let chunkBytes: Int
    private var buffer: [UInt8] = []

    init(snapshot: StorageSnapshot, namespace: NamespaceID, chunkBytes: Int) {
        self.snapshot = snapshot
        self.namespace = namespace
        self.chunkBytes = chunkBytes
        buffer.reserveCapacity(chunkBytes + 4096)
    }

    mutating func run(_ write: ([UInt8]) throws(Failure) -> Void) throws(Failure) {
        if !(try node(at: .root, isRoot: true, write)) { buffer.append(contentsOf: "null".utf8) }
        if !buffer.isEmpty { try write(buffer) }
        buffer = []
    }

    /// Appends the node at `key`; returns false (appending nothing) when it holds no data.
    private mutating func node(
        at key: StorageKey, isRoot: Bool, _ write: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) -> Bool {
        let leafKey = isRoot ? StorageKey(segments: [DatabaseStorageMapping.rootValueKey]) : key
        if let entry = snapshot.get(namespace, leafKey), var stored = DatabaseStorageMapping.storedNode(entry.value) {
            // A leaf's priority is an entry beside it; a packed object has none.
            if stored.isLeaf { stored.priority = priority(of: key) }
            buffer.append(contentsOf: stored.encoded(export: true))
            if buffer.count >= chunkBytes { try flush(write) }
            return true
        }
        let priority = priority(of: key)
        var names: [String] = []
        for child in snapshot.children(namespace, of: key) {
            guard let name = child.key.lastSegment,
                name != DatabaseStorageMapping.priorityKey, name != DatabaseStorageMapping.rootValueKey
            else { continue }
            names.append(name)
        }
        guard !names.isEmpty else { return false }
        names.sort { DatabaseOrder.compareKeys($0, $1) < 0 }
        buffer.append(UInt8(ascii: "{"))
        var wrote = false
        for name in names {
            let mark = buffer.count
            if wrote { buffer.append(UInt8(ascii: ",")) }
            buffer.append(contentsOf: JSONWriter.encode(.string(name)))
            buffer.append(UInt8(ascii: ":"))
            if try node(at: key.appending(name), isRoot: false, write) {
                wrote = true
            } else {
                // A child without data (an undecodable leaf) appended nothing, so nothing was
                // flushed since `mark`: take its key back out.
                buffer.removeSubrange(mark...)
            }
        }
        if let priority {
            buffer.append(contentsOf: #",".priority":"#.utf8)
            buffer.append(contentsOf: JSONWriter.encode(priority))
        }
        buffer.append(UInt8(ascii: "}"))
        if buffer.count >= chunkBytes { try flush(write) }
        return true
    }

    /// The priority stored for the node at `key`.
    private func priority(of key: StorageKey) -> JSONValue? {
        snapshot.get(namespace, key.appending(DatabaseStorageMapping.priorityKey))
            .flatMap { DatabaseLeafCodec.decode($0.value) }.flatMap { DatabaseNode($0).priorityValue }
    }

    private mutating func flush(_ write: ([UInt8]) throws(Failure) -> Void) throws(Failure) {
        try write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
