import EmulatorHTTP
import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import Synchronization

/// One database (namespace): its data in the shared storage engine (`database/<name>`), its
/// rules, and the one fan-out of its changes to every transport.
///
/// The namespace subscribes to the engine's change feed once and hears every commit there, on
/// the committing thread and in commit order; it sends each to its event streams (SSE) and then
/// to its observers (the wire-protocol sessions with listens), with the commit's `before` and
/// `after` data and, for a commit made here, the description of the write (set or multi-path
/// update) so streams can send `put` or `patch` as the protocol wants; a commit made elsewhere
/// (import, clear) has none and is sent as a whole value. A rules change reaches both too.
final class DatabaseNamespace: Sendable {
    let name: String
    let id: NamespaceID
    private let engine: StorageEngine
    private let now: @Sendable () -> Int64

    private struct State {
        var rules: DatabaseRules
        var groups = DatabaseStreamIndex()
        var subscription: Subscription?
        var observers: [Int: @Sendable (DatabaseNamespaceEvent) -> Void] = [:]
        var nextObserver = 0
    }

    private let state: Mutex<State>
    /// Writes committed here, by commit time, until the change feed has delivered them.
    private let pending = Mutex<[CommitTime: DatabaseWrite]>([:])

    init(name: String, engine: StorageEngine, now: @escaping @Sendable () -> Int64, rules: DatabaseRules) {
        self.name = name
        self.now = now
        self.id = DatabaseStorageMapping.namespaceID(name)
        self.engine = engine
        self.state = Mutex(State(rules: rules))
    }

    var rules: DatabaseRules { state.withLock { $0.rules } }

    /// The current data.
    var head: DatabaseSnapshotSource {
        do {
            return DatabaseSnapshotSource(snapshot: try engine.snapshot(), namespace: id)
        } catch {
            // Only a read time older than the retained history throws; the head has none.
            preconditionFailure("head snapshot failed: \(error)")
        }
    }

    /// Atomically: `prepare` sees the head data and the rules and returns the write to apply (or
    /// throws, and nothing changes); the write is stored and streams and observers are told.
    @discardableResult
    func commit<Failure: Error>(
        _ prepare: (_ data: DatabaseSnapshotSource, _ rules: DatabaseRules) throws(Failure) -> DatabaseWrite
    ) throws(Failure) -> DatabaseWrite {
        let rules = self.rules
        let id = self.id
        let result = try engine.commit { (txn: inout CommitBuilder) throws(Failure) -> DatabaseWrite in
            let write = try prepare(DatabaseSnapshotSource(snapshot: txn.snapshot, namespace: id), rules)
            DatabaseStorageMapping.apply(write, to: &txn, id)
            let time = txn.commitTime
            pending.withLock { $0[time] = write }
            return write
        }
        // Delivered (or nothing changed and there was nothing to deliver): forget it.
        pending.withLock { $0[result.commitTime] = nil }
        return result.value
    }

    /// Replaces the rules; streams that may no longer read get `cancel` and are closed, and
    /// observers hear `.rulesChanged`.
    func setRules(_ rules: DatabaseRules) {
        let data = head
        let (cancelled, observers) = state.withLock { s -> ([any HTTPStreamWriter], [@Sendable (DatabaseNamespaceEvent) -> Void]) in
            s.rules = rules
            var cancelled: [any HTTPStreamWriter] = []
            for group in s.groups.all
            where !rules.mayRead(group.path, query: group.query, auth: group.auth, now: now(), data: data) {
                let bytes = DatabaseEvent.cancel("Permission denied").bytes
                for writer in group.writers where writer.write(bytes) { cancelled.append(writer) }
                group.members.removeAll()
            }
            s.groups.prune()
            return (cancelled, Array(s.observers.values))
        }
        // Finished outside the lock: close handlers come back to `removeStream`.
        for writer in cancelled { writer.finish() }
        for observer in observers { observer(.rulesChanged) }
    }

