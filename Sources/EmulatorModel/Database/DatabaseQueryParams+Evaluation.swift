package import EmulatorSupport

extension DatabaseQueryParams {
    /// The view of `node` this query selects: matching children (in key order), limited; with
    /// `shallow`, each remaining child becomes `true`.
    package func apply(to node: DatabaseNode) -> DatabaseNode {
        var result = node
        if filters {
            guard case .children(let kids) = node.content else { return .empty }
            var selected: [Int] = []
            selected.reserveCapacity(kids.count)
            for i in kids.indices where matches(key: kids.keys[i], node: kids.nodes[i]) { selected.append(i) }
            if let limit {
                let needsSort = index != .key  // children are already in key order
                if needsSort {
                    selected.sort { compare(kids.keys[$0], kids.nodes[$0], kids.keys[$1], kids.nodes[$1]) < 0 }
                }
                switch limit {
                case .first(let n): if selected.count > n { selected.removeSubrange(n...) }
                case .last(let n): if selected.count > n { selected.removeSubrange(..<(selected.count - n)) }
                }
                if needsSort { selected.sort() }
            }
            if selected.isEmpty { return .empty }
            result = DatabaseNode(
                .children(DatabaseChildren(sorted: selected.map { (kids.keys[$0], kids.nodes[$0]) })),
                priority: node.priority)
        }
        if shallow, case .children(let kids) = result.content {
            return DatabaseNode(.children(DatabaseChildren(sorted: kids.map { ($0.key, DatabaseNode.leaf(.bool(true))) })))
        }
        return result
    }

    /// The value a child is ordered by under this index.
    package func indexValue(key: String, node: DatabaseNode) -> JSONValue? {
        switch index {
        case .priority: node.priority
        case .key: .string(key)
        case .value: node.orderingValue
        case .child(let path): node.child(at: path).orderingValue
        }
    }

    private func compareIndexValues(_ a: JSONValue?, _ b: JSONValue?) -> Int {
        switch index {
        case .priority: DatabaseOrder.comparePriorities(a, b)
        case .key:
            if case .string(let x)? = a, case .string(let y)? = b { DatabaseOrder.compareKeys(x, y) } else { 0 }
        case .value, .child: DatabaseOrder.compareValues(a, b)
        }
    }

    /// Index order with the key tie-break.
    package func compare(_ aKey: String, _ aNode: DatabaseNode, _ bKey: String, _ bNode: DatabaseNode) -> Int {
        if index == .key { return DatabaseOrder.compareKeys(aKey, bKey) }
        let c = compareIndexValues(indexValue(key: aKey, node: aNode), indexValue(key: bKey, node: bNode))
        return c != 0 ? c : DatabaseOrder.compareKeys(aKey, bKey)
    }

    /// Whether the child (key, node) lies between the start and end posts.
    package func matches(key: String, node: DatabaseNode) -> Bool {
        let value = indexValue(key: key, node: node)
        if let start {
            let c = comparePost(value, key, start, defaultKey: start.inclusive ? DatabaseOrder.minKey : DatabaseOrder.maxKey)
            if start.inclusive ? c < 0 : c <= 0 { return false }
        }
        if let end {
            let c = comparePost(value, key, end, defaultKey: end.inclusive ? DatabaseOrder.maxKey : DatabaseOrder.minKey)
            if end.inclusive ? c > 0 : c >= 0 { return false }
        }
        return true
    }

    /// Compares the child's (value, key) with a post (bound value, bound key or default).
    private func comparePost(_ value: JSONValue?, _ key: String, _ bound: Bound, defaultKey: String) -> Int {
        if index == .key {
            guard case .string(let b) = bound.value else { return 0 }
            return DatabaseOrder.compareKeys(key, b)
        }
        let c = compareIndexValues(value, bound.value)
        return c != 0 ? c : DatabaseOrder.compareKeys(key, bound.key ?? defaultKey)
    }
}
