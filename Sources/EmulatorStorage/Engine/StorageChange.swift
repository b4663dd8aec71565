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

/// The outcome of a commit.
package struct CommitResult<Value> {
    /// The commit's time; every write in it carries this update time (unless it changed nothing).
    package var commitTime: CommitTime
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
    /// Changed keys inside the subscriber's prefix, in commit order.
    package var changes: [StorageChange]
    /// Set when a whole subtree was dropped at once (`StorageEngine.clear`): every entry at or
    /// below this key is gone, with no per-key changes listed.
    package var clearedSubtree: StorageKey?
    /// The state just before and just after the commit.
    package var before: StorageSnapshot
    package var after: StorageSnapshot
}
