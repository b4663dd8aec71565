/// How a namespace's writes travel from a small tree to the main one.
///
/// A write lands in the namespace's *fresh* tree, which stays small enough to live in cache.
/// When it holds `freshCapacity` writes it is merged, in key order, into the *recent* tree. When
/// that holds `max(recentMinimum, live entries ÷ recentDivisor)` entries it becomes the
/// *draining* tree, which later commits move, in key order and a stretch each, into the *main*
/// tree (so no commit copies the whole main tree at once). A merge in key order copies each leaf of the target once for
/// the several entries it receives and walks the tree sequentially, where a random insert into a
/// large tree copies a cold leaf per key: that is what keeps the cost of an insert from growing
/// with the data (docs/STORAGE-SCALING.md).
package struct LevelPolicy: Sendable {
    package var freshCapacity: Int
    package var recentMinimum: Int
    package var recentDivisor: Int

    package init(freshCapacity: Int, recentMinimum: Int, recentDivisor: Int) {
        self.freshCapacity = max(1, freshCapacity)
        self.recentMinimum = max(0, recentMinimum)
        self.recentDivisor = max(1, recentDivisor)
    }

    package static let standard = LevelPolicy(freshCapacity: 4096, recentMinimum: 16384, recentDivisor: 8)

    /// Every commit's writes go down to the main tree when it ends (for tests of the main tree).
    package static let immediate = LevelPolicy(freshCapacity: 1, recentMinimum: 0, recentDivisor: .max)
}

/// Everything stored for one namespace: a value, so copying it (into a snapshot) is O(1).
///
/// The data is four copy-on-write trees, newest first: `fresh`, `recent`, `draining` and `tree`
/// (the main one). Each entry is complete (current version and its retained history), so the newest tree
/// holding a key answers for it and older trees' entries for that key are superseded.
struct NamespaceState: Sendable {
    /// The main tree.
    var tree = VersionedTree()
    var recent = VersionedTree()
    var fresh = VersionedTree()
    /// Writes into `fresh` since it was last emptied (at least its entry count).
    var freshWrites = 0
    /// Entries in `recent` (more after a cut removed some).
    var recentEntries = 0
    /// A former `recent` tree being moved into the main tree a stretch per commit; older than
    /// `recent`, newer than the main tree.
    var draining = VersionedTree()
    /// Where the next move from `draining` to the main tree starts.
    var drainCursor: [UInt8] = []
    /// Supersets of the keys of `recent`, `draining` and `tree`.
    var recentFilter = KeyFilter()
    var drainingFilter = KeyFilter()
    var mainFilter = KeyFilter()
    /// Number of live entries at head.
    var liveCount = 0
    var limits = NamespaceLimits.unlimited
    var indexes: [String: SecondaryIndex] = [:]
    /// Subtrees cut by commits whose time is still inside the retained history, oldest first.
    var retired: [RetiredSubtree] = []
    /// Where the next history sweep starts (see `sweepStep`).
    var sweepCursor: [UInt8] = []
    var commitsSinceSweep = 0

    /// The head's trees, newest first.
    var headStack: TreeStack { TreeStack([fresh.root, recent.root, draining.root, tree.root]) }

    var isEmpty: Bool { tree.root.isEmpty && draining.root.isEmpty && recent.root.isEmpty && fresh.root.isEmpty }

    /// Drops every entry of every level (limits and index definitions stay).
    mutating func removeData() {
        tree = VersionedTree()
        recent = VersionedTree()
        fresh = VersionedTree()
        draining = VersionedTree()
        freshWrites = 0
        recentEntries = 0
        recentFilter = KeyFilter()
        drainingFilter = KeyFilter()
        mainFilter = KeyFilter()
        drainCursor = []
        liveCount = 0
    }

    // MARK: Head lookups

    /// The leaf and slot of the newest entry for `key` at head (tombstones included), or nil.
    @inline(__always)
    func headSlot(_ key: [UInt8]) -> (leaf: TreeNode, index: Int)? {
        if !fresh.root.isEmpty {
            let leaf = fresh.leaf(for: key)
            let (index, found) = leaf.entryIndex(for: key)
            if found { return (leaf, index) }
        }
        let hash = recent.root.isEmpty && draining.root.isEmpty && !mainFilter.isActive ? 0 : KeyFilter.hash(key)
        if !recent.root.isEmpty && recentFilter.mayContain(hash) {
            let leaf = recent.leaf(for: key)
            let (index, found) = leaf.entryIndex(for: key)
            if found { return (leaf, index) }
        }
        if !draining.root.isEmpty && drainingFilter.mayContain(hash) {
            let leaf = draining.leaf(for: key)
            let (index, found) = leaf.entryIndex(for: key)
            if found { return (leaf, index) }
        }
        guard mainFilter.mayContain(hash) else { return nil }
        let leaf = tree.leaf(for: key)
        let (index, found) = leaf.entryIndex(for: key)
        return found ? (leaf, index) : nil
    }

