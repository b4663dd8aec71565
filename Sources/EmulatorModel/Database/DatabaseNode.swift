package import EmulatorSupport

/// One normalized Realtime Database node: a leaf (bool, number, string) or a set of children
/// ordered by key (`DatabaseOrder.compareKeys`), each possibly with a priority. The emulator's
/// reads, writes and listens and the client's local views all use it.
///
/// Null and the empty object are the same node (`.empty`); a node never holds an empty child,
/// and an empty node carries no priority.
///
/// ```swift
/// var root = DatabaseNode.empty
/// root.set(.leaf(.int(1)), at: DatabasePath(keys: ["a", "b"]))
/// root.child(at: DatabasePath(keys: ["a"]))   // {"b": 1}
/// ```
package struct DatabaseNode: Sendable, Equatable {
    package enum Content: Sendable, Equatable {
        case empty
        case bool(Bool)
        case int(Int64)
        case double(Double)
        case string(String)
        case children(DatabaseChildren)

        /// Strings compare by bytes: canonically equivalent strings are different values.
        package static func == (a: Content, b: Content) -> Bool {
            switch (a, b) {
            case (.empty, .empty): true
            case (.bool(let x), .bool(let y)): x == y
            case (.int(let x), .int(let y)): x == y
            case (.double(let x), .double(let y)): x.bitPattern == y.bitPattern || x == y
            case (.string(let x), .string(let y)): UTF8Order.equal(x, y)
            case (.children(let x), .children(let y)): x == y
            default: false
            }
        }
    }

    package var content: Content
    /// A number or string priority; nil when none.
    package var priority: JSONValue?

    package init(_ content: Content, priority: JSONValue? = nil) {
        self.content = content
        self.priority = content == .empty ? nil : priority
    }

    package static let empty = DatabaseNode(.empty)

    package static func leaf(_ content: Content, priority: JSONValue? = nil) -> DatabaseNode {
        DatabaseNode(content, priority: priority)
    }

    package var isEmpty: Bool { content == .empty }

    package var isLeaf: Bool {
        switch content {
        case .bool, .int, .double, .string: true
        case .empty, .children: false
        }
    }

    /// The children, or an empty list for leaves and null.
    package var children: DatabaseChildren {
        if case .children(let c) = content { return c }
        return DatabaseChildren()
    }

    /// The direct child called `key` (`.priority` gives the priority as a leaf).
    package func child(_ key: String) -> DatabaseNode {
        if UTF8Order.equal(key, ".priority") { return DatabaseNode.fromPriority(priority) }
        guard case .children(let c) = content else { return .empty }
        return c[key] ?? .empty
    }

    /// The node at `path` below this one.
    package func child(at path: DatabasePath) -> DatabaseNode {
        var node = self
        for key in path.keys {
            node = node.child(key)
            if node.isEmpty { return .empty }
        }
        return node
    }

    /// Places `node` at `path`, normalized: empty children vanish, a leaf on the way becomes an
    /// object (keeping its priority), a parent left without children becomes null. `.priority` as
    /// the last key sets the priority of its parent (a no-op on null; anything but a number or
    /// string clears it).
    package mutating func set(_ node: DatabaseNode, at path: DatabasePath) {
        set(node, keys: path.keys[...])
    }

    /// This node with `node` placed at `path` (see ``set(_:at:)``).
    package func setting(_ path: DatabasePath, to node: DatabaseNode) -> DatabaseNode {
        var copy = self
        copy.set(node, keys: path.keys[...])
        return copy
    }

    private mutating func set(_ node: DatabaseNode, keys: ArraySlice<String>) {
        guard let first = keys.first else {
            self = node
            return
        }
        if keys.count == 1 && UTF8Order.equal(first, ".priority") {
            priority = isEmpty ? nil : node.priorityValue
            return
        }
        var kids = children
        content = .empty  // release, so `kids` is changed in place when this node held the only reference
        kids.modify(first) { child in child.set(node, keys: keys.dropFirst()) }
        if kids.isEmpty {
            priority = nil
        } else {
            content = .children(kids)
        }
    }

    /// The leaf value of this node seen as a priority (numbers and strings only).
    package var priorityValue: JSONValue? {
        switch content {
        case .int(let v): .int(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        default: nil
        }
    }

    /// A priority as a leaf (`.empty` for nil or anything but a number or string).
    package static func fromPriority(_ priority: JSONValue?) -> DatabaseNode {
        switch priority {
        case .int(let v)?: .leaf(.int(v))
        case .double(let v)?: .leaf(.double(v))
        case .string(let v)?: .leaf(.string(v))
        default: .empty
        }
    }

    /// The leaf as a plain JSON value; nil for objects and null.
    package var leafValue: JSONValue? {
        switch content {
        case .bool(let v): .bool(v)
        case .int(let v): .int(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .empty, .children: nil
        }
    }

    /// The leaf as a plain JSON value (for ordering); objects give an empty object, null gives nil.
    package var orderingValue: JSONValue? {
        if case .children = content { return .object([]) }
        return leafValue
    }

    /// Total number of nodes (leaves and objects) in this subtree, a cheap size estimate.
    package var approximateByteSize: Int {
        switch content {
        case .empty: 0
        case .bool: 5
        case .int, .double: 8
        case .string(let s): s.utf8.count + 2
        case .children(let c): c.reduce(2) { $0 + $1.key.utf8.count + 4 + $1.node.approximateByteSize }
        }
    }
}
