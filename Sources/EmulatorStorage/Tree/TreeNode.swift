/// A node of the copy-on-write B+tree.
///
/// Safety of `@unchecked Sendable`: a node reachable from a published root (the engine head or
/// any snapshot) is never mutated. Commits mutate a node only after `isKnownUniquelyReferenced`
/// proves the commit's working tree is its sole owner, and copy it otherwise (path copying).
final class TreeNode: @unchecked Sendable {
    /// Leaf payload, ordered by key. Empty for internal nodes.
    var entries: [VersionedEntry]
    /// Internal children. Empty for leaves.
    var children: [TreeNode]
    /// `separators[i]` ≤ every key in `children[i + 1]` and > every key in `children[i]`.
    var separators: [[UInt8]]
    let isLeaf: Bool

    init(entries: [VersionedEntry]) {
        self.entries = entries
        self.children = []
        self.separators = []
        self.isLeaf = true
    }

    init(children: [TreeNode], separators: [[UInt8]]) {
        self.entries = []
        self.children = children
        self.separators = separators
        self.isLeaf = false
    }

    static let maxLeafEntries = 64
    static let maxChildren = 64

    /// A private copy; a leaf copy also drops versions older than `horizon`.
    func copy(horizon: CommitTime) -> TreeNode {
        if isLeaf {
            var copied = entries
            if horizon > 0 {
                var needsPrune = false
                for entry in copied where !entry.history.isEmpty || entry.value == nil {
                    needsPrune = true
                    break
                }
                if needsPrune {
                    var kept: [VersionedEntry] = []
                    kept.reserveCapacity(copied.count)
                    for var entry in copied where entry.prune(horizon: horizon) { kept.append(entry) }
                    copied = kept
                }
            }
            return TreeNode(entries: copied)
        }
        return TreeNode(children: children, separators: separators)
    }

    var isEmpty: Bool { isLeaf ? entries.isEmpty : children.isEmpty }

    /// Index of the child that may hold `key`.
    @inline(__always)
    func childIndex(for key: [UInt8]) -> Int {
        var low = 0
        var high = separators.count
        while low < high {
            let mid = (low + high) >> 1
            if ByteOrder.compare(separators[mid], key) <= 0 { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// First entry index whose key is ≥ `key`, and whether it equals.
    @inline(__always)
    func entryIndex(for key: [UInt8]) -> (index: Int, found: Bool) {
        var low = 0
        var high = entries.count
        while low < high {
            let mid = (low + high) >> 1
            let order = ByteOrder.compare(entries[mid].key, key)
            if order == 0 { return (mid, true) }
            if order < 0 { low = mid + 1 } else { high = mid }
        }
        return (low, false)
    }
}
