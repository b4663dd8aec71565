import EmulatorModel
import EmulatorSupport

/// A compare-and-set condition on the current value at a set's location.
enum DatabaseCondition: Sendable, Equatable {
    /// REST `if-match`: the value's ETag (`null_etag` for null).
    case etag(String)
    /// A wire-protocol transaction (`p` with `h`): the value's hash (`""` for null).
    case hash(String)

    func holds(for current: DatabaseNode) -> Bool {
        switch self {
        case .etag(let etag): etag == current.etag
        case .hash(let hash): hash == current.hash
        }
    }
}

/// REST's `writeSizeLimit`: the request's bytes plus the stored bytes a write replaces must fit.
struct DatabaseWriteBudget: Sendable {
    /// The most bytes the write may touch.
    var bytes: Int
    /// The size of the request body that carries the write.
    var requestBytes: Int
}

extension DatabaseService {
    /// A fresh push id (POST, the SDKs make their own), from server time.
    func pushID() -> String { pushIds.next(milliseconds: now()) }

    /// One atomic set of `json` at `path` (with `priority`, of its priority), rules and
    /// `condition` checked against the data inside the commit. `json` must be valid
    /// (`DatabaseInputValidator`); server values resolve against the current value. Returns what
    /// was written (for a priority, the priority as a node).
    @discardableResult
    func set(
        _ json: JSONValue, at path: DatabasePath, priority isPriority: Bool = false, in namespace: DatabaseNamespace,
        auth: DatabaseAuth, condition: DatabaseCondition? = nil, budget: DatabaseWriteBudget? = nil
    ) throws(DatabaseFailure) -> DatabaseNode {
        if let budget, budget.requestBytes > budget.bytes { throw .writeTooBig }
        let time = now()
        var written = DatabaseNode.empty
        try namespace.commit { (data, rules) throws(DatabaseFailure) -> DatabaseWrite in
            let current = Self.needsCurrent(json, isPriority || condition != nil) ? data.node(at: path) : .empty
            if let condition, !condition.holds(for: current) { throw .conditionFailed(current: current) }
            if let budget, !isPriority,
                budget.requestBytes + data.storedBytes(at: path, upTo: budget.bytes) > budget.bytes
            {
                throw .writeTooBig
            }
            let (write, node) = Self.setWrite(json, at: path, priority: isPriority, current: current, now: time)
            written = node
            guard rules.mayWrite(write, auth: auth, now: time, data: data) else { throw .permissionDenied }
            return write
        }
        return written
    }

    /// One atomic multi-path update below `base`: each (relative path, value) replaces its
    /// location (null deletes; a last key `.priority` sets a priority). Paths must not overlap and
    /// values must be valid. Rules see the whole update at once. Returns each resolved value.
    @discardableResult
    func update(
        _ updates: [(path: DatabasePath, value: JSONValue)], at base: DatabasePath, in namespace: DatabaseNamespace,
        auth: DatabaseAuth, budget: DatabaseWriteBudget? = nil
    ) throws(DatabaseFailure) -> [DatabaseNode] {
        if updates.isEmpty { return [] }
        let time = now()
        var resolved: [(path: DatabasePath, node: DatabaseNode)] = []
        try namespace.commit { (data, rules) throws(DatabaseFailure) -> DatabaseWrite in
            if let budget {
                var cost = budget.requestBytes
                for update in updates where cost <= budget.bytes && update.path.keys.last != DatabaseStorageMapping.priorityKey {
                    cost += data.storedBytes(at: base.appending(update.path), upTo: budget.bytes - cost)
                }
                if cost > budget.bytes { throw .writeTooBig }
            }
            resolved = Self.resolve(updates, at: base, data: data, now: time)
            let write = DatabaseWrite.update(base: base, resolved)
            guard rules.mayWrite(write, auth: auth, now: time, data: data) else { throw .permissionDenied }
            return write
        }
        return resolved.map(\.node)
    }

