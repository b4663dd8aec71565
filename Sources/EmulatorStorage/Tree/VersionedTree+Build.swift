extension VersionedTree {
    /// A tree holding exactly `entries` (keys strictly ascending), built bottom-up: leaves are
    /// filled left to right and each internal level is made from the one below, so loading N
    /// entries costs O(N) appends instead of N root-to-leaf inserts and the copies they make.
    /// Nodes are left a little short of full so the first commits after a load do not split
    /// every node they touch.
    ///
    /// ```swift
    /// let tree = VersionedTree(sorted: [entryA, entryB])   // a.key < b.key
    /// ```
    init(sorted entries: some Sequence<VersionedEntry>) {
        let leafFill = TreeNode.maxLeafEntries * 7 / 8
        var level: [(node: TreeNode, first: [UInt8])] = []
        var leaf = TreeNode.leaf()
        var first: [UInt8] = []
        for entry in entries {
            if leaf.count == leafFill {
                leaf.noteLayout()
                level.append((leaf, first))
                leaf = TreeNode.leaf()
            }
            if leaf.count == 0 {
                first = entry.key
                leaf.slots.reserveCapacity(leafFill + 4)
            }
            leaf.append(entry)
        }
        guard !level.isEmpty || leaf.count > 0 else {
            self.init()
            return
        }
        if leaf.count > 0 {
            leaf.noteLayout()
            level.append((leaf, first))
        }
        let fanOut = TreeNode.maxChildren * 7 / 8
        while level.count > 1 {
            // Spread the children evenly, so no node at the right edge ends up with one child.
            let groups = (level.count + fanOut - 1) / fanOut
            var next: [(node: TreeNode, first: [UInt8])] = []
            next.reserveCapacity(groups)
            var start = 0
            for group in 0..<groups {
                let end = level.count * (group + 1) / groups
                let children = level[start..<end]
                next.append((
                    TreeNode.node(children: children.map(\.node), separators: children.dropFirst().map(\.first)),
                    level[start].first))
                start = end
            }
            level = next
        }
        self.init(root: level[0].node)
    }
}
