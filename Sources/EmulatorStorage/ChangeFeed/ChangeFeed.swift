import Synchronization

/// Subscribers indexed by (namespace, key prefix), so a commit finds the ones a changed key
/// concerns by walking that key's ancestors: cost ∝ change × depth, not ∝ subscribers or data.
final class ChangeFeed: Sendable {
    typealias Handler = @Sendable (ChangeBatch) -> Void

    struct Registry {
        var nextID = 0
        /// namespace → prefix encoding → subscription id → handler.
        var byNamespace: [NamespaceID: [[UInt8]: [Int: Handler]]] = [:]
    }

    let registry = Mutex(Registry())

    func add(_ namespace: NamespaceID, _ prefix: StorageKey, _ handler: @escaping Handler) -> Int {
        registry.withLock { registry in
            registry.nextID += 1
            registry.byNamespace[namespace, default: [:]][prefix.encoded, default: [:]][registry.nextID] = handler
            return registry.nextID
        }
    }

    func remove(_ namespace: NamespaceID, _ prefix: StorageKey, _ id: Int) {
        registry.withLock { registry in
            registry.byNamespace[namespace]?[prefix.encoded]?[id] = nil
            if registry.byNamespace[namespace]?[prefix.encoded]?.isEmpty == true {
                registry.byNamespace[namespace]?[prefix.encoded] = nil
            }
            if registry.byNamespace[namespace]?.isEmpty == true { registry.byNamespace[namespace] = nil }
        }
    }

    var isEmpty: Bool { registry.withLock { $0.byNamespace.isEmpty } }

    /// Tells each concerned subscriber about `cleared` and `changes` (one batch per subscriber
    /// and namespace): a cleared subtree concerns prefixes above, at or below it.
    func deliver(
        _ cleared: [ClearedSubtree], _ changes: [StorageChange], commitTime: CommitTime, before: StorageSnapshot,
        after: StorageSnapshot
    ) {
        let all = registry.withLock { $0.byNamespace }
        guard !all.isEmpty else { return }
        // The common case of one subscriber of a whole namespace (a Listen hub of a database)
        // and a commit within it: the batch is the commit's own array, not a copy built change
        // by change.
        if cleared.isEmpty, let namespace = changes.first?.namespace, let subscribers = all[namespace],
            subscribers.count == 1, let (prefix, handlers) = subscribers.first, prefix.isEmpty,
            handlers.count == 1, let handler = handlers.first?.value,
            changes.allSatisfy({ $0.namespace == namespace })
        {
            handler(ChangeBatch(
                namespace: namespace, commitTime: commitTime, clearedSubtrees: [], changes: changes, before: before,
                after: after))
            return
        }
        var batches: [Int: Pending] = [:]
        for subtree in cleared {
            guard let subscribers = all[subtree.namespace] else { continue }
            let key = subtree.key.encoded
            for (prefix, handlers) in subscribers where key.starts(with: prefix) || prefix.starts(with: key) {
                for (id, handler) in handlers {
                    batches[id, default: Pending(handler: handler, namespace: subtree.namespace)].cleared.append(subtree.key)
                }
            }
        }
        var lastNamespace: NamespaceID?
        var subscribers: [[UInt8]: [Int: Handler]]?
        for change in changes {
            if change.namespace != lastNamespace {
                lastNamespace = change.namespace
                subscribers = all[change.namespace]
            }
            guard let subscribers else { continue }
            let key = change.key.encoded
            if subscribers.count <= 4 {
                for (prefix, handlers) in subscribers where key.starts(with: prefix) {
                    for (id, handler) in handlers {
                        batches[id, default: Pending(handler: handler, namespace: change.namespace)].changes.append(change)
                    }
                }
                continue
            }
            // Walk the key's ancestors (root, then one segment at a time, then the key itself).
            var end = 0
            while true {
                if let handlers = subscribers[Array(key[0..<end])] {
                    for (id, handler) in handlers {
                        batches[id, default: Pending(handler: handler, namespace: change.namespace)].changes.append(change)
                    }
                }
                guard end < key.count else { break }
                while end < key.count && key[end] != 0 { end += 1 }
                end += 1
            }
        }
        for id in batches.keys.sorted() {
            guard let batch = batches[id] else { continue }
            batch.handler(ChangeBatch(
                namespace: batch.namespace, commitTime: commitTime, clearedSubtrees: batch.cleared,
                changes: batch.changes, before: before, after: after))
        }
    }

    /// One subscriber's share of a commit, while it is gathered.
    private struct Pending {
        let handler: Handler
        let namespace: NamespaceID
        var cleared: [StorageKey] = []
        var changes: [StorageChange] = []
    }

    /// Tells subscribers whose prefix overlaps `subtree` (above, at or below it) that it was cleared.
    func deliverClear(
        _ namespace: NamespaceID, _ subtree: StorageKey, commitTime: CommitTime, before: StorageSnapshot,
        after: StorageSnapshot
    ) {
        guard let subscribers = registry.withLock({ $0.byNamespace[namespace] }) else { return }
        var concerned: [(Int, Handler)] = []
        for (prefix, handlers) in subscribers
        where subtree.encoded.starts(with: prefix) || prefix.starts(with: subtree.encoded) {
            for (id, handler) in handlers { concerned.append((id, handler)) }
        }
        for (_, handler) in concerned.sorted(by: { $0.0 < $1.0 }) {
            handler(ChangeBatch(
                namespace: namespace, commitTime: commitTime, clearedSubtrees: [subtree], changes: [],
                before: before, after: after))
        }
    }
}

/// A live change-feed registration; cancelled by `cancel()` or when released.
package final class Subscription: Sendable {
    private let feed: ChangeFeed
    private let namespace: NamespaceID
    private let prefix: StorageKey
    private let id: Int

    init(feed: ChangeFeed, namespace: NamespaceID, prefix: StorageKey, id: Int) {
        self.feed = feed
        self.namespace = namespace
        self.prefix = prefix
        self.id = id
    }

    /// Stops delivery; idempotent. A delivery already running may still complete.
    package func cancel() { feed.remove(namespace, prefix, id) }

    deinit { cancel() }
}
