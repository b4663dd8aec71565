import EmulatorHTTP
import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import Synchronization

/// One database (namespace): its data in the shared storage engine (`database/<name>`), its
/// rules and its open event streams.
///
/// Streams hear commits through the engine's change feed, on the committing thread and in
/// commit order. A commit made here leaves a description of the write (set or multi-path
/// update) keyed by its commit time, so streams can send `put` or `patch` as the protocol wants;
/// a commit made elsewhere (import, clear) is sent as a whole `put /`.
final class DatabaseNamespace: Sendable {
    let name: String
    let id: NamespaceID
    private let engine: StorageEngine
    private let now: @Sendable () -> Int64

    private struct State {
        var rulesSource: [UInt8]
        var rules: any DatabaseRules
        var groups = DatabaseStreamIndex()
        var subscription: Subscription?
    }

    private let state: Mutex<State>
    /// Writes committed here, by commit time, until the change feed has delivered them.
    private let pending = Mutex<[CommitTime: DatabaseWrite]>([:])

    init(
        name: String, engine: StorageEngine, now: @escaping @Sendable () -> Int64, rulesSource: [UInt8],
        rules: any DatabaseRules
    ) {
        self.name = name
        self.now = now
        self.id = DatabaseStorageMapping.namespaceID(name)
        self.engine = engine
        self.state = Mutex(State(rulesSource: rulesSource, rules: rules))
    }

    var rules: (source: [UInt8], rules: any DatabaseRules) {
        state.withLock { ($0.rulesSource, $0.rules) }
    }

    /// The current data.
    var head: DatabaseSnapshotSource {
        do {
            return DatabaseSnapshotSource(snapshot: try engine.snapshot(), namespace: id)
        } catch {
            // Only a read time older than the retained history throws; the head has none.
            preconditionFailure("head snapshot failed: \(error)")
        }
    }

    /// Runs `body` with the current data and rules.
    func read<T>(_ body: (_ data: any DatabaseDataSource, _ rules: any DatabaseRules) -> T) -> T {
        body(head, rules.rules)
    }

    /// Atomically: `prepare` sees the head data and the rules and returns the write to apply (or
    /// throws, and nothing changes); the write is stored and streams are told.
    @discardableResult
    func commit<Failure: Error>(
        _ prepare: (_ data: any DatabaseDataSource, _ rules: any DatabaseRules) throws(Failure) -> DatabaseWrite
    ) throws(Failure) -> DatabaseWrite {
        let rules = self.rules.rules
        let id = self.id
        let result = try engine.commit { (txn: inout CommitBuilder) throws(Failure) -> DatabaseWrite in
            let write = try prepare(DatabaseCommitSource(txn: txn, namespace: id), rules)
            DatabaseStorageMapping.apply(write, to: &txn, id)
            let time = txn.commitTime
            pending.withLock { $0[time] = write }
            return write
        }
        // Delivered (or nothing changed and there was nothing to deliver): forget it.
        pending.withLock { $0[result.commitTime] = nil }
        return result.value
    }

    /// Replaces the rules; streams that may no longer read get `cancel` and are closed.
    func setRules(source: [UInt8], rules: any DatabaseRules) {
        let data = head
        let cancelled = state.withLock { s -> [any HTTPStreamWriter] in
            s.rulesSource = source
            s.rules = rules
            var cancelled: [any HTTPStreamWriter] = []
            for group in s.groups.all
            where !group.auth.mayRead(group.path, query: group.query, now: now(), data: data, rules: rules) {
                let bytes = DatabaseEvent.cancel("Permission denied").bytes
                for writer in group.writers where writer.write(bytes) { cancelled.append(writer) }
                group.members.removeAll()
            }
            s.groups.prune()
            return cancelled
        }
        // Finished outside the lock: close handlers come back to `removeStream`.
        for writer in cancelled { writer.finish() }
    }

