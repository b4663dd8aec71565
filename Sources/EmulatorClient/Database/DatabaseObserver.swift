import EmulatorModel
import EmulatorSupport
import Synchronization

/// One `observe` registration: a Server-Sent Events stream on the query's location, a local
/// copy of the data, and the events derived by comparing each new view with the previous one.
final class DatabaseObserver: Sendable {
    let query: DatabaseQuery
    let eventType: DataEventType
    private let block: UserCallback<(DataSnapshot, String?) -> Void>
    private let cancel: UserCallback<(any Error) -> Void>?
    private let stream = Mutex<EventStream?>(nil)
    private let stopped = Atomic<Bool>(false)

    /// The local copy of the location and the last view delivered (touched only by the stream thread).
    private struct Cache {
        var node = DatabaseNode.empty
        var view: DatabaseNode?
    }

    private let cache = Mutex(Cache())

    init(
        query: DatabaseQuery, eventType: DataEventType, block: UserCallback<(DataSnapshot, String?) -> Void>,
        cancel: UserCallback<(any Error) -> Void>?
    ) {
        self.query = query
        self.eventType = eventType
        self.block = block
        self.cancel = cancel
    }

    func start() {
        let address = query.database.address
        let s = EventStream(
            host: address.host, port: address.port,
            target: query.database.target(query.path, query: [("format", "export")]),
            headers: [query.database.authorization],
            onEvent: { [self] name, data in self.handle(name, data) },
            onEnd: { [self] reason in
                if !self.stopped.load(ordering: .acquiring) { self.report(DatabaseError(reason)) }
            })
        stream.withLock { $0 = s }
        if stopped.load(ordering: .acquiring) { s.cancel() }
    }

    func stop() {
        stopped.store(true, ordering: .releasing)
        stream.withLock { $0?.cancel() }
    }

    private func handle(_ name: String, _ data: String) {
        guard name == "put" || name == "patch" else {
            if name == "cancel" || name == "auth_revoked" {
                report(DatabaseError(data))
                stop()
            }
            return
        }
        guard let json = try? JSONReader.parse(data), case .string(let pathText)? = json[member: "path"],
            let payload = json[member: "data"]
        else { return }
        let base = DatabaseReference.split(pathText)
        let events: [(DataEventType, DataSnapshot, String?)] = cache.withLock { c in
            if name == "put" {
                c.node.set((try? DatabaseNode(json: payload)) ?? .empty, at: DatabasePath(keys: base))
            } else if case .object(let members) = payload {
                for m in members {
                    let node = (try? DatabaseNode(json: m.value)) ?? .empty
                    c.node.set(node, at: DatabasePath(keys: base + DatabaseReference.split(m.name)))
                }
            }
            let view = query.params.apply(c.node)
            defer { c.view = view }
            return derive(old: c.view, new: view)
        }
        let wanted = events.filter { $0.0 == eventType }
        guard !wanted.isEmpty else { return }
        let block = self.block
        query.database.callbackQueue.deliver { [self] in
            for (_, snapshot, previous) in wanted where !stopped.load(ordering: .acquiring) {
                block.call(snapshot, previous)
            }
        }
    }

    /// Hands a refused read or a failed stream to the cancel block, on the callback queue.
    private func report(_ error: DatabaseError) {
        guard let cancel, !stopped.load(ordering: .acquiring) else { return }
        query.database.callbackQueue.deliver { cancel.call(error) }
    }

    /// The events between two views: child removals, additions, changes, then the value.
    /// Child events carry the key of the previous sibling in query order (nil for the first).
    private func derive(old: DatabaseNode?, new: DatabaseNode) -> [(DataEventType, DataSnapshot, String?)] {
        let ref = query.ref
        var events: [(DataEventType, DataSnapshot, String?)] = []
        let before = old?.children ?? DatabaseChildren()
        var beforeByKey: [String: DatabaseNode] = [:]
        for c in before { beforeByKey[c.key] = c.node }
        let after = query.params.sorted(new.children)
        var afterKeys = Set<String>()
        for c in after { afterKeys.insert(c.key) }
        for c in before where !afterKeys.contains(c.key) {
            events.append((.childRemoved, DataSnapshot(ref: ref.child(c.key), node: c.node), nil))
        }
        for (i, c) in after.enumerated() {
            let sibling = i > 0 ? after[i - 1].key : nil
            if let previous = beforeByKey[c.key] {
                if previous != c.node { events.append((.childChanged, DataSnapshot(ref: ref.child(c.key), node: c.node), sibling)) }
            } else {
                events.append((.childAdded, DataSnapshot(ref: ref.child(c.key), node: c.node), sibling))
            }
        }
        if old == nil || old != new {
            events.append((.value, DataSnapshot(ref: ref, node: new, params: query.params), nil))
        }
        return events
    }
}
