import EmulatorModel
import EmulatorSupport
import Foundation

/// What one server listen watches: a location and a query (the default query: the whole value).
struct DatabaseListenKey: Hashable, Sendable {
    let path: [String]
    let params: DatabaseQueryParams
}

/// A write this client made that the server has not acknowledged yet: shown to observers at once
/// (latency compensation) and taken back out when the server answers.
struct DatabaseLocalWrite: Sendable {
    let id: Int
    /// The locations written with their JSON (a set is one entry, a merge one per key), in the
    /// order they apply. Values may hold server values (`{".sv": …}`), resolved locally.
    let sets: [(path: [String], value: JSONValue)]
}

/// The client's view of the data: what each listen's server data is, the unacknowledged local
/// writes laid over it, and the events an observer gets when its view changes. A pure value:
/// ``DatabaseConnection`` keeps it under its lock and feeds it pushes, replies and local writes.
enum DatabaseSyncTree {
    /// Whether one path is the other or contains it.
    static func related(_ a: [String], _ b: [String]) -> Bool { isPrefix(a, of: b) || isPrefix(b, of: a) }

    static func isPrefix(_ a: [String], of b: [String]) -> Bool {
        a.count <= b.count && zip(a, b).allSatisfy { $0 == $1 }
    }

    /// Applies writes at absolute locations to `node`, which holds the data at `base`. A write
    /// inside `base` replaces that part; a write at or above `base` replaces the whole node with
    /// its part at `base`. `resolve` turns server values into data (nil: take the JSON as it is).
    static func apply(
        _ sets: [(path: [String], value: JSONValue)], to node: inout DatabaseNode, base: [String], now: Int64?
    ) {
        for (path, value) in sets {
            if isPrefix(base, of: path) {
                let relative = DatabasePath(keys: Array(path.dropFirst(base.count)))
                let existing = node.child(at: relative)
                node.set(build(value, existing: existing, now: now), at: relative)
            } else if isPrefix(path, of: base) {
                let relative = DatabasePath(keys: Array(base.dropFirst(path.count)))
                node = build(value, existing: .empty, now: now).child(at: relative)
            }
        }
    }

    /// The node for written JSON; `{".sv": "timestamp"}` becomes `now` and `{".sv": {"increment": n}}`
    /// the number at that place plus `n`, as the server will (when `now` is nil the JSON is
    /// server data, which holds no server values).
    static func build(_ value: JSONValue, existing: DatabaseNode, now: Int64?) -> DatabaseNode {
        guard let now else { return (try? DatabaseNode(json: value)) ?? .empty }
        func resolver(_ sv: JSONValue, _ at: DatabasePath) throws(EmulatorError) -> JSONValue {
            resolve(sv, current: existing.child(at: at).leafValue, now: now)
        }
        return (try? DatabaseNode(json: value, serverValue: resolver)) ?? .empty
    }

    static func resolve(_ sv: JSONValue, current: JSONValue?, now: Int64) -> JSONValue {
        switch sv[member: ".sv"] {
        case .string("timestamp")?: return .int(now)
        case let spec?:
            guard let delta = spec[member: "increment"] else { return .null }
            switch (current, delta) {
            case (.int(let a)?, .int(let b)):
                let (sum, overflow) = a.addingReportingOverflow(b)
                return overflow ? .double(Double(a) + Double(b)) : .int(sum)
            case (.int(let a)?, .double(let b)): return .double(Double(a) + b)
            case (.double(let a)?, .int(let b)): return .double(a + Double(b))
            case (.double(let a)?, .double(let b)): return .double(a + b)
            default: return delta
            }
        case nil: return .null
        }
    }

    /// Whether a local write replaces the whole location (so its value is known without the server).
    static func covers(_ writes: [DatabaseLocalWrite], _ path: [String]) -> Bool {
        writes.contains { w in w.sets.contains { isPrefix($0.path, of: path) } }
    }

    /// The server's data at `base` with the local writes laid over it.
    static func overlay(_ server: DatabaseNode, base: [String], writes: [DatabaseLocalWrite]) -> DatabaseNode {
        guard writes.contains(where: { w in w.sets.contains { related($0.path, base) } }) else { return server }
        var node = server
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for w in writes { apply(w.sets, to: &node, base: base, now: now) }
        return node
    }

    /// The events between two views of a query: child removals, additions, changes, then the
    /// value. Child events carry the key of the previous sibling in query order (nil for the first).
    static func events(
        old: DatabaseNode?, new: DatabaseNode, ref: DatabaseReference, params: DatabaseQueryParams
    ) -> [(DataEventType, DataSnapshot, String?)] {
        var events: [(DataEventType, DataSnapshot, String?)] = []
        let before = old?.children ?? DatabaseChildren()
        var beforeByKey: [String: DatabaseNode] = [:]
        for c in before { beforeByKey[c.key] = c.node }
        let after = params.sorted(new.children)
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
            events.append((.value, DataSnapshot(ref: ref, node: new, params: params), nil))
        }
        return events
    }
}
