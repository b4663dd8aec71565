/// A durability hook: told about every commit and clear before the caller's `commit`/`clear`
/// returns, so a journal can make each acknowledged write durable.
///
/// `append` runs inside the commit serialization, in commit order, after the new state is
/// visible; `waitUntilDurable` runs after the serialization is released (so several commits can
/// share one disk flush) and before `commit` returns to its caller.
package protocol CommitLog: Sendable {
    /// Records one commit: the subtrees it deleted whole (applied first), then its net changes
    /// per key; returns a token for `waitUntilDurable`.
    func append(_ changes: [StorageChange], cleared: [ClearedSubtree], commitTime: CommitTime) -> UInt64
    /// Records that everything in `namespace` at or below `subtree` was dropped.
    func appendClear(_ namespace: NamespaceID, subtree: StorageKey, commitTime: CommitTime) -> UInt64
    /// Returns once the record behind `token` (and every earlier one) is durable.
    func waitUntilDurable(_ token: UInt64)
    /// Runs `action` once the record behind `token` (and every earlier one) is durable: at once
    /// if it already is, else later on another thread; never blocks the caller.
    func whenDurable(_ token: UInt64, _ action: @escaping @Sendable () -> Void)
}

extension CommitLog {
    /// Logs without an asynchronous notification wait, then act.
    package func whenDurable(_ token: UInt64, _ action: @escaping @Sendable () -> Void) {
        waitUntilDurable(token)
        action()
    }
}
