/// A subtree a commit cut out of a namespace's head tree at once (`CommitBuilder.deleteSubtree`
/// on a large range), with the tree from just before the cut.
///
/// The head tree no longer holds the cut entries or their history, so a read at a time before
/// `time` for a key in `subtree` is answered from `root` instead: that tree holds every retained
/// version of those keys up to the cut. With several records covering a key, the earliest one
/// cut after the read time answers (an older record's tree already lacks what an earlier cut
/// removed). A record is dropped once the retained history no longer reaches before `time`.
struct RetiredSubtree: Sendable {
    /// The commit that cut the subtree; reads at this time or later use the head tree.
    let time: CommitTime
    let subtree: StorageKey
    /// The namespace's tree just before the cut (shares every untouched node with the head).
    var root: TreeNode

    var range: StorageKeyRange { .subtree(of: subtree) }

    init(time: CommitTime, subtree: StorageKey, root: TreeNode) {
        self.time = time
        self.subtree = subtree
        self.root = root
    }

    /// A record of cutting `subtree` out of `tree` at `time`. Only the subtree's part of the
    /// tree is kept (trimmed along its two boundary paths, nothing counted), so the record does
    /// not pin leaves the head later rewrites elsewhere in the namespace.
    init(time: CommitTime, subtree: StorageKey, before tree: VersionedTree) {
        var kept = tree
        let range = StorageKeyRange.subtree(of: subtree)
        if !range.lower.isEmpty {
            _ = kept.removeAll(in: StorageKeyRange(lower: [], upper: range.lower), collect: false, counting: false)
        }
        if let upper = range.upper {
            _ = kept.removeAll(in: StorageKeyRange(lower: upper, upper: nil), collect: false, counting: false)
        }
        self.init(time: time, subtree: subtree, root: kept.root)
    }
}

/// One stretch of the key space and the tree a read answers it from.
struct TreePiece: Sendable {
    let range: StorageKeyRange
    let root: TreeNode
}

/// What one read at one read time sees of a namespace: the head tree, or where subtrees were cut
/// after the read time, the trees from before those cuts, piece by piece in key order.
struct TreeView: Sendable {
    let root: TreeNode
    /// Empty when `root` answers every key; otherwise contiguous pieces covering all keys, in order.
    let pieces: [TreePiece]

    init(root: TreeNode, pieces: [TreePiece] = []) {
        self.root = root
        self.pieces = pieces
    }

    /// The tree that answers `key`.
    func root(for key: [UInt8]) -> TreeNode {
        guard !pieces.isEmpty else { return root }
        for piece in pieces where piece.range.contains(key) { return piece.root }
        return root
    }

    /// The entry stored under `key` in the tree that answers it, tombstones included.
    func entry(_ key: [UInt8]) -> VersionedEntry? {
        VersionedTree(root: root(for: key)).entry(key)
    }
}

extension NamespaceState {
    /// The tree that answers `key` at `readTime` (the head tree unless a later cut took `key`).
    @inline(__always)
    func tree(for key: [UInt8], at readTime: CommitTime) -> VersionedTree {
        guard let last = retired.last, last.time > readTime else { return tree }
        for record in retired where record.time > readTime && record.range.contains(key) {
            return VersionedTree(root: record.root)
        }
        return tree
    }

    /// The trees a read at `readTime` sees.
    func view(at readTime: CommitTime) -> TreeView {
        guard let last = retired.last, last.time > readTime else { return TreeView(root: tree.root) }
        var pieces = [TreePiece(range: .all, root: tree.root)]
        // Latest first, so the earliest record covering a key is laid over last and wins.
        for record in retired.reversed() where record.time > readTime {
            pieces = TreeView.overlay(pieces, record.range, record.root)
        }
        return TreeView(root: tree.root, pieces: pieces)
    }

    /// Removes every retired record cut at or before `horizon`; returns them (so the caller can
    /// release their trees outside the commit serialization).
    mutating func dropRetired(through horizon: CommitTime) -> [RetiredSubtree] {
        guard let first = retired.first, first.time <= horizon else { return [] }
        let keep = retired.firstIndex { $0.time > horizon } ?? retired.count
        let dropped = Array(retired[..<keep])
        retired.removeFirst(keep)
        return dropped
    }

    /// A `clear` of `subtree`: its history goes too, so retired records forget it as well.
    mutating func clearRetired(_ subtree: StorageKey) {
        guard !retired.isEmpty else { return }
        if subtree.isRoot {
            retired = []
            return
        }
        retired.removeAll { subtree.contains($0.subtree) }
        for index in retired.indices where retired[index].subtree.isAncestor(of: subtree) {
            var tree = VersionedTree(root: retired[index].root)
            _ = tree.removeAll(in: .subtree(of: subtree), collect: false)
            retired[index].root = tree.root
        }
    }
}

extension TreeView {
    /// `pieces` with `range` answered from `root` instead.
    static func overlay(_ pieces: [TreePiece], _ range: StorageKeyRange, _ root: TreeNode) -> [TreePiece] {
        var result: [TreePiece] = []
        var placed = false
        for piece in pieces {
            let overlap = piece.range.clamped(to: range)
            if overlap.isEmpty {
                result.append(piece)
                continue
            }
            // The part of the piece before the range, the overlap, the part after it.
            if ByteOrder.less(piece.range.lower, overlap.lower) {
                result.append(TreePiece(range: StorageKeyRange(lower: piece.range.lower, upper: overlap.lower), root: piece.root))
            }
            if !placed {
                result.append(TreePiece(range: range, root: root))
                placed = true
            }
            if let upper = overlap.upper, piece.range.upper.map({ ByteOrder.less(upper, $0) }) ?? true {
                result.append(TreePiece(range: StorageKeyRange(lower: upper, upper: piece.range.upper), root: piece.root))
            }
        }
        return result
    }
}