    /// Registers a stream: sends the first `put /` and joins the matching group. Commits that the
    /// first value already includes are not sent again.
    func openStream(path: DatabasePath, query: DatabaseQuery, auth: DatabaseAuth, writer: any HTTPStreamWriter) {
        state.withLock { s in
            if s.subscription == nil {
                s.subscription = engine.subscribe(id) { [weak self] batch in self?.deliver(batch) }
            }
            let snapshot = head
            let view = query.apply(to: snapshot.node(at: path))
            writer.write(DatabaseEvent.put(path: .root, data: view.json()).bytes)
            let group: DatabaseStreamGroup
            if let existing = s.groups.group(at: path, query: query, auth: auth) {
                group = existing
            } else {
                group = DatabaseStreamGroup(path: path, query: query, auth: auth, view: view)
                s.groups.insert(group)
            }
            group.members.append((writer, snapshot.snapshot.readTime))
        }
        // Outside the lock: a writer that is already closed runs the handler at once.
        // The writer is named by identity, not captured: a weak reference would give every writer a
        // side table and make each retain and release of it on the fan-out path a slow one. Close
        // handlers run while the closing writer is alive, so the identity names no other writer.
        let writerID = ObjectIdentifier(writer)
        writer.onClose { [weak self] in self?.removeStream(writerID) }
    }

    /// One commit from the change feed (committing thread, commit order).
    private func deliver(_ batch: ChangeBatch) {
        let write = pending.withLock { $0.removeValue(forKey: batch.commitTime) }
        let after = DatabaseSnapshotSource(snapshot: batch.after, namespace: id)
        var locations = write?.locations ?? batch.changes.map { DatabaseStorageMapping.path(of: $0.key) }
        if write == nil { locations += batch.clearedSubtrees.map(DatabaseStorageMapping.path(of:)) }
        let time = now()
        let cancelled = state.withLock { s -> [any HTTPStreamWriter] in
            var cancelled: [any HTTPStreamWriter] = []
            var emptied = false
            defer { if emptied { s.groups.prune() } }
            var cache = DatabaseEventCache()
            // Only the groups at, above or below a changed location can be touched.
            for group in s.groups.groups(touching: locations) {
                guard group.wantsCommit(at: batch.commitTime) else { continue }
                guard let bytes = group.eventBytes(for: write, locations: locations, after: after, cache: &cache) else {
                    continue
                }
                // Rules that read data may stop granting the read once the data changed.
                if !group.auth.mayRead(group.path, query: group.query, now: time, data: after, rules: s.rules) {
                    let bytes = DatabaseEvent.cancel("Permission denied").bytes
                    for member in group.members where member.openedAt < batch.commitTime && member.writer.write(bytes) {
                        cancelled.append(member.writer)
                    }
                    group.members.removeAll { $0.openedAt < batch.commitTime }
                    emptied = emptied || group.members.isEmpty
                    continue
                }
                group.send(bytes, committedAt: batch.commitTime)
                emptied = emptied || group.members.isEmpty
            }
            return cancelled
        }
        // Finished outside the lock: close handlers come back to `removeStream`.
        for writer in cancelled { writer.finish() }
    }

    /// Forgets a closed stream (its writer's close handler).
    func removeStream(_ id: ObjectIdentifier) {
        state.withLock { s in
            var emptied = false
            for group in s.groups.all {
                let before = group.members.count
                group.members.removeAll { ObjectIdentifier($0.writer) == id }
                if group.members.count != before {
                    emptied = group.members.isEmpty
                    break
                }
            }
            if emptied { s.groups.prune() }
        }
    }

    /// Sends a keep-alive to every stream and forgets closed ones.
    func keepAlive() {
        state.withLock { s in
            let bytes = DatabaseEvent.keepAlive.bytes
            for group in s.groups.all { group.send(bytes) }
            s.groups.prune()
        }
    }

    /// Number of open streams (for tests and the hub).
    var streamCount: Int {
        state.withLock { s in s.groups.all.reduce(0) { $0 + $1.writers.filter(\.isOpen).count } }
    }
}