    /// `update` of direct children of `base` whose values are given as their stored bytes
    /// (`DatabaseStoredBytes`: no server values, nothing empty), as a bulk `PATCH` writes them:
    /// no node is built unless rules or listeners read the write.
    func updateChildren(
        _ keys: [String], stored: [[UInt8]], at base: DatabasePath, in namespace: DatabaseNamespace,
        auth: DatabaseAuth, budget: DatabaseWriteBudget? = nil
    ) throws(DatabaseFailure) {
        if keys.isEmpty { return }
        let time = now()
        try namespace.commit { (data, rules) throws(DatabaseFailure) -> DatabaseWrite in
            if let budget {
                var cost = budget.requestBytes
                for key in keys where cost <= budget.bytes {
                    cost += data.storedBytes(at: base.child(key), upTo: budget.bytes - cost)
                }
                if cost > budget.bytes { throw .writeTooBig }
            }
            let write = DatabaseWrite.children(base: base, keys: keys, stored: stored)
            guard rules.mayWrite(write, auth: auth, now: time, data: data) else { throw .permissionDenied }
            return write
        }
    }

    // MARK: onDisconnect

    /// Throws unless the rules would allow `operation` against the data now (as if written now).
    func check(_ operation: DatabaseDeferredWrite, in namespace: DatabaseNamespace) throws(DatabaseFailure) {
        if operation.auth.isAdmin { return }
        let time = now()
        let data = namespace.head
        let write: DatabaseWrite
        switch operation.operation {
        case .set(let json):
            let current = Self.needsCurrent(json, operation.isPriority) ? data.node(at: operation.path) : .empty
            write = Self.setWrite(json, at: operation.path, priority: operation.isPriority, current: current, now: time).write
        case .update(let updates):
            write = .update(base: operation.path, Self.resolve(updates, at: operation.path, data: data, now: time))
        }
        guard namespace.rules.mayWrite(write, auth: operation.auth, now: time, data: data) else {
            throw .permissionDenied
        }
    }

    /// Runs `operation` now (server values resolve now; the rules are checked again).
    func perform(_ operation: DatabaseDeferredWrite, in namespace: DatabaseNamespace) throws(DatabaseFailure) {
        switch operation.operation {
        case .set(let json):
            try set(json, at: operation.path, priority: operation.isPriority, in: namespace, auth: operation.auth)
        case .update(let updates):
            try update(updates, at: operation.path, in: namespace, auth: operation.auth)
        }
    }

    // MARK: Building writes

    /// Whether a set must read the current value: for a condition or a priority, or to resolve
    /// server values (nothing else depends on it).
    private static func needsCurrent(_ json: JSONValue, _ always: Bool) -> Bool {
        always || json.containsServerValue
    }

    /// The write a set makes, and what it wrote (for a priority: the priority as a node).
    private static func setWrite(
        _ json: JSONValue, at path: DatabasePath, priority isPriority: Bool, current: DatabaseNode, now: Int64
    ) -> (write: DatabaseWrite, written: DatabaseNode) {
        if isPriority {
            let priority = DatabaseNode.build(json, existing: DatabaseNode.fromPriority(current.priority), now: now)
            let written = current.isEmpty ? DatabaseNode.empty : DatabaseNode.fromPriority(priority.priorityValue)
            return (.set(path.child(DatabaseStorageMapping.priorityKey), priority), written)
        }
        let node = DatabaseNode.build(json, existing: current, now: now)
        return (.set(path, node), node)
    }

    /// The updates with server values resolved against the data they replace.
    private static func resolve(
        _ updates: [(path: DatabasePath, value: JSONValue)], at base: DatabasePath, data: DatabaseSnapshotSource, now: Int64
    ) -> [(path: DatabasePath, node: DatabaseNode)] {
        updates.map { update in
            let existing = update.value.containsServerValue ? data.node(at: base.appending(update.path)) : .empty
            return (update.path, DatabaseNode.build(update.value, existing: existing, now: now))
        }
    }
}

extension JSONValue {
    /// Whether a `.sv` member appears anywhere inside.
    var containsServerValue: Bool {
        switch self {
        case .object(let members): members.contains { $0.name == ".sv" || $0.value.containsServerValue }
        case .array(let items): items.contains { $0.containsServerValue }
        default: false
        }
    }
}
