/// Everything stored for one namespace: a value, so copying it (into a snapshot) is O(1).
struct NamespaceState: Sendable {
    var tree = VersionedTree()
    /// Number of live entries at head.
    var liveCount = 0
    var limits = NamespaceLimits.unlimited
    var indexes: [String: SecondaryIndex] = [:]
    /// Subtrees cut by commits whose time is still inside the retained history, oldest first.
    var retired: [RetiredSubtree] = []
    /// Where the next history sweep starts (see `sweepStep`).
    var sweepCursor: [UInt8] = []
    var commitsSinceSweep = 0

    /// Every few commits that change this namespace, copy one leaf at a moving cursor so that
    /// expired versions and tombstones in leaves no commit touches are eventually dropped.
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
