/// The inside of a commit: reads see the head plus this commit's own writes; writes are applied
/// only if the commit body returns without throwing.
///
/// ```swift
/// let result = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
///     guard txn.get(ns, key)?.value == expected else { throw StorageError(.aborted, "changed") }
///     try txn.put(ns, key, newBytes, precondition: .exists)
///     txn.deleteSubtree(ns, StorageKey("tmp"))
/// }
/// print(result.commitTime, result.changes.count)
/// ```
package struct CommitBuilder {
    var state: EngineState
    /// The time this commit will carry (known up front, e.g. for server timestamps).
    package let commitTime: CommitTime
    let horizon: CommitTime
    var log: [StorageChange] = []
    /// Set when a key was written twice, so `finish` must merge its log entries.
    var rewrote = false

    init(state: EngineState, commitTime: CommitTime, horizon: CommitTime) {
        self.state = state
        self.commitTime = commitTime
        self.horizon = horizon
    }

    // MARK: Reads

    /// The live entry at `key` as this commit sees it.
    package func get(_ namespace: NamespaceID, _ key: StorageKey) -> StoredEntry? {
        view.get(namespace, key)
    }

    /// Live entries in `range` as this commit sees them.
    package func scan(_ namespace: NamespaceID, _ range: StorageKeyRange = .all, reverse: Bool = false) -> EntrySequence {
        view.scan(namespace, range, reverse: reverse)
    }

    /// Immediate children of `parent` as this commit sees them.
    package func children(
        _ namespace: NamespaceID, of parent: StorageKey, in range: StorageKeyRange = .all, reverse: Bool = false
    ) -> ChildSequence {
        view.children(namespace, of: parent, in: range, reverse: reverse)
    }

    /// Throws unless `precondition` holds for `key` now.
    package func check(_ namespace: NamespaceID, _ key: StorageKey, _ precondition: Precondition) throws(StorageError) {
        let entry = state.namespaces[namespace]?.tree.entry(key.encoded)
        try CommitBuilder.check(precondition, entry, key)
    }

    /// The limits of a namespace.
    package func limits(_ namespace: NamespaceID) -> NamespaceLimits {
        state.namespaces[namespace]?.limits ?? .unlimited
    }

    private var view: StorageSnapshot { StorageSnapshot(state: state, readTime: .max, isHead: false) }

    // MARK: Writes

    /// Stores `value` at `key`. Identical bytes over a live entry change nothing and keep its
    /// update time. Returns the key's times after the write.
    @discardableResult
    package mutating func put(
        _ namespace: NamespaceID, _ key: StorageKey, _ value: [UInt8], precondition: Precondition = .none
    ) throws(StorageError) -> WriteTimes {
        guard !key.isRoot else { throw StorageError(.invalidKey, "cannot store a value at the root") }
        if let limits = state.namespaces[namespace]?.limits {
            try limits.check(key, valueCount: value.count)
        }
        return try write(namespace, key, value, precondition)
    }

    /// Deletes `key` (deleting an absent key succeeds). Returns true if a live entry was removed.
    @discardableResult
    package mutating func delete(
        _ namespace: NamespaceID, _ key: StorageKey, precondition: Precondition = .none
    ) throws(StorageError) -> Bool {
        guard !key.isRoot else { throw StorageError(.invalidKey, "cannot delete the root; use deleteSubtree") }
        if state.namespaces[namespace] == nil {
            try CommitBuilder.check(precondition, nil, key)
            return false
        }
        return try write(namespace, key, nil, precondition).updateTime == commitTime
    }

    /// Deletes every live entry at or below `key`; returns how many.
    @discardableResult
    package mutating func deleteSubtree(_ namespace: NamespaceID, _ key: StorageKey) -> Int {
        guard state.namespaces[namespace] != nil else { return 0 }
        let keys = scan(namespace, .subtree(of: key)).map(\.key)
        for child in keys {
            // No precondition, so this cannot throw.
            _ = try? write(namespace, child, nil, .none)
        }
        return keys.count
    }

    private mutating func write(
        _ namespace: NamespaceID, _ key: StorageKey, _ value: [UInt8]?, _ precondition: Precondition
    ) throws(StorageError) -> WriteTimes {
        let time = commitTime
        var failure: StorageError?
        var change: StorageChange?
        var rewrite = false
        let times = state.namespaces[namespace, default: NamespaceState()].tree.update(
            key.encoded, horizon: horizon
        ) { entry -> WriteTimes in
            do throws(StorageError) {
                try CommitBuilder.check(precondition, entry.isLive ? entry : nil, key)
            } catch {
                failure = error
                return WriteTimes(updateTime: entry.updateTime, createTime: entry.createTime)
            }
            rewrite = entry.updateTime == time
            let old = entry.value.map {
                StoredEntry(key: key, value: $0, createTime: entry.createTime, updateTime: entry.updateTime)
            }
            if entry.write(value, at: time) || rewrite {
                let new = entry.value.map {
                    StoredEntry(key: key, value: $0, createTime: entry.createTime, updateTime: entry.updateTime)
                }
                change = StorageChange(namespace: namespace, key: key, old: old, new: new)
            }
            return WriteTimes(updateTime: entry.updateTime, createTime: entry.createTime)
        }
        if let failure { throw failure }
        if rewrite { rewrote = true }
        if let change { log.append(change) }
        return times
    }

    static func check(_ precondition: Precondition, _ entry: VersionedEntry?, _ key: StorageKey) throws(StorageError) {
        let live = entry?.value
        switch precondition {
        case .none:
            return
        case .exists:
            if live == nil { throw StorageError(.notFound, "no entry to update", key: key) }
        case .missing:
            if live != nil { throw StorageError(.alreadyExists, "entry already exists", key: key) }
        case .updateTime(let time):
            guard live != nil, let entry else { throw StorageError(.notFound, "no entry to update", key: key) }
            if entry.updateTime != time {
                throw StorageError(.failedPrecondition, "update time \(entry.updateTime) is not \(time)", key: key)
            }
        case .value(let expected):
            if live != expected { throw StorageError(.failedPrecondition, "value does not match", key: key) }
        }
    }

    // MARK: Finishing

    /// The net change per key (first old, last new; unchanged keys dropped), with indexes and
    /// counts brought up to date.
    mutating func finish() -> [StorageChange] {
        var changes = log
        if rewrote {
            var position: [NamespacedKey: Int] = [:]
            var merged: [StorageChange] = []
            for change in log {
                let id = NamespacedKey(namespace: change.namespace, key: change.key)
                if let index = position[id] {
                    merged[index].new = change.new
                } else {
                    position[id] = merged.count
                    merged.append(change)
                }
            }
            changes = merged.filter { $0.old != $0.new }
        }
        var touched: [NamespaceID] = []
        for change in changes {
            if touched.last != change.namespace && !touched.contains(change.namespace) { touched.append(change.namespace) }
            let delta = (change.new == nil ? 0 : 1) - (change.old == nil ? 0 : 1)
            if delta != 0 { state.namespaces[change.namespace]?.liveCount += delta }
        }
        for namespace in touched {
            state.namespaces[namespace]?.sweepStep(horizon: horizon)
            // Move the indexes out so each index tree is uniquely owned while it is updated.
            guard var indexes = state.namespaces[namespace]?.indexes, !indexes.isEmpty else { continue }
            state.namespaces[namespace]?.indexes = [:]
            for id in Array(indexes.keys) {
                for change in changes where change.namespace == namespace {
                    indexes[id]?.apply(key: change.key, old: change.old?.value, new: change.new?.value)
                }
            }
            state.namespaces[namespace]?.indexes = indexes
        }
        return changes
    }
}

struct NamespacedKey: Hashable {
    var namespace: NamespaceID
    var key: StorageKey
}