    /// The newest entry for `key` at head, tombstones included.
    func headEntry(_ key: [UInt8]) -> VersionedEntry? {
        headSlot(key).map { $0.leaf.entry(at: $0.index) }
    }

    // MARK: Writing

    /// Runs `body` on the head entry for `key` (an absent placeholder if none) and, if it
    /// changed, stores the result in the fresh tree. Levels are merged only between commits
    /// (`settle`), so every entry a commit has written is in `fresh` until it ends: a second
    /// write of a key in one commit finds its first there.
    mutating func update<R>(_ key: [UInt8], _ body: (inout VersionedEntry) -> R) -> R {
        freshWrites += 1
        // Fresh leaves are not pruned: a tombstone there must outlive its history, to hide older levels.
        if fresh.contains(key) { return fresh.update(key, horizon: 0, body) }
        var entry = headEntry(key) ?? VersionedEntry(absent: key)
        let before = entry.updateTime
        let result = body(&entry)
        // A write that changed anything stamped the commit time, later than any older level's.
        if entry.updateTime != before { fresh.update(key, horizon: 0) { $0 = entry } }
        return result
    }

    /// Stores `entry` (live) in place of whatever the head holds for its key; returns that.
    mutating func replace(with entry: VersionedEntry) -> VersionedEntry? {
        let old = headEntry(entry.key)
        freshWrites += 1
        fresh.update(entry.key, horizon: 0) { $0 = entry }
        return old
    }

    func needsSettling(_ policy: LevelPolicy) -> Bool { freshWrites >= policy.freshCapacity }

    /// Merges `fresh` into `recent`, moves the next stretch of `draining` into the main tree, and
    /// when `recent` has reached its target size, makes it the tree being drained.
    mutating func settle(policy: LevelPolicy, horizon: CommitTime) {
        var merged = 0
        if !fresh.root.isEmpty {
            if !recentFilter.isActive { recentFilter = KeyFilter(capacity: max(policy.recentMinimum, freshWrites) * 2) }
            var cursor = TreeCursor(root: fresh.root)
            cursor.seek(atLeast: [])
            while let entry = cursor.current {
                let added = recent.update(entry.key, horizon: 0) { old -> Bool in
                    let added = !old.isRetained
                    old = entry
                    return added
                }
                if added {
                    recentFilter.insert(KeyFilter.hash(entry.key))
                    recentEntries += 1
                }
                merged += 1
                cursor.next()
            }
            fresh = VersionedTree()
            if recentFilter.isOverfull { recentFilter = KeyFilter(keysOf: recent, minimumCapacity: policy.recentMinimum) }
        }
        freshWrites = 0
        // Twice the inflow, so `draining` is gone before `recent` fills up again.
        let stretch = max(2 * merged, policy.freshCapacity / 4, 1)
        if !draining.root.isEmpty { drain(stretch, horizon: horizon) }
        guard recentEntries >= max(policy.recentMinimum, liveCount / policy.recentDivisor) else { return }
        if !draining.root.isEmpty { drain(.max, horizon: horizon) }
        draining = recent
        drainingFilter = recentFilter
        recent = VersionedTree()
        recentEntries = 0
        recentFilter = KeyFilter()
        drain(stretch, horizon: horizon)
    }

    /// Moves up to `count` entries of `draining` (from `drainCursor` on) into the main tree; drops
    /// `draining` when its last entry has moved. Entries already moved stay readable in
    /// `draining`: the main tree holds the same versions of them.
    private mutating func drain(_ count: Int, horizon: CommitTime) {
        if !mainFilter.isActive { mainFilter = KeyFilter(keysOf: tree, minimumCapacity: liveCount * 2) }
        var cursor = TreeCursor(root: draining.root)
        cursor.seek(atLeast: drainCursor)
        var moved = 0
        var last: [UInt8]?
        while moved < count, var entry = cursor.current {
            // Versions no read can see any more go now; an entry left with nothing leaves the main tree.
            if horizon > 0 && !entry.prune(horizon: horizon) { entry = VersionedEntry(absent: entry.key) }
            tree.update(entry.key, horizon: horizon) { $0 = entry }
            mainFilter.insert(KeyFilter.hash(entry.key))
            last = entry.key
            moved += 1
            cursor.next()
        }
        if cursor.current == nil {
            draining = VersionedTree()
            drainingFilter = KeyFilter()
            drainCursor = []
        } else if let last {
            drainCursor = last + [0]  // the smallest key after `last`
        }
        if mainFilter.isOverfull { mainFilter = KeyFilter(keysOf: tree, minimumCapacity: 0) }
    }

