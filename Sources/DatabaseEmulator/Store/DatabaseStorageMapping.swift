import EmulatorModel
package import EmulatorStorage
import EmulatorSupport

/// How a database tree lives in the shared storage engine: namespace `database/<ns>`, one entry
/// per leaf keyed by its path segments, a priority at `<node path>/.priority`, a root leaf at
/// `/.value` (the engine keeps no value at the root key). `.priority` and `.value` are keys no user
/// can write, since `.` is invalid in keys.
package enum DatabaseStorageMapping {
    static let priorityKey = ".priority"
    static let rootValueKey = ".value"

    static func namespaceID(_ name: String) -> NamespaceID { NamespaceID("database/" + name) }

    /// Whether `namespace` holds Realtime Database data. The RTDB never reads at an earlier time,
    /// so a suite's engine keeps no history for these (`StorageEngine(keepsHistory:)`).
    package static func isDatabaseNamespace(_ namespace: NamespaceID) -> Bool {
        namespace.name.utf8.starts(with: "database/".utf8)
    }

    static func key(_ path: DatabasePath) -> StorageKey { StorageKey(segments: path.keys) }

    /// The key holding the leaf value at `path`.
    static func leafKey(_ path: DatabasePath) -> StorageKey {
        path.isRoot ? StorageKey(segments: [rootValueKey]) : key(path)
    }

    /// The database path an engine key belongs to (priority and root-value keys map to their node).
    static func path(of key: StorageKey) -> DatabasePath {
        var segments = key.segments
        if let last = segments.last, last == priorityKey || last == rootValueKey { segments.removeLast() }
        return DatabasePath(keys: segments)
    }

    // MARK: Reading

    /// Rebuilds the node at `path` from leaf entries.
    static func node(
        at path: DatabasePath, get: (StorageKey) -> StoredEntry?, scan: (StorageKeyRange) -> EntrySequence
    ) -> DatabaseNode {
        if let priorityTarget = path.keys.last, priorityTarget == priorityKey {
            let owner = DatabasePath(keys: Array(path.keys.dropLast()))
            return DatabaseNode.fromPriority(node(at: owner, get: get, scan: scan).priority)
        }
        let key = key(path)
        let priority = storedPriority(key, get)
        if let entry = get(leafKey(path)), let content = DatabaseLeafCodec.decode(entry.value) {
            return DatabaseNode(content, priority: priority)
        }
        var node = gather(below: key, depth: path.count, scan).build()
        if !node.isEmpty && node.priority == nil { node.priority = priority }
        return node
    }

    /// The value at `path` in export form (what rules read: plain objects, never arrays; a
    /// priority as a `.priority` member, a prioritized leaf as `{".value": v, ".priority": p}`),
    /// nil when nothing is stored there. Built from the leaf entries directly, with no node.
    static func exportValue(
        at path: DatabasePath, get: (StorageKey) -> StoredEntry?, scan: (StorageKeyRange) -> EntrySequence
    ) -> JSONValue? {
        let key = key(path)
        let priority = storedPriority(key, get)
        if let entry = get(leafKey(path)), let content = DatabaseLeafCodec.decode(entry.value) {
            return TreeBuilder.exportLeaf(content, priority: priority)
        }
        let builder = gather(below: key, depth: path.count, scan)
        builder.priority = priority
        return builder.buildExport()
    }

    /// The priority stored for the node at `key`.
    private static func storedPriority(_ key: StorageKey, _ get: (StorageKey) -> StoredEntry?) -> JSONValue? {
        get(key.appending(priorityKey)).flatMap { DatabaseLeafCodec.decode($0.value) }.flatMap { DatabaseNode($0).priorityValue }
    }

    /// The entries below `key` (a node `depth` keys deep) gathered into a trie.
    private static func gather(below key: StorageKey, depth: Int, _ scan: (StorageKeyRange) -> EntrySequence) -> TreeBuilder {
        let builder = TreeBuilder()
        for entry in scan(.descendants(of: key)) {
            let segments = entry.key.segmentBytes
            guard segments.count > depth else { continue }
            builder.insert(segments[depth...], entry.value)
        }
        return builder
    }

    /// A mutable trie keyed by segment bytes (never `String ==`), turned into a node once.
    private final class TreeBuilder {
        var leaf: DatabaseNode.Content?
        var priority: JSONValue?
        var children: [[UInt8]: TreeBuilder] = [:]

        func insert(_ segments: ArraySlice<[UInt8]>, _ value: [UInt8]) {
            var node = self
            var rest = segments
            while let first = rest.first {
                rest = rest.dropFirst()
                if rest.isEmpty && first.elementsEqual(priorityKey.utf8) {
                    node.priority = DatabaseLeafCodec.decode(value).flatMap { DatabaseNode($0).priorityValue }
                    return
                }
                if let child = node.children[first] {
                    node = child
                } else {
                    let child = TreeBuilder()
                    node.children[first] = child
                    node = child
                }
            }
            node.leaf = DatabaseLeafCodec.decode(value)
        }

        func build() -> DatabaseNode {
            if let leaf { return DatabaseNode(leaf, priority: priority) }
            var pairs: [(key: String, node: DatabaseNode)] = []
            pairs.reserveCapacity(children.count)
            for (segment, child) in children {
                if segment.elementsEqual(rootValueKey.utf8) { continue }
                let node = child.build()
                if !node.isEmpty { pairs.append((String(decoding: segment, as: UTF8.self), node)) }
            }
            if pairs.isEmpty { return .empty }
            pairs.sort { DatabaseOrder.compareKeys($0.key, $1.key) < 0 }
            return DatabaseNode(.children(DatabaseChildren(sorted: pairs)), priority: priority)
        }

        static func exportLeaf(_ content: DatabaseNode.Content, priority: JSONValue?) -> JSONValue {
            let value: JSONValue
            switch content {
            case .bool(let v): value = .bool(v)
            case .int(let v): value = .int(v)
            case .double(let v): value = .double(v)
            case .string(let v): value = .string(v)
            case .empty, .children: return .null
            }
            guard let priority else { return value }
            return .object([JSONMember(".value", value), JSONMember(".priority", priority)])
        }

        /// The export-form value (see `exportValue`); nil when nothing is below.
        func buildExport() -> JSONValue? {
            if let leaf { return Self.exportLeaf(leaf, priority: priority) }
            var pairs: [(key: String, value: JSONValue)] = []
            pairs.reserveCapacity(children.count)
            for (segment, child) in children {
                if segment.elementsEqual(rootValueKey.utf8) { continue }
                if let value = child.buildExport() { pairs.append((String(decoding: segment, as: UTF8.self), value)) }
            }
            if pairs.isEmpty { return nil }
            pairs.sort { DatabaseOrder.compareKeys($0.key, $1.key) < 0 }
            var members = pairs.map { JSONMember($0.key, $0.value) }
            if let priority { members.append(JSONMember(".priority", priority)) }
            return .object(members)
        }
    }

    // MARK: Writing

    /// Applies `write` inside a commit: per location, drop the old subtree, turn leaf ancestors into
    /// objects, store the new leaves; drop priorities of ancestors left empty.
    static func apply(_ write: DatabaseWrite, to txn: inout CommitBuilder, _ ns: NamespaceID) {
        // Ancestors whose leaf is already known gone: a write's locations never overlap, so no
        // later location stores a leaf at one (an update's siblings share theirs).
        var clearedAncestors: Set<DatabasePath> = []
        for (location, node) in write.changes {
            if location.keys.last == priorityKey {
                let owner = DatabasePath(keys: Array(location.keys.dropLast()))
                let exists = txn.get(ns, leafKey(owner)) != nil
                    || txn.scan(ns, .descendants(of: key(owner))).contains { !isOwnPriority($0.key, owner) }
                let priorityKey = key(owner).appending(priorityKey)
                if exists, let bytes = node.priorityValue.flatMap(priorityBytes) {
                    put(&txn, ns, priorityKey, bytes)
                } else {
                    delete(&txn, ns, priorityKey)
                }
                continue
            }
            // A large old subtree is cut out whole (O(log n), one cleared subtree in the change
            // feed); a small one is overwritten in place: store the new leaves, then drop old
            // entries the new value lacks (an unchanged leaf is then no change at all).
            var entries: [(key: StorageKey, bytes: [UInt8])] = []
            let locationKey = key(location)
            collect(node, key: locationKey, isRoot: location.isRoot, into: &entries)
            // A location with nothing below it (the common case of new data) costs one seek.
            var stored = txn.scan(ns, .subtree(of: locationKey)).makeIterator()
            let old: [StorageKey]
            if stored.next() == nil || txn.cutSubtree(ns, locationKey) != nil {
                old = []
            } else {
                old = txn.scan(ns, .subtree(of: locationKey)).map(\.key)
            }
            for entry in entries { put(&txn, ns, entry.key, entry.bytes) }
            if !old.isEmpty {
                let kept = Set(entries.map(\.key))
                for key in old where !kept.contains(key) { delete(&txn, ns, key) }
            }
            var ancestor = location
            while let parent = ancestor.parent, clearedAncestors.insert(parent).inserted {
                ancestor = parent
                let leaf = leafKey(ancestor)
                if txn.get(ns, leaf) != nil { delete(&txn, ns, leaf) }
            }
            if node.isEmpty { dropEmptyPriorities(above: location, &txn, ns) }
        }
    }

    private static func isOwnPriority(_ key: StorageKey, _ owner: DatabasePath) -> Bool {
        key.depth == owner.count + 1 && key.lastSegment == priorityKey
    }

    /// The engine entries of `node` stored at `key` (the root's when `isRoot`): its leaves and
    /// priorities. Child keys extend the parent's encoded key, never re-encoding the path.
    private static func collect(
        _ node: DatabaseNode, key: StorageKey, isRoot: Bool, into entries: inout [(key: StorageKey, bytes: [UInt8])]
    ) {
        switch node.content {
        case .empty: return
        case .children(let kids):
            for (child, childNode) in kids { collect(childNode, key: key.appending(child), isRoot: false, into: &entries) }
        default:
            if let bytes = DatabaseLeafCodec.encode(node.content) {
                entries.append((isRoot ? key.appending(rootValueKey) : key, bytes))
            }
        }
        if let bytes = node.priority.flatMap(priorityBytes) { entries.append((key.appending(priorityKey), bytes)) }
    }

    private static func priorityBytes(_ priority: JSONValue) -> [UInt8]? {
        switch priority {
        case .int(let v): DatabaseLeafCodec.encode(.int(v))
        case .double(let v): DatabaseLeafCodec.encode(.double(v))
        case .string(let v): DatabaseLeafCodec.encode(.string(v))
        default: nil
        }
    }

    /// A node whose last child went away loses its priority (null carries none).
    private static func dropEmptyPriorities(above location: DatabasePath, _ txn: inout CommitBuilder, _ ns: NamespaceID) {
        var current = location
        while true {
            let key = key(current)
            let priority = key.appending(priorityKey)
            if txn.get(ns, priority) != nil {
                var other = false
                for child in txn.children(ns, of: key) where child.key.lastSegment != priorityKey {
                    other = true
                    break
                }
                if !other && txn.get(ns, leafKey(current)) == nil { delete(&txn, ns, priority) }
            }
            guard let parent = current.parent else { return }
            current = parent
        }
    }

    // Keys here are never the root and no limits are configured for database namespaces, so the
    // engine's only failure modes cannot occur.
    private static func put(_ txn: inout CommitBuilder, _ ns: NamespaceID, _ key: StorageKey, _ bytes: [UInt8]) {
        _ = try? txn.put(ns, key, bytes)
    }

    private static func delete(_ txn: inout CommitBuilder, _ ns: NamespaceID, _ key: StorageKey) {
        _ = try? txn.delete(ns, key)
    }
}
