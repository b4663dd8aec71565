/// A persistent (copy-on-write) B+tree of versioned entries ordered by encoded key.
///
/// Copying the struct is O(1); mutating a copy path-copies only the nodes it touches, so any
/// number of readers can keep an old root while a commit builds the next one.
struct VersionedTree: Sendable {
    var root: TreeNode
    /// Nodes `update` has copied so far (a statistic: how scattered a run of writes is).
    var copiedNodes = 0

    init() { root = TreeNode.leaf() }

    init(root: TreeNode) { self.root = root }

    /// The entry stored under `key`, including tombstones.
    func entry(_ key: [UInt8]) -> VersionedEntry? {
        let node = leaf(for: key)
        let (index, found) = node.entryIndex(for: key)
        return found ? node.entry(at: index, key: key) : nil
    }

    /// The leaf that holds or would hold `key`.
    @inline(__always)
    func leaf(for key: [UInt8]) -> TreeNode {
        key.withUnsafeBufferPointer { VersionedTree.leaf(for: $0, below: Unmanaged.passUnretained(root)) }.takeUnretainedValue()
    }

    /// The leaf under `root` that holds or would hold `key`, not retained: the caller holds `root`
    /// for as long as it uses the leaf.
    @inline(__always)
    static func leaf(for key: UnsafeBufferPointer<UInt8>, below root: Unmanaged<TreeNode>) -> Unmanaged<TreeNode> {
        // The caller holds the root for the whole descent and nodes below a held root are never
        // mutated or freed (commits copy them), so the descent need not retain each node.
        var node = root
        while let child = node._withUnsafeGuaranteedRef({ node in
            // (An internal node without children, which no tree keeps, ends the descent too.)
            node.isLeaf ? nil : node.children.withUnsafeBufferPointer { children in
                children.isEmpty ? nil : Unmanaged.passUnretained(children[node.childIndex(for: key)])
            }
        }) {
            TreeNode.prefetch(child)
            node = child
        }
        return node
    }

    /// Runs `body` on the entry for `key` (an absent placeholder if none) and stores the result:
    /// an entry that ends up neither live nor carrying history is removed.
    /// Leaves copied on the way drop versions older than `horizon`.
    mutating func update<R>(_ key: [UInt8], horizon: CommitTime, _ body: (inout VersionedEntry) -> R) -> R {
        update(key, horizon: horizon, reading: true, body)
    }

    /// Stores `entry` under its key in place of whatever entry the tree holds there (the key's
    /// old entry is not read out of its leaf first, as `update` would).
    mutating func store(_ entry: VersionedEntry, horizon: CommitTime) {
        update(entry.key, horizon: horizon, reading: false) { $0 = entry }
    }

    /// `update`; with `reading` false the body is handed an absent placeholder even where the
    /// tree holds the key (for a body that only assigns).
    private mutating func update<R>(
        _ key: [UInt8], horizon: CommitTime, reading: Bool, _ body: (inout VersionedEntry) -> R
    ) -> R {
        if !isKnownUniquelyReferenced(&root) {
            root = root.copy(horizon: horizon)
            copiedNodes += 1
        }
        var result: R?
        if let split = VersionedTree.update(root, key, horizon, reading, &result, &copiedNodes, body) {
            root = TreeNode.node(children: [root, split.right], separators: [split.separator])
        }
        normalizeRoot()
        // `body` runs exactly once on every path above.
        return result.unsafelyUnwrapped
    }

    /// Replaces a root left with one child (or none) by that child (or an empty leaf).
    mutating func normalizeRoot() {
        while !root.isLeaf && root.children.count <= 1 {
            root = root.children.first ?? TreeNode.leaf()
        }
    }

    /// `node` is uniquely owned by this tree.
    private static func update<R>(
        _ node: TreeNode, _ key: [UInt8], _ horizon: CommitTime, _ reading: Bool, _ result: inout R?, _ copies: inout Int,
        _ body: (inout VersionedEntry) -> R
    ) -> (separator: [UInt8], right: TreeNode)? {
        if node.isLeaf {
            let (index, found) = node.entryIndex(for: key)
            if found {
                var entry = reading ? node.entry(at: index) : VersionedEntry(absent: key)
                result = body(&entry)
                if entry.isRetained { node.replace(at: index, with: entry) } else { node.remove(at: index) }
                return nil
            }
            var entry = VersionedEntry(absent: key)
            result = body(&entry)
            guard entry.isRetained else { return nil }
            node.insert(entry, at: index)
            guard node.count > TreeNode.maxLeafEntries else { return nil }
            // Appends at the end (push ids, sequential keys) leave the left leaf nearly full.
            let mid = index == node.count - 1 ? node.count - 4 : node.count / 2
            let right = node.splitLeaf(at: mid)
            return (right.key(at: 0), right)
        }
        let index = node.childIndex(for: key)
        if !isKnownUniquelyReferenced(&node.children[index]) {
            node.children[index] = node.children[index].copy(horizon: horizon)
            copies += 1
        }
        let child = node.children[index]
        if let split = update(child, key, horizon, reading, &result, &copies, body) {
            node.insertSeparator(split.separator, at: index)
            node.children.insert(split.right, at: index + 1)
        } else if child.isEmpty {
            node.removeChild(at: index)
        }
        return node.children.count > TreeNode.maxChildren ? node.splitInternal() : nil
    }

