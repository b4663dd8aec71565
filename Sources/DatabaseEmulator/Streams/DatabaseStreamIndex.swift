import EmulatorModel

/// The stream groups of a namespace, indexed by location (a tree of path segments), so a commit
/// visits only the groups whose location is at, above or below a changed location.
/// Keys are compared by their UTF-8 bytes, never by `String` equality. Only touched under the
/// namespace lock.
///
/// ```swift
/// var index = DatabaseStreamIndex()
/// index.insert(group)                                    // group.path == /a/b
/// index.groups(touching: [DatabasePath(keys: ["a"])])    // [group]
/// index.groups(touching: [DatabasePath(keys: ["c"])])    // []
/// ```
struct DatabaseStreamIndex {
    private final class Node {
        var children: [[UInt8]: Node] = [:]
        var groups: [DatabaseStreamGroup] = []
    }

    private let root = Node()
    private(set) var count = 0

    /// The group at `path` for `query` and `auth`, if one exists.
    func group(at path: DatabasePath, query: DatabaseQueryParams, auth: DatabaseAuth) -> DatabaseStreamGroup? {
        node(at: path, create: false)?.groups.first { $0.query == query && $0.auth == auth }
    }

    mutating func insert(_ group: DatabaseStreamGroup) {
        node(at: group.path, create: true)?.groups.append(group)
        count += 1
    }

    /// Every group, in no particular order.
    var all: [DatabaseStreamGroup] {
        var result: [DatabaseStreamGroup] = []
        result.reserveCapacity(count)
        Self.collect(root, into: &result)
        return result
    }

    /// The groups whose location is one of `locations`, above one or below one; each once.
    func groups(touching locations: [DatabasePath]) -> [DatabaseStreamGroup] {
        if count == 0 { return [] }
        var result: [DatabaseStreamGroup] = []
        var seen = Set<ObjectIdentifier>()
        let single = locations.count == 1
        for location in locations {
            var node = root
            var reached = true
            for key in location.keys {
                append(node.groups, to: &result, seen: &seen, dedupe: !single)
                guard let next = node.children[Array(key.utf8)] else {
                    reached = false
                    break
                }
                node = next
            }
            if reached {
                // The location's own node and everything below it.
                var below: [DatabaseStreamGroup] = []
                Self.collect(node, into: &below)
                append(below, to: &result, seen: &seen, dedupe: !single)
            }
        }
        return result
    }

    /// Drops groups without members (and branches left empty).
    mutating func prune() {
        count = Self.prune(root)
    }

    private func append(
        _ groups: [DatabaseStreamGroup], to result: inout [DatabaseStreamGroup], seen: inout Set<ObjectIdentifier>,
        dedupe: Bool
    ) {
        if !dedupe {
            result.append(contentsOf: groups)
            return
        }
        for group in groups where seen.insert(ObjectIdentifier(group)).inserted { result.append(group) }
    }

    private func node(at path: DatabasePath, create: Bool) -> Node? {
        var node = root
        for key in path.keys {
            let bytes = Array(key.utf8)
            if let next = node.children[bytes] {
                node = next
            } else if create {
                let next = Node()
                node.children[bytes] = next
                node = next
            } else {
                return nil
            }
        }
        return node
    }

    private static func collect(_ node: Node, into result: inout [DatabaseStreamGroup]) {
        result.append(contentsOf: node.groups)
        for child in node.children.values { collect(child, into: &result) }
    }

    /// Removes empty groups below `node`; returns how many groups remain there.
    private static func prune(_ node: Node) -> Int {
        node.groups.removeAll { $0.members.isEmpty }
        var remaining = node.groups.count
        for (key, child) in node.children {
            let kept = prune(child)
            if kept == 0 { node.children[key] = nil }
            remaining += kept
        }
        return remaining
    }
}
