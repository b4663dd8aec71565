import EmulatorSupport

/// The children of an object node, kept sorted by `DatabaseOrder.compareKeys` (the order every
/// output and the priority index tie-break use). Keys are compared by bytes, never `String ==`.
package struct DatabaseChildren: Sendable, Equatable, RandomAccessCollection {
    package private(set) var keys: [String] = []
    package private(set) var nodes: [DatabaseNode] = []

    package init() {}

    package var startIndex: Int { 0 }
    package var endIndex: Int { keys.count }
    package subscript(position: Int) -> (key: String, node: DatabaseNode) { (keys[position], nodes[position]) }

    /// The index of `key`, or where it would be inserted.
    package func search(_ key: String) -> (index: Int, found: Bool) {
        var low = 0
        var high = keys.count
        // Fast path for appends (push ids arrive in increasing order).
        if let last = keys.last {
            let c = DatabaseOrder.compareKeys(last, key)
            if c < 0 { return (keys.count, false) }
            if c == 0 { return (keys.count - 1, true) }
        }
        while low < high {
            let mid = (low + high) / 2
            let c = DatabaseOrder.compareKeys(keys[mid], key)
            if c == 0 { return (mid, true) }
            if c < 0 { low = mid + 1 } else { high = mid }
        }
        return (low, false)
    }

    package subscript(key: String) -> DatabaseNode? {
        get {
            let (i, found) = search(key)
            return found ? nodes[i] : nil
        }
        set {
            let (i, found) = search(key)
            switch (newValue, found) {
            case (let node?, true): nodes[i] = node
            case (let node?, false):
                keys.insert(key, at: i)
                nodes.insert(node, at: i)
            case (nil, true):
                keys.remove(at: i)
                nodes.remove(at: i)
            case (nil, false): break
            }
        }
    }

    /// Changes the child called `key` (an empty node when absent) in place; a child left empty is
    /// removed.
    package mutating func modify(_ key: String, _ body: (inout DatabaseNode) -> Void) {
        let (i, found) = search(key)
        var node = DatabaseNode.empty
        if found { swap(&node, &nodes[i]) }  // `node` is now the only reference to the child's storage
        body(&node)
        switch (found, node.isEmpty) {
        case (true, false): nodes[i] = node
        case (true, true):
            keys.remove(at: i)
            nodes.remove(at: i)
        case (false, false):
            keys.insert(key, at: i)
            nodes.insert(node, at: i)
        case (false, true): break
        }
    }

    package subscript(key: String, default fallback: DatabaseNode) -> DatabaseNode {
        self[key] ?? fallback
    }

    /// Builds from keys already sorted with no duplicates, and their nodes (none empty).
    package init(sortedKeys: [String], nodes: [DatabaseNode]) {
        keys = sortedKeys
        self.nodes = nodes
    }

    /// Builds from pairs already sorted by key with no duplicates and no empty nodes.
    package init(sorted pairs: [(key: String, node: DatabaseNode)]) {
        keys = pairs.map(\.key)
        nodes = pairs.map(\.node)
    }

    package static func == (a: DatabaseChildren, b: DatabaseChildren) -> Bool {
        a.keys.count == b.keys.count && a.nodes == b.nodes
            && zip(a.keys, b.keys).allSatisfy { UTF8Order.equal($0, $1) }
    }
}
