package import EmulatorModel
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
    package static func path(of key: StorageKey) -> DatabasePath {
        var segments = key.segments
        if let last = segments.last, last == priorityKey || last == rootValueKey { segments.removeLast() }
        return DatabasePath(keys: segments)
    }

    // MARK: Reading

    /// The node one stored entry holds: a leaf (`DatabaseLeafCodec`) or a packed object
    /// (`DatabasePackedCodec`); nil for bytes that are neither.
    static func storedNode(_ bytes: [UInt8]) -> DatabaseNode? {
        if DatabasePackedCodec.isPacked(bytes) { return DatabasePackedCodec.decode(bytes) }
        return DatabaseLeafCodec.decode(bytes).map { DatabaseNode($0) }
    }

    /// The packed object holding `path` strictly inside it, if any: its path and node. Only the
    /// `maxHeight` nearest ancestors can hold one, and the first entry found on the way up
    /// decides (a leaf there means `path` is below a leaf: nothing).
    static func packedContainer(of path: DatabasePath, get: (StorageKey) -> StoredEntry?) -> (path: DatabasePath, node: DatabaseNode)? {
        var keys = path.keys
        var level = 0
        while keys.count > 1 && level < DatabasePackedCodec.maxHeight {
            keys.removeLast()
            level += 1
            guard let entry = get(StorageKey(segments: keys)) else { continue }
            guard DatabasePackedCodec.isPacked(entry.value), let node = DatabasePackedCodec.decode(entry.value) else { return nil }
            return (DatabasePath(keys: keys), node)
        }
        return nil
    }

    /// Rebuilds the node at `path` from its stored entries: one entry at `path` (a leaf, with its
    /// priority entry, or a packed object), the entries below it, or the packed object holding it.
    package static func node(
        at path: DatabasePath, get: (StorageKey) -> StoredEntry?, scan: (StorageKeyRange) -> EntrySequence
    ) -> DatabaseNode {
        if let priorityTarget = path.keys.last, priorityTarget == priorityKey {
            let owner = DatabasePath(keys: Array(path.keys.dropLast()))
            return DatabaseNode.fromPriority(node(at: owner, get: get, scan: scan).priority)
        }
        let key = key(path)
        if let entry = get(leafKey(path)), var stored = storedNode(entry.value) {
            if stored.isLeaf { stored.priority = storedPriority(key, get) }
            return stored
        }
        // The node's own `.priority` entry is below its key, so the trie picks it up.
        let node = gather(below: key, depth: path.count, scan).build()
        if !node.isEmpty { return node }
        guard let container = packedContainer(of: path, get: get), let inner = path.relative(to: container.path) else {
            return .empty
        }
        return container.node.child(at: inner)
    }

    /// The value at `path` in export form (what rules read: plain objects, never arrays; a
    /// priority as a `.priority` member, a prioritized leaf as `{".value": v, ".priority": p}`),
    /// nil when nothing is stored there. Built from the stored entries directly, with no node.
    static func exportValue(
        at path: DatabasePath, get: (StorageKey) -> StoredEntry?, scan: (StorageKeyRange) -> EntrySequence
    ) -> JSONValue? {
        let key = key(path)
        if let entry = get(leafKey(path)), let stored = storedNode(entry.value) {
            if let content = stored.isLeaf ? stored.content : nil {
                return TreeBuilder.exportLeaf(content, priority: storedPriority(key, get))
            }
            return stored.json(export: true)
        }
        if let value = gather(below: key, depth: path.count, scan).buildExport() { return value }
        guard let container = packedContainer(of: path, get: get), let inner = path.relative(to: container.path) else {
            return nil
        }
        let node = container.node.child(at: inner)
        return node.isEmpty ? nil : node.json(export: true)
    }

    /// The priority stored for the node at `key`.
    private static func storedPriority(_ key: StorageKey, _ get: (StorageKey) -> StoredEntry?) -> JSONValue? {
        get(key.appending(priorityKey)).flatMap { DatabaseLeafCodec.decode($0.value) }.flatMap { DatabaseNode($0).priorityValue }
    }

    /// ``exportValue(at:get:scan:)`` built from at most `limit` stored entries (leaves and
    /// priorities, in key order): what the Requests view keeps of the data a rule saw, without
    /// reading a large subtree. `truncated` when entries were left out.
    static func exportValue(
        at path: DatabasePath, limit: Int, get: (StorageKey) -> StoredEntry?, scan: (StorageKeyRange) -> EntrySequence
    ) -> (value: JSONValue?, truncated: Bool) {
        let key = key(path)
        if let entry = get(leafKey(path)), let stored = storedNode(entry.value) {
            if let content = stored.isLeaf ? stored.content : nil {
                return (TreeBuilder.exportLeaf(content, priority: storedPriority(key, get)), false)
            }
            // A packed object: one stored entry, small by construction.
            return (stored.json(export: true), false)
        }
        var truncated = false
        if let value = gather(below: key, depth: path.count, scan, limit: limit, truncated: &truncated).buildExport() {
            return (value, truncated)
        }
        guard let container = packedContainer(of: path, get: get), let inner = path.relative(to: container.path) else {
            return (nil, false)
        }
        let node = container.node.child(at: inner)
        return (node.isEmpty ? nil : node.json(export: true), false)
    }

    /// The entries below `key` (a node `depth` keys deep) gathered into a trie.
    private static func gather(below key: StorageKey, depth: Int, _ scan: (StorageKeyRange) -> EntrySequence) -> TreeBuilder {
        var truncated = false
        return gather(below: key, depth: depth, scan, limit: .max, truncated: &truncated)
    }

    /// The first `limit` entries below `key`; `truncated` is set when more were there.
    private static func gather(
        below key: StorageKey, depth: Int, _ scan: (StorageKeyRange) -> EntrySequence, limit: Int, truncated: inout Bool
    ) -> TreeBuilder {
        let builder = TreeBuilder()
        var taken = 0
        for entry in scan(.descendants(of: key)) {
            let segments = entry.key.segmentBytes
            guard segments.count > depth else { continue }
            if taken == limit {
                truncated = true
                break
            }
            taken += 1
            builder.insert(segments[depth...], entry.value)
        }
        return builder
    }

    /// A mutable trie keyed by segment bytes (never `String ==`), turned into a node once.
    private final class TreeBuilder {
        /// The node a stored entry here holds (a leaf or a packed object).
        var stored: DatabaseNode?
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
            node.stored = storedNode(value)
        }

        func build() -> DatabaseNode {
            if let stored { return DatabaseNode(stored.content, priority: priority ?? stored.priority) }
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
            if let stored {
                if stored.isLeaf { return Self.exportLeaf(stored.content, priority: priority) }
                return DatabaseNode(stored.content, priority: priority ?? stored.priority).json(export: true)
            }
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
    /// objects, store the new entries (small objects packed, see `collect`); drop priorities of
    /// ancestors left empty. A location inside a packed object rewrites that object as a whole.
    ///
    /// With `packs` false nothing new is packed: every leaf gets its own entry, as before packing
    /// existed (tests compare the two layouts).
    package static func apply(_ write: DatabaseWrite, to txn: inout CommitBuilder, _ ns: NamespaceID, packs: Bool = true) {
        if case .children(let base, let keys, let stored) = write {
            applyChildren(base: base, keys: keys, stored: stored, to: &txn, ns, packs: packs)
            return
        }
        // Ancestors known to hold no entry: a write's locations never overlap, so no later
        // location stores one there (an update's siblings share theirs).
        var clearedAncestors: Set<DatabasePath> = []
        // The parent of the last location, once known clear (an update's siblings share it).
        var clearParent: DatabasePath?
        // Each location's key extends the base's (an update's locations share it).
        let base: DatabasePath
        let relatives: [(path: DatabasePath, node: DatabaseNode)]
        switch write {
        case .set(let path, let node): (base, relatives) = (.root, [(path, node)])
        case .update(let updateBase, let changes): (base, relatives) = (updateBase, changes)
        case .children: return  // applied by `applyChildren` above
        }
        let baseKey = key(base)
        for (relative, writtenNode) in relatives {
            let written = base.isRoot ? relative : base.appending(relative)
            var location = written
            var node = writtenNode
            let isPriority = location.keys.last == priorityKey
            let owner = isPriority ? DatabasePath(keys: Array(location.keys.dropLast())) : location
            // The one entry (by the layout's rule, at most one) on the way up: from the owner for a
            // priority, from the parent otherwise; paths in `clearedAncestors` and above hold none.
            var visited: [DatabasePath] = []
            var found: (path: DatabasePath, entry: StoredEntry)?
            var leafAbove: StorageKey?
            let belowClearParent = clearParent.map { location.count == $0.count + 1 && $0.isAncestor(of: location) } ?? false
            var next: DatabasePath? = isPriority ? owner : belowClearParent ? nil : location.parent
            while let path = next, !clearedAncestors.contains(path) {
                if let entry = txn.get(ns, leafKey(path)) {
                    found = (path, entry)
                    break
                }
                visited.append(path)
                next = path.parent
            }
            if let (container, entry) = found, DatabasePackedCodec.isPacked(entry.value),
                let packed = DatabasePackedCodec.decode(entry.value), let inner = written.relative(to: container)
            {
                // A priority of a node that is not there (below a leaf of the object) is nothing.
                if isPriority, let ownerInside = owner.relative(to: container), packed.child(at: ownerInside).isEmpty { continue }
                // Inside a packed object: write the object with the change made in it.
                node = packed.setting(inner, to: node)
                location = container
                var above = container.parent
                while let path = above, clearedAncestors.insert(path).inserted { above = path.parent }
            } else if isPriority {
                let exists = txn.get(ns, leafKey(owner)) != nil
                    || txn.scan(ns, .descendants(of: key(owner))).contains { !isOwnPriority($0.key, owner) }
                let priorityKey = key(owner).appending(priorityKey)
                if exists, let bytes = node.priorityValue.flatMap(priorityBytes) {
                    put(&txn, ns, priorityKey, bytes)
                } else {
                    delete(&txn, ns, priorityKey)
                }
                continue
            } else {
                // A leaf above the location becomes an object (deleted after the new entries are
                // stored); everything up to the root is then clear.
                for path in visited { clearedAncestors.insert(path) }
                if let (leafOwner, _) = found {
                    leafAbove = leafKey(leafOwner)
                    var above: DatabasePath? = leafOwner
                    while let path = above, clearedAncestors.insert(path).inserted { above = path.parent }
                }
                if !belowClearParent { clearParent = location.parent }
            }
            var entries: [(key: StorageKey, bytes: [UInt8])] = []
            let locationKey = location.count == written.count ? relative.keys.reduce(baseKey) { $0.appending($1) } : key(location)
            collect(node, key: locationKey, isRoot: location.isRoot, packs: packs, into: &entries)
            replaceSubtree(at: locationKey, with: entries, &txn, ns)
            if let leafAbove { delete(&txn, ns, leafAbove) }
            if node.isEmpty { dropEmptyPriorities(above: location, &txn, ns) }
        }
    }

    /// Stores `entries` (the new value's) in place of the subtree at `locationKey`.
    ///
    /// A large old subtree is cut out whole (O(log n), one cleared subtree in the change feed); a
    /// small one is overwritten in place: store the new entries, then drop old ones the new value
    /// lacks (an unchanged entry is then no change at all). Large means more leaves than the
    /// engine's cut threshold, counting each leaf of a packed entry, so which writes cut does not
    /// depend on how the leaves are stored.
    private static func replaceSubtree(
        at locationKey: StorageKey, with entries: [(key: StorageKey, bytes: [UInt8])], _ txn: inout CommitBuilder,
        _ ns: NamespaceID
    ) {
        var old: [StorageKey] = []
        var leaves = 0
        // A location with nothing below it (the common case of new data) costs a descent per
        // tree and no scan.
        if txn.mayHoldEntries(ns, inSubtreeOf: locationKey) {
            for entry in txn.scan(ns, .subtree(of: locationKey)) {
                leaves += DatabasePackedCodec.leafCount(entry.value)
                if leaves > txn.subtreeCutThreshold { break }
                old.append(entry.key)
            }
        }
        if leaves > txn.subtreeCutThreshold, txn.cutWholeSubtree(ns, locationKey) != nil {
            old = []
        } else if leaves > txn.subtreeCutThreshold {
            old = txn.scan(ns, .subtree(of: locationKey)).map(\.key)
        }
        for entry in entries { put(&txn, ns, entry.key, entry.bytes) }
        if !old.isEmpty {
            let kept = Set(entries.map(\.key))
            for key in old where !kept.contains(key) { delete(&txn, ns, key) }
        }
    }

    /// `apply` for `.children`: when no entry lies at `base` or above it (no leaf to turn into
    /// an object, no packed object to rewrite), each child's stored bytes replace its subtree
    /// directly, which is what the general way stores for them; otherwise the general way.
    private static func applyChildren(
        base: DatabasePath, keys: [String], stored: [[UInt8]], to txn: inout CommitBuilder, _ ns: NamespaceID, packs: Bool
    ) {
        var above: DatabasePath? = base
        while let path = above {
            if txn.get(ns, leafKey(path)) != nil || !packs {
                apply(DatabaseWrite.children(base: base, keys: keys, stored: stored).expanded, to: &txn, ns, packs: packs)
                return
            }
            above = path.parent
        }
        let baseKey = key(base)
        let count = min(keys.count, stored.count)
        var index = 0
        while index < count {
            // Usually nothing is stored below a new child: the run of such children is stored
            // at once, as one put each would store them.
            index = txn.putNewChildren(ns, of: baseKey, keys, stored, from: index)
            guard index < count else { break }
            let childKey = baseKey.appending(keys[index])
            if txn.mayHoldEntries(ns, inSubtreeOf: childKey) {
                replaceSubtree(at: childKey, with: [(childKey, stored[index])], &txn, ns)
            } else {
                put(&txn, ns, childKey, stored[index])
            }
            index += 1
        }
    }

    /// The database locations a commit's stored changes name, as if every leaf had its own entry:
    /// one per leaf or priority whose value changed, in the order such entries would have changed
    /// (the order of the write's locations when `write` is known). A packed entry stands for its
    /// leaves, so an object rewritten for one changed leaf names that leaf, and the locations do
    /// not depend on how the leaves are stored. Cleared subtrees are not included.
    package static func changedLocations(_ changes: [StorageChange], write: DatabaseWrite?) -> [DatabasePath] {
        let packed = changes.contains { change in
            change.old.map { DatabasePackedCodec.isPacked($0.value) } == true
                || change.new.map { DatabasePackedCodec.isPacked($0.value) } == true
        }
        guard packed else { return changes.map { path(of: $0.key) } }
        // Each leaf as its own entry: its key and bytes before and after.
        var before: [StorageKey: [UInt8]] = [:]
        var after: [StorageKey: [UInt8]] = [:]
        var order: [StorageKey] = []
        var seen: Set<StorageKey> = []
        // Where each new leaf was stored, in storing order.
        var stored: [StorageKey: Int] = [:]
        for change in changes {
            if let new = change.new {
                eachLeafEntry(change.key, new.value) { key, bytes in
                    after[key] = bytes
                    stored[key] = stored.count
                    if seen.insert(key).inserted { order.append(key) }
                }
            }
            if let old = change.old {
                eachLeafEntry(change.key, old.value) { key, bytes in
                    before[key] = bytes
                    if seen.insert(key).inserted { order.append(key) }
                }
            }
        }
        let changed = order.filter { before[$0] != after[$0] }
        guard changed.count > 1 else { return changed.map(path(of:)) }
        // Per location, one entry per leaf stores the new leaves (in `collect` order), then
        // deletes the old ones it lacks (in key order), then a leaf above it made an object; a key
        // outside every location and above none (a priority dropped higher up) follows the key
        // before it.
        let locations = write?.locations ?? [.root]
        var rank: [[UInt8]: Int] = [:]
        var above: [[UInt8]: Int] = [:]
        for (index, location) in locations.enumerated() {
            let bytes = key(location).encoded
            if rank[bytes] == nil { rank[bytes] = index }
            if above[[]] == nil, !bytes.isEmpty { above[[]] = index }
            for end in bytes.indices.dropLast() where bytes[end] == 0 {
                let prefix = Array(bytes[...end])
                if above[prefix] == nil { above[prefix] = index }
            }
        }
        var ranked: [(rank: Int, phase: Int, position: Int, key: StorageKey)] = []
        ranked.reserveCapacity(changed.count)
        var last = 0
        for (position, changedKey) in changed.enumerated() {
            let bytes = changedKey.encoded
            var found: Int? = rank[[]]
            var end = 0
            while found == nil && end < bytes.count {
                if bytes[end] == 0 { found = rank[Array(bytes[...end])] }
                end += 1
            }
            if found == nil, let first = above[key(path(of: changedKey)).encoded] {
                last = first
            } else if let found {
                last = found
            }
            let phase = found == nil ? 2 : after[changedKey] == nil ? 1 : 0
            ranked.append((last, phase, position, changedKey))
        }
        ranked.sort { a, b in
            if a.rank != b.rank { return a.rank < b.rank }
            if a.phase != b.phase { return a.phase < b.phase }
            switch a.phase {
            case 0: return stored[a.key] ?? a.position < stored[b.key] ?? b.position
            case 1: return a.key < b.key
            default: return a.position < b.position
            }
        }
        return ranked.map { path(of: $0.key) }
    }

    /// Calls `body` with each (key, leaf bytes) that `bytes` stored at `key` stands for: itself,
    /// or each leaf of a packed object, in the order `collect` would store them one by one.
    private static func eachLeafEntry(_ key: StorageKey, _ bytes: [UInt8], _ body: (StorageKey, [UInt8]) -> Void) {
        guard DatabasePackedCodec.isPacked(bytes), let node = DatabasePackedCodec.decode(bytes) else {
            body(key, bytes)
            return
        }
        var entries: [(key: StorageKey, bytes: [UInt8])] = []
        collect(node, key: key, isRoot: false, packs: false, into: &entries)
        for entry in entries { body(entry.key, entry.bytes) }
    }

    private static func isOwnPriority(_ key: StorageKey, _ owner: DatabasePath) -> Bool {
        key.depth == owner.count + 1 && key.lastSegment == priorityKey
    }

    /// The engine entries of `node` stored at `key` (the root's when `isRoot`): one packed entry
    /// when the node can be packed (`DatabasePackedCodec`), else its leaves and priorities, with
    /// the largest packable subtrees below it packed. Child keys extend the parent's encoded key,
    /// never re-encoding the path.
    private static func collect(
        _ node: DatabaseNode, key: StorageKey, isRoot: Bool, packs: Bool, into entries: inout [(key: StorageKey, bytes: [UInt8])]
    ) {
        switch node.content {
        case .empty: return
        case .children(let kids):
            if packs, !isRoot, let packed = DatabasePackedCodec.encode(node) {
                entries.append((key, packed))
                return
            }
            for (child, childNode) in kids {
                collect(childNode, key: key.appending(child), isRoot: false, packs: packs, into: &entries)
            }
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
