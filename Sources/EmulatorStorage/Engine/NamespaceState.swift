/// Everything stored for one namespace: a value, so copying it (into a snapshot) is O(1).
struct NamespaceState: Sendable {
    var tree = VersionedTree()
    /// Number of live entries at head.
    var liveCount = 0
    var limits = NamespaceLimits.unlimited
    var indexes: [String: SecondaryIndex] = [:]
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
}
