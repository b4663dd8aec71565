import EmulatorStorage

/// Recovery's working state: the checkpoint's entries with the journaled commits applied on
/// top, kept outside the engine so the result goes in with one `StorageEngine.restore` per
/// namespace, every entry with the create and update times it had.
///
/// Per namespace: `base` holds the checkpoint's entries in key order (clears cut ranges out of
/// it); `overlay` holds what the journals wrote since, by key (nil = deleted).
struct JournalReplay {
    struct Namespace {
        var base: [StoredEntry] = []
        var overlay: [StorageKey: StoredEntry?] = [:]
    }

    private(set) var order: [NamespaceID] = []
    private var spaces: [NamespaceID: Namespace] = [:]

    /// Adds a checkpoint entry (entries of a namespace arrive in key order).
    mutating func addCheckpointEntry(_ namespace: NamespaceID, _ entry: StoredEntry) {
        if order.last != namespace && spaces[namespace] == nil { order.append(namespace) }
        spaces[namespace, default: Namespace()].base.append(entry)
    }

    mutating func apply(_ record: JournalRecord) {
        for operation in record.operations {
            switch operation {
            case .entry(let namespace, let entry):
                touch(namespace)
                spaces[namespace]?.overlay[entry.key] = .some(entry)
            case .put(let namespace, let key, let value):
                // No times recorded: what the original commit did (keep a live key's create time).
                let created = current(namespace, key)?.createTime ?? record.commitTime
                touch(namespace)
                spaces[namespace]?.overlay[key] = .some(
                    StoredEntry(key: key, value: value, createTime: created, updateTime: record.commitTime))
            case .delete(let namespace, let key):
                touch(namespace)
                spaces[namespace]?.overlay[key] = .some(nil)
            case .clear(let namespace, let subtree):
                guard var space = spaces.removeValue(forKey: namespace) else { continue }
                if subtree.isRoot {
                    space = Namespace()
                } else {
                    let start = Self.lowerBound(space.base, subtree)
                    var end = start
                    while end < space.base.count && subtree.contains(space.base[end].key) { end += 1 }
                    space.base.removeSubrange(start..<end)
                    for key in Array(space.overlay.keys) where subtree.contains(key) { space.overlay[key] = .some(nil) }
                }
                spaces[namespace] = space
            }
        }
    }

    /// The live entry at `key` as recovery has it so far.
    private func current(_ namespace: NamespaceID, _ key: StorageKey) -> StoredEntry? {
        guard let space = spaces[namespace] else { return nil }
        if let written = space.overlay[key] { return written }
        let index = Self.lowerBound(space.base, key)
        return index < space.base.count && space.base[index].key == key ? space.base[index] : nil
    }

    private mutating func touch(_ namespace: NamespaceID) {
        if spaces[namespace] == nil {
            order.append(namespace)
            spaces[namespace] = Namespace()
        }
    }

    /// The first index whose key is not below `key`.
    private static func lowerBound(_ entries: [StoredEntry], _ key: StorageKey) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].key < key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Every namespace's live entries in key order (the checkpoint merged with the overlay).
    func result() -> [(NamespaceID, [StoredEntry])] {
        order.compactMap { namespace in
            guard let space = spaces[namespace] else { return nil }
            if space.overlay.isEmpty { return (namespace, space.base) }
            let written = space.overlay.keys.sorted()
            var merged: [StoredEntry] = []
            merged.reserveCapacity(space.base.count + written.count)
            var b = 0
            for key in written {
                while b < space.base.count && space.base[b].key < key {
                    merged.append(space.base[b])
                    b += 1
                }
                if b < space.base.count && space.base[b].key == key { b += 1 }
                if case .some(.some(let entry)) = space.overlay[key] { merged.append(entry) }
            }
            merged.append(contentsOf: space.base[b...])
            return (namespace, merged)
        }
    }
}
