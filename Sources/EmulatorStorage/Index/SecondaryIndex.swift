/// A maintained index: a tree of composite keys (escaped index key, then the primary key encoding).
struct SecondaryIndex: Sendable {
    let definition: IndexDefinition
    var tree = VersionedTree()

    init(definition: IndexDefinition) { self.definition = definition }

    static func composite(_ indexKey: [UInt8], _ key: StorageKey) -> [UInt8] {
        var bytes = StorageKey.escaped(indexKey)
        bytes.append(contentsOf: key.encoded)
        return bytes
    }

    static func hit(_ composite: [UInt8]) -> IndexHit {
        var indexKey: [UInt8] = []
        var index = 0
        while index < composite.count {
            let byte = composite[index]
            if byte == 0 { break }
            if byte == 1, index + 1 < composite.count {
                index += 1
                indexKey.append(composite[index] - 1)
            } else {
                indexKey.append(byte)
            }
            index += 1
        }
        let rest = index + 1 <= composite.count ? Array(composite[min(index + 1, composite.count)...]) : []
        return IndexHit(indexKey: indexKey, key: StorageKey(trustedEncoding: rest))
    }

    /// Applies one primary-key change (old and new values; nil = absent).
    mutating func apply(key: StorageKey, old: [UInt8]?, new: [UInt8]?) {
        guard definition.covers(key) else { return }
        let oldKeys = old.map { definition.extract(key, $0) } ?? []
        let newKeys = new.map { definition.extract(key, $0) } ?? []
        if oldKeys == newKeys { return }
        for indexKey in oldKeys where !newKeys.contains(indexKey) {
            tree.update(SecondaryIndex.composite(indexKey, key), horizon: 0) { entry in
                entry.value = nil
                entry.history = []
            }
        }
        for indexKey in newKeys where !oldKeys.contains(indexKey) {
            tree.update(SecondaryIndex.composite(indexKey, key), horizon: 0) { entry in
                if entry.value == nil { entry.value = [] }
            }
        }
    }

    /// Builds the index from the live entries of `data` (trees newest first).
    mutating func build(from data: TreeStack) {
        var cursor = StackCursor(data)
        let range = StorageKeyRange.subtree(of: definition.scope)
        cursor.seek(atLeast: range.lower)
        while let entry = cursor.current, range.contains(entry.key) {
            if let value = entry.value {
                apply(key: StorageKey(trustedEncoding: entry.key), old: nil, new: value)
            }
            cursor.next()
        }
    }
}
