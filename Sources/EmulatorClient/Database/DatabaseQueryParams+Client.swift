import EmulatorModel
import EmulatorSupport

/// What the client does with a query's parameters (``DatabaseQueryParams``, shared with the
/// emulator): the REST parameters it sends, the children a snapshot lists in query order, and
/// the view it computes locally from cached data.
extension DatabaseQueryParams {
    /// Neither an ordering nor a range or limit: the whole location.
    var isDefault: Bool { !ordered && !filters }

    /// The query the server listens to: the default one when this query only orders (the server
    /// treats such a listen as the whole location and tags nothing), else this one.
    var listenParams: DatabaseQueryParams { filters ? self : .all }

    /// REST query parameters (`orderBy` JSON-quoted, bounds as JSON).
    var restQuery: [(String, String)] {
        guard !isDefault else { return [] }
        var q: [(String, String)] = []
        switch index {
        case .priority: q.append(("orderBy", "\"$priority\""))
        case .key: q.append(("orderBy", "\"$key\""))
        case .value: q.append(("orderBy", "\"$value\""))
        case .child(let path): q.append(("orderBy", JSONWriter.encodeToString(.string(path.keys.joined(separator: "/")))))
        }
        func bound(_ b: Bound) -> String {
            var s = JSONWriter.encodeToString(b.value)
            if let k = b.key { s += "," + JSONWriter.encodeToString(.string(k)) }
            return s
        }
        if let s = start { q.append((s.inclusive ? "startAt" : "startAfter", bound(s))) }
        if let e = end { q.append((e.inclusive ? "endAt" : "endBefore", bound(e))) }
        switch limit {
        case .first(let n)?: q.append(("limitToFirst", String(n)))
        case .last(let n)?: q.append(("limitToLast", String(n)))
        case nil: break
        }
        return q
    }

    /// Children in query order (index value, then key).
    func sorted(_ children: DatabaseChildren) -> [DatabaseChildren.Element] {
        if index == .key { return Array(children) }  // children are kept in key order
        return children.sorted { compare($0.key, $0.node, $1.key, $1.node) < 0 }
    }

    /// The node with only the children the query keeps (the node itself for the default query).
    func apply(_ node: DatabaseNode) -> DatabaseNode {
        isDefault ? node : apply(to: node)
    }
}
