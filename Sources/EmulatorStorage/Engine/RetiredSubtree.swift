/// A subtree a commit cut out of a namespace's head tree at once (`CommitBuilder.deleteSubtree`
/// on a large range), with the tree from just before the cut.
///
/// The head trees no longer hold the cut entries or their history, so a read at a time before
/// `time` for a key in `subtree` is answered from `stack` instead: those trees hold every retained
/// version of those keys up to the cut. With several records covering a key, the earliest one
/// cut after the read time answers (an older record's tree already lacks what an earlier cut
/// removed). A record is dropped once the retained history no longer reaches before `time`.
struct RetiredSubtree: Sendable {
    /// The commit that cut the subtree; reads at this time or later use the head tree.
    let time: CommitTime
    let subtree: StorageKey
    /// The namespace's trees just before the cut (sharing every untouched node with the head).
    var stack: TreeStack

    var range: StorageKeyRange { .subtree(of: subtree) }

    /// A record of cutting `subtree` out of the trees of `stack` at `time`. Only the subtree's
    /// part of each tree is kept (trimmed along its two boundary paths, nothing counted), so the
    /// record does not pin leaves the head later rewrites elsewhere in the namespace.
    init(time: CommitTime, subtree: StorageKey, before stack: TreeStack) {
        self.time = time
        self.subtree = subtree
        self.stack = stack.keepingOnly(.subtree(of: subtree))
    }
}

/// One stretch of the key space and the trees a read answers it from.
struct TreePiece: Sendable {
    let range: StorageKeyRange
    let stack: TreeStack
}

/// What one read at one read time sees of a namespace: the head trees, or where subtrees were
/// cut after the read time, the trees from before those cuts, piece by piece in key order.
struct TreeView: Sendable {
    let stack: TreeStack
    /// Empty when `stack` answers every key; otherwise contiguous pieces covering all keys, in order.
    let pieces: [TreePiece]

    init(stack: TreeStack, pieces: [TreePiece] = []) {
        self.stack = stack
        self.pieces = pieces
    }

    /// The trees that answer `key`.
    func stack(for key: [UInt8]) -> TreeStack {
        guard !pieces.isEmpty else { return stack }
        for piece in pieces where piece.range.contains(key) { return piece.stack }
        return stack
    }

    /// The entry stored under `key` in the trees that answer it, tombstones included.
    func entry(_ key: [UInt8]) -> VersionedEntry? {
        stack(for: key).entry(key)
    }
}

extension NamespaceState {
    /// The retired trees that answer `key` at `readTime`, or nil when the head does (no later cut took `key`).
    @inline(__always)
    func retiredStack(for key: [UInt8], at readTime: CommitTime) -> TreeStack? {
        guard let last = retired.last, last.time > readTime else { return nil }
        for record in retired where record.time > readTime && record.range.contains(key) {
            return record.stack
        }
        return nil
    }

    /// The trees a read at `readTime` sees.
    func view(at readTime: CommitTime) -> TreeView {
        let head = headStack
        guard let last = retired.last, last.time > readTime else { return TreeView(stack: head) }
        var pieces = [TreePiece(range: .all, stack: head)]
        // Latest first, so the earliest record covering a key is laid over last and wins.
        for record in retired.reversed() where record.time > readTime {
            pieces = TreeView.overlay(pieces, record.range, record.stack)
        }
        return TreeView(stack: head, pieces: pieces)
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
            retired[index].stack = retired[index].stack.removingAll(in: .subtree(of: subtree))
        }
    }
}

extension TreeView {
    /// `pieces` with `range` answered from `stack` instead.
    static func overlay(_ pieces: [TreePiece], _ range: StorageKeyRange, _ stack: TreeStack) -> [TreePiece] {
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
                result.append(TreePiece(range: StorageKeyRange(lower: piece.range.lower, upper: overlap.lower), stack: piece.stack))
            }
            if !placed {
                result.append(TreePiece(range: range, stack: stack))
                placed = true
            }
            if let upper = overlap.upper, piece.range.upper.map({ ByteOrder.less(upper, $0) }) ?? true {
                result.append(TreePiece(range: StorageKeyRange(lower: upper, upper: piece.range.upper), stack: piece.stack))
            }
        }
        return result
    }
}