    /// Starts telling `handler` about every later commit and rules change (on the committing
    /// thread, under the commit lock: see `deliver`); returns the token `removeObserver` takes.
    func addObserver(_ handler: @escaping @Sendable (DatabaseNamespaceEvent) -> Void) -> Int {
        state.withLock { s in
            subscribe(&s)
            s.nextObserver += 1
            s.observers[s.nextObserver] = handler
            return s.nextObserver
        }
    }

    func removeObserver(_ token: Int) {
        _ = state.withLock { $0.observers.removeValue(forKey: token) }
    }

    /// Joins the engine's change feed (once; the namespace stays subscribed).
    private func subscribe(_ s: inout State) {
        if s.subscription == nil {
            s.subscription = engine.subscribe(id) { [weak self] batch in self?.deliver(batch) }
        }
    }

    /// Registers a stream: sends the first `put /` and joins the matching group. Commits that the
    /// first value already includes are not sent again.
    func openStream(path: DatabasePath, query: DatabaseQueryParams, auth: DatabaseAuth, writer: any HTTPStreamWriter) {
        state.withLock { s in
            subscribe(&s)
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

    /// One commit from the change feed (committing thread, commit order): to the event
    /// streams, then to the observers.
    private func deliver(_ batch: ChangeBatch) {
        let write = pending.withLock { $0.removeValue(forKey: batch.commitTime) }
        let after = DatabaseSnapshotSource(snapshot: batch.after, namespace: id)
        let time = now()
        var stored: [DatabasePath]?
        let (cancelled, observers) = state.withLock { s -> ([any HTTPStreamWriter], [@Sendable (DatabaseNamespaceEvent) -> Void]) in
            let observers = Array(s.observers.values)
            guard s.groups.count > 0 else { return ([], observers) }
            let locations: [DatabasePath]
            if let write {
                locations = write.locations
            } else {
                stored = Self.storedLocations(batch, write: nil)
                locations = stored ?? []
            }
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
                if !s.rules.mayRead(group.path, query: group.query, auth: group.auth, now: time, data: after) {
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
            return (cancelled, observers)
        }
        // Finished outside the lock: close handlers come back to `removeStream`.
        for writer in cancelled { writer.finish() }
        guard !observers.isEmpty else { return }
        let locations = stored ?? Self.storedLocations(batch, write: write)
        guard !locations.isEmpty else { return }
        let commit = DatabaseCommit(
            time: batch.commitTime, write: write, storedLocations: locations,
            before: DatabaseSnapshotSource(snapshot: batch.before, namespace: id), after: after)
        for observer in observers { observer(.commit(commit)) }
    }

    /// The database locations a batch changed: each changed leaf or priority (a packed entry
    /// counts per leaf, see `DatabaseStorageMapping.changedLocations`), and each cleared subtree
    /// as one location.
    static func storedLocations(_ batch: ChangeBatch, write: DatabaseWrite?) -> [DatabasePath] {
        var locations = DatabaseStorageMapping.changedLocations(batch.changes, write: write)
        for cleared in batch.clearedSubtrees { locations.append(DatabaseStorageMapping.path(of: cleared)) }
        return locations
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

/// What a namespace tells its observers.
enum DatabaseNamespaceEvent: Sendable {
    /// A commit (of this namespace's data, made here or elsewhere).
    case commit(DatabaseCommit)
    /// The rules were replaced.
    case rulesChanged
}

/// One commit as the namespace's observers see it.
struct DatabaseCommit: Sendable {
    let time: CommitTime
    /// The write, when the commit was made through the namespace (nil: import, clear).
    let write: DatabaseWrite?
    /// The location of every leaf or priority the commit changed (a cleared subtree is one).
    let storedLocations: [DatabasePath]
    let before: DatabaseSnapshotSource
    let after: DatabaseSnapshotSource
}