    /// Puts `entries` (keys strictly ascending) in place of an empty namespace's data, built
    /// bottom-up.
    mutating func load(sorted entries: some Sequence<VersionedEntry>, count: Int) {
        removeData()
        tree = VersionedTree(sorted: entries)
        mainFilter = KeyFilter(keysOf: tree, minimumCapacity: 0)
        liveCount = count
    }

    // MARK: Removing

    /// Removes every entry in `range` from every level (tombstones and history included);
    /// returns the entries that were live at head (all of them when `collect`, else only the count).
    mutating func removeAll(in range: StorageKeyRange, collect: Bool) -> RemovedEntries {
        if fresh.root.isEmpty && recent.root.isEmpty && draining.root.isEmpty {
            return tree.removeAll(in: range, collect: collect)
        }
        // The newest upper-level entry of each key in range, and whether the main tree has the key live.
        var upper: [(entry: VersionedEntry, mainLive: Bool)] = []
        var cursor = StackCursor(TreeStack([fresh.root, recent.root, draining.root]))
        cursor.seek(atLeast: range.lower)
        while let entry = cursor.current, range.contains(entry.key) {
            let hash = KeyFilter.hash(entry.key)
            let mainLive = mainFilter.mayContain(hash) && tree.entry(entry.key)?.isLive == true
            upper.append((entry, mainLive))
            cursor.next()
        }
        var removed = tree.removeAll(in: range, collect: collect)
        _ = fresh.removeAll(in: range, collect: false, counting: false)
        _ = recent.removeAll(in: range, collect: false, counting: false)
        _ = draining.removeAll(in: range, collect: false, counting: false)
        for (entry, mainLive) in upper {
            removed.count += (entry.isLive ? 1 : 0) - (mainLive ? 1 : 0)
        }
        if collect {
            // Main entries an upper level superseded are replaced by the upper ones.
            let superseded = Set(upper.lazy.filter(\.mainLive).map(\.entry.key))
            removed.entries.removeAll { superseded.contains($0.key) }
            removed.entries.append(contentsOf: upper.lazy.filter(\.entry.isLive).map(\.entry))
        }
        return removed
    }

    // MARK: History sweep

    /// Every few commits that change this namespace, copy one leaf of the main tree at a moving
    /// cursor so that expired versions and tombstones in leaves no commit touches are eventually dropped.
    mutating func sweepStep(horizon: CommitTime) {
        commitsSinceSweep += 1
        guard commitsSinceSweep >= NamespaceState.sweepInterval, horizon > 0 else { return }
        commitsSinceSweep = 0
        let cursor = sweepCursor
        tree.update(cursor, horizon: horizon) { _ in }  // copies (and so prunes) the leaf
        let leaf = tree.leaf(for: cursor)
        if leaf.count == 0 || !ByteOrder.less(cursor, leaf.key(at: leaf.count - 1)) {
            sweepCursor = []  // past the last leaf: start over
        } else {
            sweepCursor = leaf.key(at: leaf.count - 1) + [0]
        }
    }

    static let sweepInterval = 4
}

extension VersionedTree {
    /// True if the tree holds an entry (live or not) for `key`.
    @inline(__always)
    func contains(_ key: [UInt8]) -> Bool {
        guard !root.isEmpty else { return false }
        return leaf(for: key).entryIndex(for: key).found
    }
}

/// The published head: what a new snapshot sees.
struct EngineState: Sendable {
    var namespaces: [NamespaceID: NamespaceState] = [:]
    var lastCommitTime: CommitTime = 0
    /// Reads before this time are refused: history older than this may have been dropped.
    var retainedSince: CommitTime = 0
    /// The time of the oldest retired subtree in any namespace (`.max` when there is none), so a
    /// commit knows without looking at every namespace whether one has expired.
    var earliestRetired: CommitTime = .max

    /// Drops the retired subtrees the history horizon has passed; returns them.
    mutating func dropRetired(through horizon: CommitTime) -> [RetiredSubtree] {
        guard earliestRetired <= horizon else { return [] }
        var dropped: [RetiredSubtree] = []
        var earliest = CommitTime.max
        for id in Array(namespaces.keys) where !(namespaces[id]?.retired.isEmpty ?? true) {
            dropped += namespaces[id]?.dropRetired(through: horizon) ?? []
            if let first = namespaces[id]?.retired.first { earliest = min(earliest, first.time) }
        }
        earliestRetired = earliest
        return dropped
    }
}
