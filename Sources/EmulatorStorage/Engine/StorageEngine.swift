import Dispatch
import Synchronization

/// The ordered, path-keyed, multi-version store both emulators sit on.
///
/// - Commits are serialized and atomic; each gets a strictly increasing microsecond commit time.
/// - Readers take immutable snapshots and never wait for a commit in progress.
/// - Subscribers hear exactly what each commit changed under their prefix, in commit order, on
///   the committing thread, after the new state is visible. A handler must not commit
///   synchronously (it runs inside the commit serialization).
///
/// ```swift
/// let engine = StorageEngine()
/// let ns: NamespaceID = "database/demo"
/// let result = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
///     try txn.put(ns, StorageKey("rooms/a/name"), Array("lobby".utf8), precondition: .missing)
/// }
/// let snapshot = try engine.snapshot()
/// snapshot.get(ns, StorageKey("rooms/a/name"))?.updateTime == result.commitTime  // true
/// ```
package final class StorageEngine: Sendable {
    /// The published state; held only long enough to copy or replace it.
    private let head: Mutex<EngineState>
    /// Serializes commits, index builds and clears (and change delivery, which keeps order), and
    /// holds the pending trees the last commits replaced, for the next ones to write into in
    /// place (`PendingSpare`).
    private let commitLock = Mutex<[PendingSpare]>([])
    private let feed = ChangeFeed()
    /// The durability hook (a journal), if one is attached.
    private let commitLog = Mutex<(any CommitLog)?>(nil)
    private let clock: StorageClock
    /// How long superseded versions stay readable, in microseconds.
    package let retention: CommitTime
    /// `CommitBuilder.deleteSubtree` cuts a subtree holding more entries than this whole.
    package let cutThreshold: Int
    /// How writes move from each namespace's small trees to its main tree.
    package let levels: LevelPolicy
    /// Namespaces with a tidy-up scheduled (`scheduleTidy`).
    private let tidying = Mutex<Set<NamespaceID>>([])
    /// Whether a namespace keeps superseded versions for reads at earlier times (`retention`).
    /// One that does not keeps only what a held snapshot (a transaction, an export) references.
    package let keepsHistory: @Sendable (NamespaceID) -> Bool
    /// See `init`'s `recyclesPending`.
    private let recyclesPending: Bool
    /// Bytes of superseded versions per commit, to bound history by memory (touched only under
    /// `commitLock`).
    private let ledger: Mutex<HistoryLedger>

    /// - Parameters:
    ///   - retention: history kept readable, in microseconds (default one hour).
    ///   - clock: the time source (inject one in tests).
    ///   - cutThreshold: `deleteSubtree` deletes a subtree of at most this many entries key by
    ///     key and cuts a larger one out whole (tests pass 0 to always cut, `.max` to never).
    ///   - levels: the sizes at which writes are merged down (tests pass tiny ones to merge often).
    ///   - keepsHistory: which namespaces serve reads at earlier times (default: all). The others
    ///     drop a superseded version when the commit that superseded it ends, so overwritten and
    ///     deleted values are freed at once instead of after `retention`; reads at earlier times
    ///     in them see the head.
    ///   - maxHistoryBytes: about how much memory superseded versions may hold (their keys and
    ///     values plus ``versionOverhead`` each); past it the oldest versions expire before
    ///     `retention` (reads at their times fail `.historyExpired`). 64 MiB keeps an hour of a
    ///     typical test suite's overwrites while a long write-heavy session levels off instead of
    ///     growing for the whole hour.
    ///   - recyclesPending: whether a commit writes into the pending tree the last one replaced
    ///     (`PendingSpare`) instead of copying the published one's path (tests of what such a
    ///     copy shares turn it off).
    package init(
        retention: CommitTime = 3_600_000_000, clock: StorageClock = .system, cutThreshold: Int = 64,
        levels: LevelPolicy = .standard, keepsHistory: @escaping @Sendable (NamespaceID) -> Bool = { _ in true },
        maxHistoryBytes: Int = 64 << 20, recyclesPending: Bool = true
    ) {
        self.recyclesPending = recyclesPending
        self.keepsHistory = keepsHistory
        self.ledger = Mutex(HistoryLedger(limit: maxHistoryBytes))
        self.retention = retention
        self.cutThreshold = cutThreshold
        self.levels = levels
        self.clock = clock
        self.head = Mutex(EngineState())
    }

    /// The time of the latest commit (0 before the first).
    package var lastCommitTime: CommitTime { head.withLock { $0.lastCommitTime } }

    /// The oldest read time `snapshot(at:)` still accepts.
    package var retainedSince: CommitTime { head.withLock { $0.retainedSince } }

    // MARK: Reading

    /// A snapshot at `readTime`, or at head when nil (or when `readTime` is at or after the last commit).
    /// Throws `.historyExpired` when `readTime` is older than the retained history.
    package func snapshot(at readTime: CommitTime? = nil) throws(StorageError) -> StorageSnapshot {
        let state = head.withLock { $0 }
        guard let readTime, readTime < state.lastCommitTime else {
            return StorageSnapshot(state: state, readTime: state.lastCommitTime, isHead: true)
        }
        guard readTime >= state.retainedSince else {
            throw StorageError(.historyExpired, "read time \(readTime) is older than retained history (\(state.retainedSince))")
        }
        return StorageSnapshot(state: state, readTime: readTime, isHead: false)
    }

    // MARK: Writing

    /// Runs `body` inside the commit serialization and applies its writes atomically.
    /// If `body` throws, nothing is applied and the error is rethrown.
    @discardableResult
    package func commit<Value, Failure: Error>(
        _ body: (inout CommitBuilder) throws(Failure) -> Value
    ) throws(Failure) -> CommitResult<Value> {
        // The work is done by `applyCommit`, which is not generic. Generic code (this function is
        // not specialized across modules) looks up the type metadata of `CommitResult<Value>`
        // and of optionals of it at run time, a few hundred instructions a lookup, several per
        // commit: a hot caller calls `applyCommit` itself.
        var value: Value?
        var failure: Failure?
        let applied = applyCommit { (builder: inout CommitBuilder) -> Bool in
            do throws(Failure) {
                value = try body(&builder)
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
        // Both set on every path that does not throw.
        return CommitResult(
            commitTime: applied.unsafelyUnwrapped.commitTime, cleared: applied.unsafelyUnwrapped.cleared,
            changes: applied.unsafelyUnwrapped.changes, value: value.unsafelyUnwrapped)
    }

    /// `commit` without its value: `body` returns false to abandon the commit (nothing is
    /// applied, and nil returned).
    package func applyCommit(
        _ body: (inout CommitBuilder) -> Bool
    ) -> (commitTime: CommitTime, cleared: [ClearedSubtree], changes: [StorageChange])? {
        var outcome: (commitTime: CommitTime, cleared: [ClearedSubtree], changes: [StorageChange])?
        var logged: (log: any CommitLog, token: UInt64)?
        // Trees of expired retired subtrees: released after the commit serialization.
        var expired: [RetiredSubtree] = []
        commitLock.withLock { spares in
            let before = head.withLock { $0 }
            let time = max(clock.now(), before.lastCommitTime + 1)
            let horizon = max(before.retainedSince, time - retention)
            var builder = CommitBuilder(
                state: before, commitTime: time, horizon: horizon, cutThreshold: cutThreshold, levels: levels,
                keepsHistory: keepsHistory, spares: StorageEngine.take(&spares))
            guard body(&builder) else {
                spares = StorageEngine.take(&builder.spares)
                for index in spares.indices { spares[index].abandon() }
                return
            }
            let (cleared, changes) = builder.finish()
            if recyclesPending { spares = StorageEngine.take(&builder.spares) }
            let superseded = builder.supersededBytes(changes, overhead: Self.versionOverhead)
            var after = builder.takeState()
            after.lastCommitTime = time
            let bounded = ledger.withLock { $0.record(time: time, bytes: superseded, horizon: horizon) }
            after.retainedSince = bounded
            expired = after.dropRetired(through: bounded)
            tidyLater(changes, in: after)
            publish(&after)
            let changed = !changes.isEmpty || !cleared.isEmpty
            if changed && !feed.isEmpty {
                feed.deliver(
                    cleared, changes, commitTime: time,
                    before: StorageSnapshot(state: before, readTime: before.lastCommitTime, isHead: false),
                    after: StorageSnapshot(state: after, readTime: time, isHead: true))
            }
            if changed, let log = commitLog.withLock({ $0 }) {
                logged = (log, log.append(changes, cleared: cleared, commitTime: time))
            }
            outcome = (time, cleared, changes)
        }
        if let logged { DurabilityScope.awaitDurable(logged.log, logged.token) }
        expired.removeAll()
        return outcome
    }

    /// Moves `spares` out, leaving an empty list (so that the one holder changes it in place).
    private static func take(_ spares: inout [PendingSpare]) -> [PendingSpare] {
        var taken: [PendingSpare] = []
        swap(&taken, &spares)
        return taken
    }

    /// What one kept version costs beyond its key and value bytes (its tree entry, the arrays'
    /// headers, its times), so that small documents count for what they hold (the ledger counts
    /// the bytes of the values a commit overwrote or deleted in namespaces that keep history).
    static let versionOverhead = 128

    /// Makes `state` the head. (Its namespace boxes are shared from now on: a later change
    /// to the caller's copy copies the box it changes first.)
    private func publish(_ state: inout EngineState) {
        head.withLock { $0 = state }
    }

    /// Level merges finish on the background queue, and normally the namespace's next commit
    /// installs them. So that a namespace whose writes stopped (a bulk load just ended) does not
    /// keep the merged trees around (reads probe them, memory holds both), a namespace with a
    /// merge under way gets a tidy-up a little later: it installs what finished and starts what
    /// is due, unless a commit is running (which will do that itself), and comes back while
    /// merges are still under way.
    private func tidyLater(_ changes: [StorageChange], in state: EngineState) {
        guard levels.merges == .background else { return }
        // Read in place (copying a change retains its keys and values); a commit's changes
        // come grouped by namespace.
        changes.withUnsafeBufferPointer { changes in
            for index in changes.indices where index == 0 || changes[index].namespace != changes[index - 1].namespace {
                tidyLater(changes[index].namespace, in: state)
            }
        }
    }

    private func tidyLater(_ namespace: NamespaceID, in state: EngineState) {
        guard levels.merges == .background else { return }
        if state.namespaces.withState(namespace, { $0.mergesUnderWay }) == true { scheduleTidy(namespace) }
    }

    private func scheduleTidy(_ namespace: NamespaceID) {
        guard tidying.withLock({ $0.insert(namespace).inserted }) else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .milliseconds(20)) { [weak self] in
            self?.tidy(namespace)
        }
    }

    private func tidy(_ namespace: NamespaceID) {
        tidying.withLock { _ = $0.remove(namespace) }
        let underWay = commitLock.withLockIfAvailable { _ -> Bool in
            var state = head.withLock { $0 }
            let horizon = keepsHistory(namespace) ? state.retainedSince : state.lastCommitTime
            guard let underWay = state.namespaces.modify(namespace, { space in
                space.settle(policy: levels, horizon: horizon)
                return space.mergesUnderWay
            }) else { return false }
            publish(&state)
            return underWay
        }
        // nil: a commit holds the lock (and may have found this tidy-up still scheduled).
        if underWay ?? true { scheduleTidy(namespace) }
    }

    /// Drops everything in a namespace (or one subtree of it) at once: O(1) for a whole
    /// namespace; for a subtree, the tree is cut along the two boundary paths (whole subtrees in
    /// between are detached, not copied or edited), and the detached leaves' slot arrays are
    /// scanned to count what went (with indexes, each removed entry is visited to unindex it).
    /// History of the dropped entries goes too (older read times see them as absent),
    /// and subscribers get one batch with `clearedSubtrees` set instead of per-key changes.
    /// (To delete a subtree atomically with other writes and keep its history, use
    /// `CommitBuilder.deleteSubtree`.)
    /// Limits and index definitions stay.
    @discardableResult
    package func clear(_ namespace: NamespaceID, subtree: StorageKey = .root) -> CommitTime {
        var logged: (log: any CommitLog, token: UInt64)?
        // The state before the clear: unless a snapshot holds it, the last reference to what
        // was cleared (history goes too), so releasing it frees every node of it.
        var dropped: EngineState?
        let time = commitLock.withLock { spares in
            // A spare of the namespace would keep what the clear drops (a later commit would not
            // find it lagging behind `pending` anyway).
            spares.removeAll { $0.namespace == namespace }
            let before = head.withLock { $0 }
            defer { dropped = before }
            let time = max(clock.now(), before.lastCommitTime + 1)
            var after = before
            after.lastCommitTime = time
            after.namespaces.modify(namespace) { space in
                space.clearRetired(subtree)
                if subtree.isRoot {
                    space.removeData()
                    for id in space.indexes.keys { space.indexes[id]?.tree = VersionedTree() }
                } else {
                    let removed = space.removeAll(in: .subtree(of: subtree), collect: !space.indexes.isEmpty, liveNow: space.liveCount)
                    space.liveCount -= removed.count
                    for id in Array(space.indexes.keys) {
                        for entry in removed.entries {
                            space.indexes[id]?.apply(key: StorageKey(trustedEncoding: entry.key), old: entry.value, new: nil)
                        }
                    }
                }
            }
            publish(&after)
            if !feed.isEmpty {
                feed.deliverClear(
                    namespace, subtree, commitTime: time,
                    before: StorageSnapshot(state: before, readTime: before.lastCommitTime, isHead: false),
                    after: StorageSnapshot(state: after, readTime: time, isHead: true))
            }
            if let log = commitLog.withLock({ $0 }) {
                logged = (log, log.appendClear(namespace, subtree: subtree, commitTime: time))
            }
            return time
        }
        if let logged { DurabilityScope.awaitDurable(logged.log, logged.token) }
        if let dropped = dropped.take() { StorageEngine.release(dropped) }
        return time
    }

    /// Removes `namespace` as if it had never been used: its data, history, limits and index
    /// definitions; it no longer appears in snapshots' `namespaces`. Subscribers hear nothing and
    /// no commit time is taken. For putting an engine no client uses back to its first state
    /// (the fuzz targets reuse one emulator across inputs); an engine with a commit log refuses
    /// (a journal could not replay it) and returns false, as it does for an unknown namespace.
    /// What the namespace held is freed before this returns, unless a snapshot still holds it.
    @discardableResult
    package func drop(_ namespace: NamespaceID) -> Bool {
        // The state before, returned so that its last reference goes outside the commit lock.
        let dropped = commitLock.withLock { spares -> EngineState? in
            guard commitLog.withLock({ $0 == nil }) else { return nil }
            spares.removeAll { $0.namespace == namespace }
            let before = head.withLock { $0 }
            var after = before
            guard after.namespaces.remove(namespace) else { return nil }
            publish(&after)
            return before
        }
        tidying.withLock { _ = $0.remove(namespace) }
        return dropped != nil
    }

    /// Drops `state` on a background queue: freeing a large cleared tree (a free per node and
    /// per array) takes milliseconds, which the clear's caller need not wait for.
    private static func release(_ state: consuming EngineState) {
        let state = consume state
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(state) {} }
    }

    // MARK: Restoring

    /// Puts entries back with the create and update times they carry (an import, a recovery)
    /// instead of stamping them with a new commit time. Returns the restore's own commit time.
    ///
    /// - An entry whose `updateTime` is 0 gets the restore's commit time (and `createTime` 0 too):
    ///   for sources that carry no times, such as official Firestore exports.
    /// - Into an empty namespace with keys strictly ascending (what an export or a checkpoint
    ///   holds), the tree is built bottom-up in O(N): no per-key descent, no path copies. Otherwise
    ///   each entry replaces whatever the key held (its history included).
    /// - Afterwards the engine's last commit time is at least the largest restored time, so every
    ///   later commit is strictly later than anything restored.
    /// - Subscribers hear the restore as one commit, and an attached commit log records it
    ///   (with the restored times) before this returns.
    /// - Namespace limits are checked; an entry over them throws and nothing is restored.
    ///
    /// ```swift
    /// try engine.restore("firestore/demo/(default)", [
    ///     StoredEntry(key: StorageKey("books/a"), value: bytes, createTime: created, updateTime: updated),
    /// ])
    /// ```
    @discardableResult
    package func restore(_ namespace: NamespaceID, _ entries: [StoredEntry]) throws(StorageError) -> CommitTime {
        var logged: (log: any CommitLog, token: UInt64)?
        let time = try commitLock.withLock { spares throws(StorageError) -> CommitTime in
            spares.removeAll { $0.namespace == namespace }
            let before = head.withLock { $0 }
            let time = max(clock.now(), before.lastCommitTime + 1)
            var space = before.namespaces[namespace] ?? NamespaceState()
            if space.limits != .unlimited {
                for entry in entries { try space.limits.check(entry.key, valueCount: entry.value.count) }
            }
            // One pass: check keys and order, find the latest time.
            var latest = time
            var sorted = true
            var previous: [UInt8]?
            for entry in entries {
                guard !entry.key.isRoot else { throw StorageError(.invalidKey, "cannot store a value at the root") }
                if entry.updateTime != 0 { latest = max(latest, entry.updateTime) }
                if sorted, let previous, !ByteOrder.less(previous, entry.key.encoded) { sorted = false }
                previous = entry.key.encoded
            }
            func versioned(_ entry: StoredEntry) -> VersionedEntry {
                let updateTime = entry.updateTime == 0 ? time : entry.updateTime
                let createTime = entry.updateTime == 0 || entry.createTime == 0 ? updateTime : min(entry.createTime, updateTime)
                return VersionedEntry(key: entry.key.encoded, value: entry.value, createTime: createTime, updateTime: updateTime)
            }
            func stored(_ entry: VersionedEntry, _ key: StorageKey) -> StoredEntry {
                StoredEntry(key: key, value: entry.value ?? [], createTime: entry.createTime, updateTime: entry.updateTime)
            }
            let log = commitLog.withLock { $0 }
            let reporting = log != nil || !feed.isEmpty
            var changes: [StorageChange] = []
            if sorted && space.liveCount == 0 && space.isEmpty {
                space.load(sorted: entries.lazy.map(versioned), count: entries.count)
                let data = space.headStack
                for id in Array(space.indexes.keys) { space.indexes[id]?.build(from: data) }
                if reporting {
                    changes = entries.map { StorageChange(namespace: namespace, key: $0.key, old: nil, new: stored(versioned($0), $0.key)) }
                }
            } else {
                for entry in entries {
                    let restored = versioned(entry)
                    let replaced = space.replace(with: restored)
                    var old: StoredEntry?
                    if let replaced, let value = replaced.value {
                        old = StoredEntry(key: entry.key, value: value, createTime: replaced.createTime, updateTime: replaced.updateTime)
                    }
                    if space.pendingEntries >= levels.sealSize { space.settle(policy: levels, horizon: 0) }
                    if old == nil { space.liveCount += 1 }
                    for id in Array(space.indexes.keys) { space.indexes[id]?.apply(key: entry.key, old: old?.value, new: entry.value) }
                    if reporting {
                        changes.append(StorageChange(namespace: namespace, key: entry.key, old: old, new: stored(restored, entry.key)))
                    }
                }
            }
            space.settle(policy: levels, horizon: 0)
            var after = before
            after.namespaces.store(space, for: namespace)
            after.lastCommitTime = latest
            tidyLater(namespace, in: after)
            publish(&after)
            if !changes.isEmpty && !feed.isEmpty {
                feed.deliver(
                    [], changes, commitTime: latest,
                    before: StorageSnapshot(state: before, readTime: before.lastCommitTime, isHead: false),
                    after: StorageSnapshot(state: after, readTime: latest, isHead: true))
            }
            if !changes.isEmpty, let log {
                logged = (log, log.append(changes, cleared: [], commitTime: latest))
            }
            return latest
        }
        if let logged { DurabilityScope.awaitDurable(logged.log, logged.token) }
        return time
    }

    /// Attaches (or with nil detaches) the durability hook every later commit and clear reports to.
    /// Attach it after loading recovered data, so recovery is not journaled again.
    package func setCommitLog(_ log: (any CommitLog)?) {
        commitLock.withLock { _ in commitLog.withLock { $0 = log } }
    }

    // MARK: Configuration

    /// Sets the limits every later write into `namespace` must respect.
    package func configure(_ namespace: NamespaceID, limits: NamespaceLimits) {
        commitLock.withLock { _ in
            var state = head.withLock { $0 }
            state.namespaces[namespace, default: NamespaceState()].limits = limits
            publish(&state)
        }
    }

    /// Builds (from existing data) and from now on maintains a secondary index. A second call
    /// with the same id does nothing.
    package func ensureIndex(_ namespace: NamespaceID, _ definition: IndexDefinition) {
        commitLock.withLock { _ in
            var state = head.withLock { $0 }
            guard state.namespaces[namespace]?.indexes[definition.id] == nil else { return }
            var index = SecondaryIndex(definition: definition)
            index.build(from: state.namespaces[namespace]?.headStack ?? TreeStack(root: TreeNode.leaf()))
            state.namespaces[namespace, default: NamespaceState()].indexes[definition.id] = index
            publish(&state)
        }
    }

    /// Removes a secondary index.
    package func dropIndex(_ namespace: NamespaceID, id: String) {
        commitLock.withLock { _ in
            var state = head.withLock { $0 }
            state.namespaces.modify(namespace) { $0.indexes[id] = nil }
            publish(&state)
        }
    }

    // MARK: Change feed

    /// Calls `handler` with what each later commit changes at or below `prefix` in `namespace`
    /// (and when a clear covers or falls inside it), until the subscription is cancelled or released.
    package func subscribe(
        _ namespace: NamespaceID, prefix: StorageKey = .root, handler: @escaping @Sendable (ChangeBatch) -> Void
    ) -> Subscription {
        let id = feed.add(namespace, prefix, handler)
        return Subscription(feed: feed, namespace: namespace, prefix: prefix, id: id)
    }
}
