import EmulatorHTTP
import EmulatorModel
import EmulatorSupport
import Synchronization

/// One database (namespace): its data, its rules and its open event streams, behind one lock.
///
/// Commits are serialized by the lock; each commit's stream events are written (queued on the
/// writers) before the lock is released, so every stream sees commits in commit order.
final class DatabaseNamespace: Sendable {
    let name: String

    private struct State {
        var root: DatabaseNode = .empty
        var rulesSource: [UInt8]
        var rules: any DatabaseRules
        var groups: [DatabaseStreamGroup] = []
    }

    private let state: Mutex<State>

    init(name: String, rulesSource: [UInt8], rules: any DatabaseRules) {
        self.name = name
        self.state = Mutex(State(rulesSource: rulesSource, rules: rules))
    }

    /// The whole tree now.
    var root: DatabaseNode { state.withLock { $0.root } }

    var rules: (source: [UInt8], rules: any DatabaseRules) {
        state.withLock { ($0.rulesSource, $0.rules) }
    }

    /// Atomically: `prepare` sees the head tree and the rules and returns the write to apply (or
    /// throws, and nothing changes); the write is applied and streams are told.
    func commit<Failure: Error>(
        _ prepare: (_ root: DatabaseNode, _ rules: any DatabaseRules) throws(Failure) -> DatabaseWrite
    ) throws(Failure) -> (old: DatabaseNode, new: DatabaseNode, write: DatabaseWrite) {
        try state.withLock { (s) throws(Failure) -> (old: DatabaseNode, new: DatabaseNode, write: DatabaseWrite) in
            let old = s.root
            let write = try prepare(old, s.rules)
            let new = write.apply(to: old)
            s.root = new
            for group in s.groups {
                if let event = group.event(for: write, newRoot: new) { group.send(event.bytes) }
            }
            if s.groups.contains(where: { $0.writers.isEmpty }) { s.groups.removeAll { $0.writers.isEmpty } }
            return (old, new, write)
        }
    }

    /// Runs `body` with the head tree and rules, under the lock (consistent reads).
    func read<T>(_ body: (_ root: DatabaseNode, _ rules: any DatabaseRules) -> T) -> T {
        state.withLock { body($0.root, $0.rules) }
    }

    /// Replaces the rules; streams that may no longer read get `cancel` and are closed.
    func setRules(source: [UInt8], rules: any DatabaseRules) {
        let cancelled = state.withLock { s -> [any HTTPStreamWriter] in
            s.rulesSource = source
            s.rules = rules
            var kept: [DatabaseStreamGroup] = []
            var cancelled: [any HTTPStreamWriter] = []
            for group in s.groups {
                if group.auth.isAdmin || rules.canRead(group.path, auth: group.auth, root: s.root) {
                    kept.append(group)
                } else {
                    let bytes = DatabaseEvent.cancel("Permission denied").bytes
                    for writer in group.writers where writer.write(bytes) { cancelled.append(writer) }
                }
            }
            s.groups = kept
            return cancelled
        }
        // Finished outside the lock: close handlers come back to `removeStream`.
        for writer in cancelled { writer.finish() }
    }

    /// Forgets a closed stream (its writer's close handler).
    func removeStream(_ writer: any HTTPStreamWriter) {
        let id = ObjectIdentifier(writer)
        state.withLock { s in
            for group in s.groups { group.writers.removeAll { ObjectIdentifier($0) == id } }
            s.groups.removeAll { $0.writers.isEmpty }
        }
    }

    /// Registers a stream: checks `authorize` against the head, sends the first `put /` and joins
    /// the matching group, all under the lock so no commit is missed or seen twice.
    func openStream(
        path: DatabasePath, query: DatabaseQuery, auth: DatabaseAuth, writer: any HTTPStreamWriter
    ) {
        state.withLock { s in
            let view = query.apply(to: s.root.child(at: path))
            writer.write(DatabaseEvent.put(path: .root, data: view.json()).bytes)
            if let group = s.groups.first(where: { $0.path == path && $0.query == query && $0.auth == auth }) {
                group.writers.append(writer)
            } else {
                let group = DatabaseStreamGroup(path: path, query: query, auth: auth, view: view)
                group.writers.append(writer)
                s.groups.append(group)
            }
        }
        // Outside the lock: a writer that is already closed runs the handler at once.
        writer.onClose { [weak self, weak writer] in
            if let self, let writer { self.removeStream(writer) }
        }
    }

    /// Sends a keep-alive to every stream and forgets closed ones.
    func keepAlive() {
        state.withLock { s in
            let bytes = DatabaseEvent.keepAlive.bytes
            for group in s.groups { group.send(bytes) }
            s.groups.removeAll { $0.writers.isEmpty }
        }
    }

    /// Number of open streams (for tests and the hub).
    var streamCount: Int {
        state.withLock { s in s.groups.reduce(0) { $0 + $1.writers.filter(\.isOpen).count } }
    }
}
