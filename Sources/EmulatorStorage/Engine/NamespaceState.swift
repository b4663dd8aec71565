/// Everything stored for one namespace: a value, so copying it (into a snapshot) is O(1).
struct NamespaceState: Sendable {
    var tree = VersionedTree()
    /// Number of live entries at head.
    var liveCount = 0
    var limits = NamespaceLimits.unlimited
    var indexes: [String: SecondaryIndex] = [:]
}

/// The published head: what a new snapshot sees.
struct EngineState: Sendable {
    var namespaces: [NamespaceID: NamespaceState] = [:]
    var lastCommitTime: CommitTime = 0
    /// Reads before this time are refused: history older than this may have been dropped.
    var retainedSince: CommitTime = 0
}
