/// The trees that answer reads of one stretch of keys, newest first: a key's entry is the one in
/// the first tree that holds it, and a tombstone there hides whatever older trees hold.
/// A namespace's head is a stack of its fresh, recent and main trees (`NamespaceState`); a
/// retired subtree keeps the stack from before its cut.
struct TreeStack: Sendable {
    /// Newest first; never empty.
    let roots: [TreeNode]

    init(_ roots: [TreeNode]) {
        let kept = roots.filter { !$0.isEmpty }
        self.roots = kept.isEmpty ? [roots.last ?? TreeNode.leaf()] : kept
    }

    init(root: TreeNode) { roots = [root] }

    /// The entry stored under `key` in the newest tree that holds it, tombstones included.
    func entry(_ key: [UInt8]) -> VersionedEntry? {
        for root in roots {
            if let entry = VersionedTree(root: root).entry(key) { return entry }
        }
        return nil
    }

    /// The same stack with every entry in `range` removed from each tree.
    func removingAll(in range: StorageKeyRange) -> TreeStack {
        TreeStack(roots.map { $0.removingAll(in: range) })
    }

    /// The same stack with only the entries in `range` kept.
    func keepingOnly(_ range: StorageKeyRange) -> TreeStack {
        var kept = self
        if !range.lower.isEmpty { kept = kept.removingAll(in: StorageKeyRange(lower: [], upper: range.lower)) }
        if let upper = range.upper { kept = kept.removingAll(in: StorageKeyRange(lower: upper, upper: nil)) }
        return kept
    }
}

/// A position in a `TreeStack`, moving through the merged entries in one direction: each key
/// once, with the entry of the newest tree that holds it. `seek(atLeast:)` reads forward
/// (`next`), `seek(below:)` backward (`previous`).
struct StackCursor {
    private var cursors: [TreeCursor]
    /// Each cursor's current entry (materialized once per move).
    private var heads: [VersionedEntry?]
    /// The cursors whose current key is the current entry's key (the newest first).
    private var chosen: [Int] = []
    /// The cursor with the next different key after the current one (nil when none): while a
    /// lone chosen cursor stays ahead of it, a move costs one comparison.
    private var runnerUp: Int?
    private var forward = true
    /// The entry under the cursor, or nil when it has run off the end.
    private(set) var current: VersionedEntry?

    init(_ stack: TreeStack) {
        cursors = stack.roots.map { TreeCursor(root: $0) }
        heads = [VersionedEntry?](repeating: nil, count: cursors.count)
        chosen.reserveCapacity(cursors.count)
    }

    /// Moves to the first entry with key ≥ `key`, reading forward from there.
    mutating func seek(atLeast key: [UInt8]) {
        forward = true
        for index in cursors.indices {
            cursors[index].seek(atLeast: key)
            heads[index] = cursors[index].current
        }
        choose()
    }

    /// Moves to the last entry with key < `key` (the last entry when `key` is nil), reading backward.
    mutating func seek(below key: [UInt8]?) {
        forward = false
        for index in cursors.indices {
            cursors[index].seek(below: key)
            heads[index] = cursors[index].current
        }
        choose()
    }

    /// The next entry after a forward seek.
    mutating func next() { advance() }

    /// The previous entry after a backward seek.
    mutating func previous() { advance() }

    private mutating func advance() {
        if cursors.count == 1 {
            if forward { cursors[0].next() } else { cursors[0].previous() }
            current = cursors[0].current
            return
        }
        if chosen.count == 1, let only = chosen.first {
            if forward { cursors[only].next() } else { cursors[only].previous() }
            heads[only] = cursors[only].current
            if let head = heads[only] {
                guard let runnerUp, let next = heads[runnerUp] else {
                    current = head  // every other cursor has run off the end
                    return
                }
                let order = ByteOrder.compare(head.key, next.key)
                if forward ? order < 0 : order > 0 {
                    current = head
                    return
                }
            }
            choose()
            return
        }
        for index in chosen {
            if forward { cursors[index].next() } else { cursors[index].previous() }
            heads[index] = cursors[index].current
        }
        choose()
    }

    /// The smallest (forward) or largest (backward) head; on a tie the newest tree's. Notes
    /// every cursor standing on that key, so the next move steps past it in all of them.
    private mutating func choose() {
        chosen.removeAll(keepingCapacity: true)
        runnerUp = nil
        let forward = forward
        var best = -1
        var second = -1
        // Compares keys in place: copying a head out would retain and release its arrays.
        heads.withUnsafeBufferPointer { heads in
            func order(_ lhs: Int, _ rhs: Int) -> Int {
                let result = ByteOrder.compare(heads[lhs].unsafelyUnwrapped.key, heads[rhs].unsafelyUnwrapped.key)
                return forward ? result : -result
            }
            for index in heads.indices where heads[index] != nil {
                guard best >= 0 else {
                    best = index
                    chosen.append(index)
                    continue
                }
                let against = order(index, best)
                if against == 0 {
                    chosen.append(index)
                } else if against < 0 {
                    second = best  // the old leader is the closest of the rest
                    best = index
                    chosen.removeAll(keepingCapacity: true)
                    chosen.append(index)
                } else if second < 0 || order(index, second) < 0 {
                    second = index
                }
            }
        }
        runnerUp = second >= 0 ? second : nil
        current = best >= 0 ? heads[best] : nil
    }
}

extension TreeNode {
    /// The root of this tree with every entry in `range` removed (this tree is not changed).
    func removingAll(in range: StorageKeyRange) -> TreeNode {
        var tree = VersionedTree(root: self)
        _ = tree.removeAll(in: range, collect: false, counting: false)
        return tree.root
    }
}
