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
    /// `deleteSubtree` cuts a range holding more than this many entries; smaller ones are deleted key by key.
    let cutThreshold: Int
    var log: [StorageChange] = []
    /// Subtrees cut out whole so far (none inside another).
    var cleared: [ClearedSubtree] = []
    /// Set when a key was written twice, so `finish` must merge its log entries.
    var rewrote = false
    let levels: LevelPolicy
    /// Namespaces this commit wrote to (their pending trees are sealed when it ends).
    var wrote: [NamespaceID] = []
    /// The namespace the last put went to, and its limits (nil: no such namespace, so none): a
    /// lookup in `state.namespaces` copies the whole namespace state, and a commit's puts mostly
    /// go to one namespace. Limits change only outside commits. (Two properties, not an optional
    /// tuple: reading one of those copies it through its generic value witnesses.)
    private var limitsNamespace: NamespaceID?
    private var lastLimits: NamespaceLimits?
    /// Which namespaces keep history (see `StorageEngine.keepsHistory`).
    let keepsHistory: @Sendable (NamespaceID) -> Bool
    /// The namespace asked about last and the answer of `keepsHistory` for it (a commit's writes
    /// mostly go to one namespace).
    private var historyNamespace: NamespaceID?
    private var historyKept = false
    /// The pending trees the engine kept from before the last commit to each namespace, for this
    /// commit to write into in place; this commit records its stores in them, and at `finish`
    /// they are the ones for the next commit (`PendingSpare`).
    var spares: [PendingSpare]
    /// The index in `spares` of the namespace written last (-1: none yet).
    private var lastSpare = -1

    init(
        state: EngineState, commitTime: CommitTime, horizon: CommitTime, cutThreshold: Int = 64,
        levels: LevelPolicy = .standard, keepsHistory: @escaping @Sendable (NamespaceID) -> Bool = { _ in true },
        spares: [PendingSpare] = []
    ) {
        self.spares = spares
        self.state = state
        self.commitTime = commitTime
        self.horizon = horizon
        self.cutThreshold = cutThreshold
        self.levels = levels
        self.keepsHistory = keepsHistory
    }

    /// Whether `namespace` keeps history, remembered for the namespace asked about last.
    private mutating func keepsHistory(of namespace: NamespaceID) -> Bool {
        if historyNamespace == namespace { return historyKept }
        let keeps = keepsHistory(namespace)
        historyNamespace = namespace
        historyKept = keeps
        return keeps
    }

    /// The horizon for `namespace`: the engine's, or for a namespace without history the moment
    /// before this commit (versions this commit superseded stay until it ends: a second write of
    /// a key in the same commit looks at them).
    private mutating func horizon(for namespace: NamespaceID) -> CommitTime {
        keepsHistory(of: namespace) ? horizon : commitTime - 1
    }

    // MARK: Reads

    /// The data as this commit sees it now, as a snapshot: what `get` and `scan` answer until
    /// the commit writes again (a later write is not in it).
    package var snapshot: StorageSnapshot { view }

    /// The live entry at `key` as this commit sees it.
    package func get(_ namespace: NamespaceID, _ key: StorageKey) -> StoredEntry? {
        view.get(namespace, key)
    }

    /// Live entries in `range` as this commit sees them.
    package func scan(_ namespace: NamespaceID, _ range: StorageKeyRange = .all, reverse: Bool = false) -> EntrySequence {
        view.scan(namespace, range, reverse: reverse)
    }

    /// False when no entry at all (live or deleted) lies in `range` as this commit sees it, so a
    /// `scan` of it finds nothing; true when one may. Cheaper than starting a scan: a descent of
    /// each of the namespace's trees, nothing allocated (for writers that ask, per location,
    /// whether anything is stored below it, where usually nothing is).
    package func mayHoldEntries(_ namespace: NamespaceID, in range: StorageKeyRange) -> Bool {
        state.namespaces.withState(namespace) { $0.mayHoldEntries(in: range) } ?? false
    }

    /// `mayHoldEntries(_:in:)` for the subtree of `key` (`StorageKeyRange.subtree(of:)`),
    /// without making the range.
    package func mayHoldEntries(_ namespace: NamespaceID, inSubtreeOf key: StorageKey) -> Bool {
        state.namespaces.withState(namespace) { $0.mayHoldEntries(inSubtreeOf: key.encoded) } ?? false
    }

    /// Immediate children of `parent` as this commit sees them.
    package func children(
        _ namespace: NamespaceID, of parent: StorageKey, in range: StorageKeyRange = .all, reverse: Bool = false
    ) -> ChildSequence {
        view.children(namespace, of: parent, in: range, reverse: reverse)
    }

    /// Throws unless `precondition` holds for `key` now.
    package func check(_ namespace: NamespaceID, _ key: StorageKey, _ precondition: Precondition) throws(StorageError) {
        let entry = state.namespaces.withState(namespace) { $0.headEntry(key.encoded) } ?? nil
        try CommitBuilder.check(precondition, entry, key)
    }

    /// The limits of a namespace.
    package func limits(_ namespace: NamespaceID) -> NamespaceLimits {
        state.namespaces.withState(namespace) { $0.limits } ?? .unlimited
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
        if limitsNamespace != namespace {
            // Read in place: the subscript's getter would copy the whole namespace state.
            lastLimits = state.namespaces.withState(namespace) { $0.limits }
            limitsNamespace = namespace
        }
        if let limits = lastLimits {
            try limits.check(key, valueCount: value.count)
        }
        return try write(namespace, key, value, precondition)
    }

    /// Stores `values[i]` at `parent`'s child `names[i]` for each `i` from `start` on, as `put`
    /// would (same entries, same changes in the same order), for as long as the next child is
    /// new: nothing at all (no entry, live or deleted) lies at or below it, its name is not empty
    /// and not an earlier one of the batch, and the namespace's limits take it. Returns the index
    /// of the first child not stored (`names.count` when all were).
    ///
    /// The children are stored together, in key order (`NamespaceState.insertNew`): each leaf
    /// they reach is rebuilt once instead of taking them one at a time. For bulk writes of new
    /// children (a Realtime Database `PATCH`); the caller stores the child it stopped at its own
    /// way and calls again from the next.
    package mutating func putNewChildren(
        _ namespace: NamespaceID, of parent: StorageKey, _ names: [String], _ values: [[UInt8]], from start: Int
    ) -> Int {
        let end = min(names.count, values.count)
        guard start < end else { return start }
        var keys: [StorageKey] = []
        keys.reserveCapacity(end - start)
        let limits = limitsNamespace == namespace ? lastLimits : state.namespaces.withState(namespace) { $0.limits }
        for index in start..<end {
            guard !names[index].isEmpty else { break }
            let key = parent.appending(names[index])
            if let limits, (try? limits.check(key, valueCount: values[index].count)) == nil { break }
            keys.append(key)
        }
        // Key order: the searches below go through each tree in order, and so do the inserts.
        var order = Array(keys.indices)
        order.sort { ByteOrder.less(keys[$0].encoded, keys[$1].encoded) }
        // The batch ends before the first child that anything lies at or below, and before the
        // second of two equal names.
        var count = keys.count
        if let holds = state.namespaces.withState(namespace, { space in
            space.mayHoldEntries(inSubtreesOfAscending: order.map { keys[$0].encoded })
        }) {
            for (position, offset) in order.enumerated() where holds[position] { count = min(count, offset) }
        }
        for (left, right) in zip(order, order.dropFirst()) where keys[left] == keys[right] {
            count = min(count, max(left, right))
        }
        if count < keys.count {
            keys.removeSubrange(count...)
            order.removeAll { $0 >= count }
        }
        guard count > 0 else { return start }
        if wrote.last != namespace && !wrote.contains(namespace) { wrote.append(namespace) }
        let time = commitTime
        let horizon = horizon(for: namespace)
        log.reserveCapacity(log.count + count)
        for (offset, key) in keys.enumerated() {
            let entry = StoredEntry(key: key, value: values[start + offset], createTime: time, updateTime: time)
            log.append(StorageChange(namespace: namespace, key: key, old: nil, new: entry))
        }
        let batch = VersionedTree(sorted: order.lazy.map { offset in
            VersionedEntry(key: keys[offset].encoded, value: values[start + offset], createTime: time, updateTime: time)
        })
        let hashes = order.map { KeyFilter.hash(keys[$0].encoded) }
        state.namespaces[namespace, default: NamespaceState()].insertNew(batch, hashes: hashes, horizon: horizon)
        return start + count
    }

    /// Deletes `key` (deleting an absent key succeeds). Returns true if a live entry was removed.
    @discardableResult
    package mutating func delete(
        _ namespace: NamespaceID, _ key: StorageKey, precondition: Precondition = .none
    ) throws(StorageError) -> Bool {
        guard !key.isRoot else { throw StorageError(.invalidKey, "cannot delete the root; use deleteSubtree") }
        if !state.namespaces.contains(namespace) {
            try CommitBuilder.check(precondition, nil, key)
            return false
        }
        return try write(namespace, key, nil, precondition).updateTime == commitTime
    }

    /// Deletes every live entry at or below `key`; returns how many.
    ///
    /// A small subtree is deleted key by key (a tombstone and a `StorageChange` each). A larger one
    /// is cut out of the tree whole: O(depth × fan-out) plus counting the live entries, one
    /// `ClearedSubtree` in the result instead of per-key changes, and the tree from before the
    /// cut kept so reads at earlier times still see the deleted entries. Keys written under the
    /// subtree later in the same commit are new entries (create and update time = this commit).
    /// Secondary indexes whose scope lies inside the subtree are emptied with it; an index whose
    /// scope only partly overlaps it makes the deletion go key by key.
    @discardableResult
    package mutating func deleteSubtree(_ namespace: NamespaceID, _ key: StorageKey) -> Int {
        if let removed = cutSubtree(namespace, key) { return removed }
        let keys = scan(namespace, .subtree(of: key)).map(\.key)
        for child in keys {
            // No precondition, so this cannot throw.
            _ = try? write(namespace, child, nil, .none)
        }
        return keys.count
    }

    /// Cuts the subtree at `key` out whole, as `deleteSubtree` does for a large one, and returns
    /// how many live entries went; returns nil and changes nothing when the subtree is small
    /// (at most the engine's `cutThreshold` entries) or an index's scope lies strictly inside it.
    /// For a caller that handles small subtrees its own way (e.g. overwriting in place).
    @discardableResult
    package mutating func cutSubtree(_ namespace: NamespaceID, _ key: StorageKey) -> Int? {
        guard let space = state.namespaces[namespace] else { return nil }
        let range = StorageKeyRange.subtree(of: key)
        guard CommitBuilder.cuttable(space, key), CommitBuilder.holdsMore(space.headStack, range, than: cutThreshold) else {
            return nil
        }
        return cut(namespace, key, range)
    }

    /// The engine's cut threshold: `deleteSubtree` and `cutSubtree` cut a subtree holding more
    /// entries than this.
    package var subtreeCutThreshold: Int { cutThreshold }

    /// Cuts the subtree at `key` out whole whatever its size, as `cutSubtree` does for a large
    /// one, and returns how many live entries went; nil (nothing changed) when an index's scope
    /// lies strictly inside it or the namespace does not exist. For a caller that measures a
    /// subtree its own way (the Realtime Database counts leaves, several to a packed entry).
    @discardableResult
    package mutating func cutWholeSubtree(_ namespace: NamespaceID, _ key: StorageKey) -> Int? {
        guard let space = state.namespaces[namespace], CommitBuilder.cuttable(space, key) else { return nil }
        return cut(namespace, key, StorageKeyRange.subtree(of: key))
    }

    /// False if an index's scope lies strictly inside `key`'s subtree (its entries could not be
    /// dropped with the cut without visiting them).
    private static func cuttable(_ space: NamespaceState, _ key: StorageKey) -> Bool {
        space.indexes.values.allSatisfy { !$0.definition.scope.isAncestor(of: key) }
    }

    /// True if `range` holds more than `limit` entries (tombstones included); looks at no more.
    private static func holdsMore(_ stack: TreeStack, _ range: StorageKeyRange, than limit: Int) -> Bool {
        var cursor = StackCursor(stack)
        cursor.seek(atLeast: range.lower)
        var seen = 0
        while let entry = cursor.current, range.contains(entry.key) {
            seen += 1
            if seen > limit { return true }
            cursor.next()
        }
        return false
    }

    private mutating func cut(_ namespace: NamespaceID, _ key: StorageKey, _ range: StorageKeyRange) -> Int {
        let time = commitTime
        // The namespace's live count now: `liveCount` plus this commit's changes so far (counted in at `finish`).
        var unfinished = 0
        for change in log where change.namespace == namespace {
            unfinished += (change.new == nil ? 0 : 1) - (change.old == nil ? 0 : 1)
        }
        // Earlier changes of this commit under the subtree are void; their effect on the live
        // count is what the cut's count below already includes.
        var voided = 0
        if !log.isEmpty {
            log.removeAll { change in
                guard change.namespace == namespace && key.contains(change.key) else { return false }
                voided += (change.new == nil ? 0 : 1) - (change.old == nil ? 0 : 1)
                return true
            }
        }
        let coveredByEarlierCut = cleared.contains { $0.namespace == namespace && $0.key.contains(key) }
        if !coveredByEarlierCut {
            cleared.removeAll { $0.namespace == namespace && key.contains($0.key) }
            cleared.append(ClearedSubtree(namespace: namespace, key: key))
        }
        var removed = 0
        let retires = keepsHistory(of: namespace)
        modify(namespace) { space in
            // A cut earlier in this commit that covers the range already kept its history.
            if retires, !space.retired.contains(where: { $0.time == time && $0.subtree.contains(key) }) {
                space.retired.append(RetiredSubtree(time: time, subtree: key, before: space.headStack))
            }
            if key.isRoot {
                // The whole namespace: nothing to cut along or count.
                removed = space.liveCount + voided
                space.removeData()
            } else {
                removed = space.removeAll(in: range, collect: false, liveNow: space.liveCount + unfinished).count
                space.liveCount += voided - removed
            }
            for (id, index) in space.indexes where key.contains(index.definition.scope) {
                space.indexes[id]?.tree = VersionedTree()
            }
        }
        state.earliestRetired = min(state.earliestRetired, time)
        return removed
    }

    /// Runs `body` on a namespace's state in place, so its trees are uniquely owned by this
    /// commit where nothing else shares them.
    private mutating func modify(_ namespace: NamespaceID, _ body: (inout NamespaceState) -> Void) {
        state.namespaces.modify(namespace, body)
    }

    private mutating func write(
        _ namespace: NamespaceID, _ key: StorageKey, _ value: [UInt8]?, _ precondition: Precondition
    ) throws(StorageError) -> WriteTimes {
        let time = commitTime
        var failure: StorageError?
        var change: StorageChange?
        var rewrite = false
        if wrote.last != namespace && !wrote.contains(namespace) { wrote.append(namespace) }
        let horizon = horizon(for: namespace)
        let spare = spareIndex(namespace)
        let times = state.namespaces[namespace, default: NamespaceState()].update(
            key.encoded, horizon: horizon, recording: &spares[spare], reporting: {
            entry -> (result: WriteTimes, changed: Bool) in
            do throws(StorageError) {
                try CommitBuilder.check(precondition, entry.isLive ? entry : nil, key)
            } catch {
                failure = error
                return (WriteTimes(updateTime: entry.updateTime, createTime: entry.createTime), false)
            }
            rewrite = entry.updateTime == time
            let old = entry.value.map {
                StoredEntry(key: key, value: $0, createTime: entry.createTime, updateTime: entry.updateTime)
            }
            let changed = entry.write(value, at: time) || rewrite
            if changed {
                let new = entry.value.map {
                    StoredEntry(key: key, value: $0, createTime: entry.createTime, updateTime: entry.updateTime)
                }
                change = StorageChange(namespace: namespace, key: key, old: old, new: new)
            }
            return (WriteTimes(updateTime: entry.updateTime, createTime: entry.createTime), changed)
        })
        if let failure { throw failure }
        if rewrite { rewrote = true }
        // Moved out, not copied (a copy retains the change's keys and values).
        if let change = change.take() { log.append(change) }
        return times
    }

    /// The index in `spares` of `namespace`'s (made on the first write there).
    private mutating func spareIndex(_ namespace: NamespaceID) -> Int {
        if lastSpare >= 0 && spares[lastSpare].namespace == namespace { return lastSpare }
        if let index = spares.firstIndex(where: { $0.namespace == namespace }) {
            lastSpare = index
        } else {
            spares.append(PendingSpare(namespace: namespace, recording: keepsHistory(of: namespace)))
            lastSpare = spares.count - 1
        }
        return lastSpare
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

    /// The bytes of the values `changes` overwrote or deleted in namespaces that keep history,
    /// each counted with `overhead` (see `StorageEngine.versionOverhead`).
    mutating func supersededBytes(_ changes: [StorageChange], overhead: Int) -> Int {
        var bytes = 0
        for index in changes.indices {
            guard let old = changes[index].old, keepsHistory(of: changes[index].namespace) else { continue }
            bytes += old.value.count + old.key.encoded.count + overhead
        }
        return bytes
    }

    /// The state this commit built, moved out of the builder (which ends here), so that
    /// publishing it copies nothing the builder still holds.
    consuming func takeState() -> EngineState { state }

    /// The net change per key (first old, last new; unchanged keys dropped), with indexes and
    /// counts brought up to date.
    mutating func finish() -> (cleared: [ClearedSubtree], changes: [StorageChange]) {
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
        // Each namespace the commit wrote to is brought up to date in one go (its own changes
        // only concern it): live count, dropped versions, sweep, indexes, levels. Every change
        // is in a namespace of `wrote` (only writes make changes).
        let levels = levels
        for namespace in wrote {
            var delta = 0
            var changed = false
            // Read in place: copying a change retains each of its keys and values.
            changes.withUnsafeBufferPointer { changes in
                for index in changes.indices where changes[index].namespace == namespace {
                    changed = true
                    delta += (changes[index].new == nil ? 0 : 1) - (changes[index].old == nil ? 0 : 1)
                }
            }
            let keeps = keepsHistory(of: namespace)
            let horizon = keeps ? self.horizon : commitTime - 1
            modify(namespace) { space in
                space.liveCount += delta
                if changed && !keeps {
                    // A namespace without history drops the versions this commit superseded now
                    // that it ends (overwrites and deletes; a creation has none).
                    for change in changes where change.namespace == namespace && change.old != nil {
                        space.forgetHistory(change.key.encoded)
                    }
                }
                if changed {
                    space.sweepStep(horizon: horizon)
                    if !space.indexes.isEmpty {
                        for id in Array(space.indexes.keys) {
                            for change in changes where change.namespace == namespace {
                                space.indexes[id]?.apply(key: change.key, old: change.old?.value, new: change.new?.value)
                            }
                        }
                    }
                }
                space.settle(policy: levels, horizon: horizon)
            }
        }
        keepSpares()
        return (cleared, changes)
    }

    /// Makes the pending trees this commit replaced the spares for the next commit (see
    /// `PendingSpare`); a spare it did not use stays, as long as it still lags behind `pending`.
    private mutating func keepSpares() {
        CommitBuilder.keep(&spares, after: &state)
    }

    private static func keep(_ spares: inout [PendingSpare], after state: inout EngineState) {
        for index in spares.indices where spares[index].started {
            // In place: the commit wrote there, so the box is its own (`withState` would copy the
            // state to call a method on it).
            if state.namespaces.modify(spares[index].namespace, { $0.keep(&spares[index]) }) == nil { spares[index].abandon() }
        }
    }
}

struct NamespacedKey: Hashable {
    var namespace: NamespaceID
    var key: StorageKey
}