    /// Removes every entry in `range` (tombstones and history included); returns the live ones.
    /// With `collect` false only the live count is returned (`entries` stays empty); with
    /// `counting` false as well, whole detached subtrees are not even counted.
    mutating func removeAll(in range: StorageKeyRange, collect: Bool, counting: Bool = true) -> RemovedEntries {
        var removed = RemovedEntries(collect: collect)
        removed.counting = counting || collect
        guard !range.isEmpty else { return removed }
        if !isKnownUniquelyReferenced(&root) { root = root.copy(horizon: 0) }
        VersionedTree.remove(root, range, &removed)
        normalizeRoot()
        return removed
    }

    /// Cuts `range` out of the subtree at `node` (uniquely owned). Children lying wholly inside
    /// the range are dropped as whole subtrees; only the (at most two) children the range
    /// boundaries cut through are descended, so the work is O(depth × fan-out) plus what
    /// `removed` has to count or collect.
    private static func remove(_ node: TreeNode, _ range: StorageKeyRange, _ removed: inout RemovedEntries) {
        if node.isLeaf {
            let start = node.entryIndex(for: range.lower).index
            var end = node.count
            if let upper = range.upper { end = max(start, node.entryIndex(for: upper).index) }
            guard start < end else { return }
            for index in start..<end where node.slots[index].valueKind != LeafSlot.tombstone { removed.add(node, index) }
            node.removeSlots(start..<end)
            return
        }
        // Children first...last may hold keys in range; those strictly between lie wholly inside
        // it (their bounds are separators that are themselves inside the range).
        let first = node.childIndex(for: range.lower)
        var last = node.children.count - 1
        if let upper = range.upper {
            // The last child holding a key < upper.
            last = node.childIndex(for: upper)
            if last > 0 && ByteOrder.compare(node.separator(at: last - 1), upper) >= 0 { last -= 1 }
        }
        guard first <= last else { return }
        if last - first >= 2 {
            for index in (first + 1)..<last { collectLive(node.children[index], into: &removed) }
            node.removeChildren((first + 1)..<last)
            last = first + 1
        }
        // Right boundary first, so `first` stays valid.
        for index in first == last ? [first] : [last, first] {
            if !isKnownUniquelyReferenced(&node.children[index]) {
                node.children[index] = node.children[index].copy(horizon: 0)
            }
            remove(node.children[index], range, &removed)
            if node.children[index].isEmpty { node.removeChild(at: index) }
        }
    }

    static func collectLive(_ node: TreeNode, into removed: inout RemovedEntries) {
        guard removed.counting else { return }
        if node.isLeaf {
            guard removed.collect else {
                removed.count += node.slots.withUnsafeBufferPointer { slots in
                    var live = 0
                    for slot in slots where slot.valueKind != LeafSlot.tombstone { live += 1 }
                    return live
                }
                return
            }
            for index in node.slots.indices where node.slots[index].valueKind != LeafSlot.tombstone {
                removed.add(node, index)
            }
        } else {
            for child in node.children { collectLive(child, into: &removed) }
        }
    }
}

/// What a range removal took out: the live count, and the live entries when asked for.
struct RemovedEntries {
    var count = 0
    var entries: [VersionedEntry] = []
    let collect: Bool
    /// False when the caller does not need the count of detached subtrees.
    var counting = true

    init(collect: Bool) { self.collect = collect }

    mutating func add(_ leaf: TreeNode, _ index: Int) {
        count += 1
        if collect { entries.append(leaf.entry(at: index)) }
    }
}

extension TreeNode {
    func removeChild(at index: Int) {
        children.remove(at: index)
        if separatorCount > 0 { removeSeparator(at: max(index - 1, 0)) }
    }

    /// Removes `children[range]` (at least one child stays) and the separators between them.
    func removeChildren(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        // Child i sits between separators i - 1 and i; dropping children lower..<upper drops
        // separators lower - 1 ..< upper - 1 (or lower ..< upper when the range starts at 0).
        let separators = range.lowerBound == 0 ? range : (range.lowerBound - 1)..<(range.upperBound - 1)
        let byteStart = separators.lowerBound == 0 ? 0 : Int(separatorEnds[separators.lowerBound - 1])
        let byteEnd = Int(separatorEnds[separators.upperBound - 1])
        arena.removeSubrange(byteStart..<byteEnd)
        separatorEnds.removeSubrange(separators)
        let shift = UInt32(byteEnd - byteStart)
        for position in separators.lowerBound..<separatorEnds.count { separatorEnds[position] -= shift }
        children.removeSubrange(range)
        rebuildSeparatorHints()
    }

    func splitInternal() -> (separator: [UInt8], right: TreeNode) {
        let mid = children.count / 2
        let right = TreeNode.node(children: Array(children[mid...]), separators: (mid..<separatorCount).map(separator(at:)))
        let up = separator(at: mid - 1)
        children.removeSubrange(mid...)
        arena.removeSubrange((mid - 1 == 0 ? 0 : Int(separatorEnds[mid - 2]))...)
        separatorEnds.removeSubrange((mid - 1)...)
        rebuildSeparatorHints()
        return (up, right)
    }
}
