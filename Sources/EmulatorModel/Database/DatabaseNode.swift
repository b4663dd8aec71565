package import EmulatorSupport

/// One node of the Realtime Database tree: empty, a leaf (boolean, number or string) or an object
/// of children, each optionally carrying a priority (a number or string).
///
/// The tree is always normalised: null and empty objects do not exist (an object whose last child
/// is removed becomes empty), empty nodes carry no priority, and children are kept sorted in
/// ``DatabaseOrder/compareKeys(_:_:)`` order, which is also the order they are written out in.
///
/// ```swift
/// var root = DatabaseNode.empty
/// root.set(try DatabaseNode(json: JSONReader.parse(#"{"name":"Ada"}"#)), at: try DatabasePath(parsing: "/users/1"))
/// root.node(at: try DatabasePath(parsing: "/users/1/name")).json()   // "Ada"
/// ```
package struct DatabaseNode: Sendable, Hashable {
    /// One named child.
    package struct Child: Sendable, Hashable {
        package var key: String
        package var node: DatabaseNode

        package static func == (a: Child, b: Child) -> Bool { UTF8Order.equal(a.key, b.key) && a.node == b.node }

        package func hash(into hasher: inout Hasher) {
            Value.hashUTF8(key, into: &hasher)
            hasher.combine(node)
        }
    }

    package enum Content: Sendable, Hashable {
        case empty
        /// `.bool`, `.int`, `.double` or `.string` only.
        case leaf(JSONValue)
        /// Non-empty, sorted by key order, keys unique.
        case children([Child])
    }

    package private(set) var content: Content
    /// `.int`, `.double` or `.string`; nil when absent. Always nil on an empty node.
    package private(set) var priority: JSONValue?

    package static let empty = DatabaseNode(content: .empty, priority: nil)

    /// Maximum UTF-8 bytes of a string leaf (10 MB).
    package static let maxStringBytes = 10 * 1024 * 1024

    init(content: Content, priority: JSONValue?) {
        self.content = content
        if case .empty = content { self.priority = nil } else { self.priority = priority }
    }

    /// A leaf; `.null` gives the empty node.
    package static func leaf(_ value: JSONValue, priority: JSONValue? = nil) -> DatabaseNode {
        switch value {
        case .bool, .int, .double, .string: DatabaseNode(content: .leaf(value), priority: priority)
        default: .empty
        }
    }

    package var isEmpty: Bool {
        if case .empty = content { return true }
        return false
    }

    /// The leaf value, if this is a leaf.
    package var leafValue: JSONValue? {
        if case .leaf(let v) = content { return v }
        return nil
    }

    /// The children in key order (empty for leaves and the empty node).
    package var children: [Child] {
        if case .children(let c) = content { return c }
        return []
    }

    /// Binary search by key order: the index of `key`, or where it would go.
    private static func search(_ children: [Child], _ key: String) -> (found: Bool, index: Int) {
        var low = 0
        var high = children.count
        while low < high {
            let mid = (low + high) >> 1
            let c = DatabaseOrder.compareKeys(children[mid].key, key)
            if c == 0 { return (true, mid) }
            if c < 0 { low = mid + 1 } else { high = mid }
        }
        return (false, low)
    }

    /// The child called `key`; `.priority` gives the priority as a leaf; missing gives `.empty`.
    package func child(_ key: String) -> DatabaseNode {
        if UTF8Order.equal(key, ".priority") { return priority.map { .leaf($0) } ?? .empty }
        guard case .children(let c) = content else { return .empty }
        let r = Self.search(c, key)
        return r.found ? c[r.index].node : .empty
    }

    /// The node at `path` below this one (`.empty` if absent).
    package func node(at path: DatabasePath) -> DatabaseNode {
        var current = self
        for key in path.keys {
            current = current.child(key)
            if current.isEmpty { return .empty }
        }
        return current
    }

    /// Replaces the node at `path` (an empty node deletes). Parents are created as needed (a leaf
    /// on the way becomes an object) and parents left empty disappear. A last key `.priority`
    /// sets the priority of its parent instead (a no-op on an empty parent).
    package mutating func set(_ node: DatabaseNode, at path: DatabasePath) {
        set(node, keys: path.keys[...])
    }

    private mutating func set(_ node: DatabaseNode, keys: ArraySlice<String>) {
        guard let key = keys.first else {
            self = node
            return
        }
        if keys.count == 1 && UTF8Order.equal(key, ".priority") {
            setPriority(node.leafValue)
            return
        }
        var list: [Child]
        if case .children(let c) = content { list = c } else { list = [] }
        content = .empty  // release so `list` is uniquely referenced
        let r = Self.search(list, key)
        var childNode = r.found ? list[r.index].node : .empty
        if r.found { list[r.index].node = .empty }
        childNode.set(node, keys: keys.dropFirst())
        switch (r.found, childNode.isEmpty) {
        case (true, false): list[r.index].node = childNode
        case (true, true): list.remove(at: r.index)
        case (false, false): list.insert(Child(key: key, node: childNode), at: r.index)
        case (false, true): break
        }
        if list.isEmpty {
            content = .empty
            priority = nil
        } else {
            content = .children(list)
        }
    }

    /// Sets this node's priority (`.int`, `.double` or `.string`; anything else clears it).
    /// An empty node cannot carry one.
    package mutating func setPriority(_ value: JSONValue?) {
        guard !isEmpty else { return }
        switch value {
        case .int?, .double?, .string?: priority = value
        default: priority = nil
        }
    }

    /// The number of nodes below and including this one (leaves and objects), for sizing.
    package var nodeCount: Int {
        guard case .children(let c) = content else { return isEmpty ? 0 : 1 }
        var n = 1
        for child in c { n += child.node.nodeCount }
        return n
    }
}
