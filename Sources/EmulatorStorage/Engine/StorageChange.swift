/// What one commit did to one key: the value before and after (nil = absent).
package struct StorageChange: Sendable, Equatable {
    package var namespace: NamespaceID
    package var key: StorageKey
    package var old: StoredEntry?
    package var new: StoredEntry?

    package init(namespace: NamespaceID, key: StorageKey, old: StoredEntry?, new: StoredEntry?) {
        self.namespace = namespace
        self.key = key
        self.old = old
        self.new = new
    }
}

/// A subtree one commit deleted as a whole: every entry at or below `key` in `namespace` is gone.
/// Listed instead of one `StorageChange` per deleted key (see `CommitBuilder.deleteSubtree`).
package struct ClearedSubtree: Sendable, Equatable {
    package var namespace: NamespaceID
    package var key: StorageKey

    package init(namespace: NamespaceID, key: StorageKey) {
        self.namespace = namespace
        self.key = key
    }
}

/// The outcome of a commit.
package struct CommitResult<Value> {
    /// The commit's time; every write in it carries this update time (unless it changed nothing).
    package var commitTime: CommitTime
    /// Subtrees deleted as a whole. They apply before `changes`: a key written under one of them
    /// after the deletion is listed in `changes` with `old == nil`; deleted keys are not listed.
    package var cleared: [ClearedSubtree]
    /// The net change per key, in the order keys were first written.
    package var changes: [StorageChange]
    /// What the commit body returned.
    package var value: Value
}

extension CommitResult: Sendable where Value: Sendable {}

/// What a subscriber hears about one commit (or clear) in its namespace.
package struct ChangeBatch: Sendable {
    package var namespace: NamespaceID
    package var commitTime: CommitTime
    /// Subtrees dropped as a whole (by `StorageEngine.clear` or a commit's `deleteSubtree`) that
    /// overlap the subscriber's prefix: every entry at or below each key is gone, with no per-key
    /// changes listed. They apply before `changes` (whose `old` is then nil under them).
    package var clearedSubtrees: [StorageKey]
    /// Changed keys inside the subscriber's prefix, in commit order.
    package var changes: [StorageChange]
    /// The state just before and just after the commit.
    package var before: StorageSnapshot
    package var after: StorageSnapshot
}
