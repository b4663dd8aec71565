/// A persistent (copy-on-write) B+tree of versioned entries ordered by encoded key.
///
/// Copying the struct is O(1); mutating a copy path-copies only the nodes it touches, so any
/// number of readers can keep an old root while a commit builds the next one.
struct VersionedTree: Sendable {
    var root: TreeNode

    init() { root = TreeNode(entries: []) }

    init(root: TreeNode) { self.root = root }

    /// The entry stored under `key`, including tombstones.
    func entry(_ key: [UInt8]) -> VersionedEntry? {
        var node = root
        while !node.isLeaf { node = node.children[node.childIndex(for: key)] }
        let (index, found) = node.entryIndex(for: key)
        return found ? node.entries[index] : nil
    }

    /// Runs `body` on the entry for `key` (an absent placeholder if none) and stores the result:
    /// an entry that ends up neither live nor carrying history is removed.
    /// Leaves copied on the way drop versions older than `horizon`.
    mutating func update<R>(_ key: [UInt8], horizon: CommitTime, _ body: (inout VersionedEntry) -> R) -> R {
        if !isKnownUniquelyReferenced(&root) { root = root.copy(horizon: horizon) }
        var result: R?
        if let split = VersionedTree.update(root, key, horizon, &result, body) {
            root = TreeNode(children: [root, split.right], separators: [split.separator])
        }
        normalizeRoot()
        // `body` runs exactly once on every path above.
        return result.unsafelyUnwrapped
    }

    private mutating func normalizeRoot() {
        while !root.isLeaf && root.children.count <= 1 {
            root = root.children.first ?? TreeNode(entries: [])
        }
    }

    /// `node` is uniquely owned by this tree.
    private static func update<R>(
        _ node: TreeNode, _ key: [UInt8], _ horizon: CommitTime, _ result: inout R?,
        _ body: (inout VersionedEntry) -> R
    ) -> (separator: [UInt8], right: TreeNode)? {
        if node.isLeaf {
            let (index, found) = node.entryIndex(for: key)
            if found {
                result = body(&node.entries[index])
                if !node.entries[index].isRetained { node.entries.remove(at: index) }
                return nil
            }
            var entry = VersionedEntry(absent: key)
            result = body(&entry)
            guard entry.isRetained else { return nil }
            node.entries.insert(entry, at: index)
            guard node.entries.count > TreeNode.maxLeafEntries else { return nil }
            // Appends at the end (push ids, sequential keys) leave the left leaf nearly full.
            let mid = index == node.entries.count - 1 ? node.entries.count - 4 : node.entries.count / 2
            let right = TreeNode(entries: Array(node.entries[mid...]))
            node.entries.removeSubrange(mid...)
            return (right.entries[0].key, right)
        }
        let index = node.childIndex(for: key)
        if !isKnownUniquelyReferenced(&node.children[index]) {
            node.children[index] = node.children[index].copy(horizon: horizon)
        }
        let child = node.children[index]
        if let split = update(child, key, horizon, &result, body) {
            node.separators.insert(split.separator, at: index)
            node.children.insert(split.right, at: index + 1)
        } else if child.isEmpty {
            node.removeChild(at: index)
        }
        return node.children.count > TreeNode.maxChildren ? node.splitInternal() : nil
    }

    /// Removes every entry in `range` (tombstones and history included); returns the live ones.
    mutating func removeAll(in range: StorageKeyRange) -> [VersionedEntry] {
        var removed: [VersionedEntry] = []
        guard !range.isEmpty else { return removed }
        if !isKnownUniquelyReferenced(&root) { root = root.copy(horizon: 0) }
        VersionedTree.remove(root, range, &removed)
        normalizeRoot()
        return removed
    }

    private static func remove(_ node: TreeNode, _ range: StorageKeyRange, _ removed: inout [VersionedEntry]) {
        if node.isLeaf {
            let start = node.entryIndex(for: range.lower).index
            var end = node.entries.count
            if let upper = range.upper { end = max(start, node.entryIndex(for: upper).index) }
            for entry in node.entries[start..<end] where entry.isLive { removed.append(entry) }
            node.entries.removeSubrange(start..<end)
            return
        }
        let first = node.childIndex(for: range.lower)
        var last = node.children.count - 1
        if let upper = range.upper {
            // The last child holding a key < upper.
            last = node.childIndex(for: upper)
            if last > 0 && ByteOrder.compare(node.separators[last - 1], upper) >= 0 { last -= 1 }
        }
        guard first <= last else { return }
        var index = last
        while index >= first {
            let childLower = index > 0 ? node.separators[index - 1] : nil
            let childUpper = index < node.separators.count ? node.separators[index] : nil
            let coversLower = childLower.map { !ByteOrder.less($0, range.lower) } ?? range.lower.isEmpty
            let coversUpper: Bool
            switch (childUpper, range.upper) {
            case (_, nil): coversUpper = true
            case (nil, _?): coversUpper = false
            case (let c?, let u?): coversUpper = !ByteOrder.less(u, c)
            }
            if coversLower && coversUpper {
                collectLive(node.children[index], into: &removed)
                node.removeChild(at: index)
            } else {
                if !isKnownUniquelyReferenced(&node.children[index]) {
                    node.children[index] = node.children[index].copy(horizon: 0)
                }
                remove(node.children[index], range, &removed)
                if node.children[index].isEmpty { node.removeChild(at: index) }
            }
            index -= 1
        }
    }

    static func collectLive(_ node: TreeNode, into removed: inout [VersionedEntry]) {
        if node.isLeaf {
            for entry in node.entries where entry.isLive { removed.append(entry) }
        } else {
            for child in node.children { collectLive(child, into: &removed) }
        }
    }
}

extension TreeNode {
    func removeChild(at index: Int) {
        children.remove(at: index)
        if !separators.isEmpty { separators.remove(at: max(index - 1, 0)) }
    }

    func splitInternal() -> (separator: [UInt8], right: TreeNode) {
        let mid = children.count / 2
        let right = TreeNode(children: Array(children[mid...]), separators: Array(separators[mid...]))
        let separator = separators[mid - 1]
        children.removeSubrange(mid...)
        separators.removeSubrange((mid - 1)...)
        return (separator, right)
    }
}
