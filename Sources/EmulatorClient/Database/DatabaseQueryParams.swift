import EmulatorModel
import EmulatorSupport

/// The ordering and window of a Realtime Database query; applied by the server on reads and by
/// this client to streamed data and to snapshot children.
struct DatabaseQueryParams: Sendable, Hashable {
    enum Index: Sendable, Hashable {
        case priority
        case key
        case value
        case child([String])
    }

    struct Bound: Sendable, Hashable {
        var value: JSONValue
        var key: String?
        var inclusive: Bool
    }

    var index: Index = .priority
    var explicitIndex = false
    var start: Bound?
    var end: Bound?
    var limitToFirst: Int?
    var limitToLast: Int?

    var isDefault: Bool { !explicitIndex && start == nil && end == nil && limitToFirst == nil && limitToLast == nil }

    /// REST query parameters (`orderBy` JSON-quoted, bounds as JSON).
    var restQuery: [(String, String)] {
        guard !isDefault else { return [] }
        var q: [(String, String)] = []
        switch index {
        case .priority: q.append(("orderBy", "\"$priority\""))
        case .key: q.append(("orderBy", "\"$key\""))
        case .value: q.append(("orderBy", "\"$value\""))
        case .child(let path): q.append(("orderBy", JSONWriter.encodeToString(.string(path.joined(separator: "/")))))
        }
        func bound(_ b: Bound) -> String {
            var s = JSONWriter.encodeToString(b.value)
            if let k = b.key { s += "," + JSONWriter.encodeToString(.string(k)) }
            return s
        }
        if let s = start { q.append((s.inclusive ? "startAt" : "startAfter", bound(s))) }
        if let e = end { q.append((e.inclusive ? "endAt" : "endBefore", bound(e))) }
        if let n = limitToFirst { q.append(("limitToFirst", String(n))) }
        if let n = limitToLast { q.append(("limitToLast", String(n))) }
        return q
    }

    /// The value a child is ordered by.
    func indexValue(_ child: DatabaseChildren.Element) -> JSONValue? {
        switch index {
        case .priority: return child.node.priority
        case .key: return .string(child.key)
        case .value: return child.node.orderingValue
        case .child(let path): return child.node.child(at: DatabasePath(keys: path)).orderingValue
        }
    }

    private func compareIndex(_ a: JSONValue?, _ b: JSONValue?) -> Int {
        switch index {
        case .priority: return DatabaseOrder.comparePriorities(a, b)
        case .key:
            if case .string(let x)? = a, case .string(let y)? = b { return DatabaseOrder.compareKeys(x, y) }
            return DatabaseOrder.compareValues(a, b)
        default: return DatabaseOrder.compareValues(a, b)
        }
    }

    /// Children in query order.
    func sorted(_ children: DatabaseChildren) -> [DatabaseChildren.Element] {
        children.sorted { a, b in
            let c = compareIndex(indexValue(a), indexValue(b))
            return c != 0 ? c < 0 : DatabaseOrder.compareKeys(a.key, b.key) < 0
        }
    }

    private func compare(_ child: DatabaseChildren.Element, _ bound: Bound) -> Int {
        let c = compareIndex(indexValue(child), bound.value)
        if c != 0 { return c }
        if let k = bound.key { return DatabaseOrder.compareKeys(child.key, k) }
        return 0
    }

    /// The children the query keeps, in query order.
    func window(_ node: DatabaseNode) -> [DatabaseChildren.Element] {
        var list = sorted(node.children)
        if let s = start {
            list = list.filter { let c = compare($0, s); return s.inclusive ? c >= 0 : c > 0 }
        }
        if let e = end {
            list = list.filter { let c = compare($0, e); return e.inclusive ? c <= 0 : c < 0 }
        }
        if let n = limitToFirst, list.count > n { list = Array(list.prefix(n)) }
        if let n = limitToLast, list.count > n { list = Array(list.suffix(n)) }
        return list
    }

    /// The node with only the kept children (the node itself when the query is the default).
    func apply(_ node: DatabaseNode) -> DatabaseNode {
        guard !isDefault, !node.children.isEmpty else { return node }
        var out = DatabaseNode.empty
        for c in window(node) { out.set(c.node, at: DatabasePath(keys: [c.key])) }
        return out
    }
}
