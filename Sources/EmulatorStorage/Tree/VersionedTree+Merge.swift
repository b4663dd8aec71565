/// Entries in ascending key order, read in place from the leaves of other trees: what
/// `VersionedTree.merge` takes in.
protocol SlotSource {
    /// The leaf and slot of the current entry, or nil at the end. The leaf stays alive as long
    /// as the trees the source reads do.
    var currentSlot: (leaf: Unmanaged<TreeNode>, index: Int)? { get }
    mutating func next()
}

extension TreeCursor: SlotSource {}

/// The entries of several trees (newest first) in ascending key order from `lower` on, each key
/// once, from the newest tree that holds it. The cursors sit in a binary heap ordered by current
/// key (the newer tree first on a tie), so a step costs about 2 log₂(trees) key comparisons.
struct SlotMerge: SlotSource {
    private var cursors: [TreeCursor]
    /// Each cursor's current slot, kept beside it so heap comparisons need not touch the cursors.
    private var heads: [(leaf: Unmanaged<TreeNode>, index: Int)?]
    private var heap: [Int] = []

    init(_ roots: [TreeNode], from lower: [UInt8] = []) {
        cursors = roots.map { root in
            var cursor = TreeCursor(root: root)
            cursor.seek(atLeast: lower)
            return cursor
        }
        heads = cursors.map(\.currentSlot)
        for index in cursors.indices where heads[index] != nil {
            heap.append(index)
            siftUp(heap.count - 1)
        }
    }

    var currentSlot: (leaf: Unmanaged<TreeNode>, index: Int)? {
        guard let top = heap.first else { return nil }
        return heads[top]
    }

    mutating func next() {
        guard let top = heap.first, let (leaf, index) = heads[top] else { return }
        // Step every cursor standing on this key (older trees' entries for it are superseded);
        // each comes to the top of the heap in turn.
        stepTop()
        while let first = heap.first, let slot = heads[first], TreeNode.compareKeys(slot.leaf, slot.index, leaf, index) == 0 {
            stepTop()
        }
    }

    /// Moves the cursor at the top of the heap on and restores the heap.
    private mutating func stepTop() {
        guard let first = heap.first else { return }
        cursors[first].next()
        heads[first] = cursors[first].currentSlot
        if heads[first] == nil {
            heap.swapAt(0, heap.count - 1)
            heap.removeLast()
        }
        if !heap.isEmpty { siftDown(0) }
    }

    /// True if cursor `lhs` comes before cursor `rhs` (both have a current entry).
    @inline(__always)
    private func precedes(_ lhs: Int, _ rhs: Int) -> Bool {
        guard let left = heads[lhs], let right = heads[rhs] else { return false }
        let order = TreeNode.compareKeys(left.leaf, left.index, right.leaf, right.index)
        return order < 0 || (order == 0 && lhs < rhs)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var best = left
            if left + 1 < heap.count && precedes(heap[left + 1], heap[left]) { best = left + 1 }
            guard precedes(heap[best], heap[parent]) else { return }
            heap.swapAt(best, parent)
            parent = best
        }
    }
}

extension VersionedTree {
    /// Merges up to `limit` entries of `source` into the tree; each replaces the tree's entry
    /// for its key. Works leaf by leaf: every leaf that takes entries is rebuilt once, its old
    /// slots and the new ones copied in key order as raw bytes (no entry is taken apart), where
    /// inserting them one by one would descend, shift slots and copy the leaf per entry.
    /// Leaves built here drop versions older than `horizon` (from both sides); an entry left
    /// with nothing leaves the tree. `note` is told of each entry taken (its leaf and slot in
    /// the source) and of the slot it replaced, if the tree held its key. Returns the number taken.
    @discardableResult
    mutating func merge<Source: SlotSource>(
        _ source: inout Source, limit: Int = .max, horizon: CommitTime,
        _ note: (_ leaf: TreeNode, _ index: Int, _ replaced: LeafSlot?) -> Void
    ) -> Int {
        var taken = 0
        while taken < limit, source.currentSlot != nil {
            if root.isLeaf {
                let leaves = VersionedTree.mergeLeaf(root, upper: nil, &source, limit - taken, horizon, &taken, note)
                copiedNodes += leaves.count
                switch leaves.count {
                case 0: root = TreeNode.leaf()
                case 1: root = leaves[0]
                default: root = TreeNode.node(children: leaves, separators: leaves.dropFirst().map { $0.key(at: 0) })
                }
                continue
            }
            if !isKnownUniquelyReferenced(&root) {
                root = root.copy(horizon: horizon)
                copiedNodes += 1
            }
            if let split = VersionedTree.merge(root, upper: nil, &source, limit - taken, horizon, &taken, &copiedNodes, note) {
                root = TreeNode.node(children: [root, split.right], separators: [split.separator])
            }
            normalizeRoot()
        }
        return taken
    }

    /// One descent from `node` (internal, uniquely owned) to the leaf for the source's current
    /// key, which is rebuilt with the source entries below its upper bound.
    private static func merge<Source: SlotSource>(
        _ node: TreeNode, upper: [UInt8]?, _ source: inout Source, _ budget: Int, _ horizon: CommitTime,
        _ taken: inout Int, _ copies: inout Int, _ note: (TreeNode, Int, LeafSlot?) -> Void
    ) -> (separator: [UInt8], right: TreeNode)? {
        guard let (leaf, slot) = source.currentSlot else { return nil }
        let index = leaf._withUnsafeGuaranteedRef { $0.withKey(at: slot) { node.childIndex(for: $0) } }
        let childUpper = index < node.separatorCount ? node.separator(at: index) : upper
        if node.children[index].isLeaf {
            let leaves = mergeLeaf(node.children[index], upper: childUpper, &source, budget, horizon, &taken, note)
            copies += leaves.count
            if let first = leaves.first {
                node.children[index] = first
                for (offset, extra) in leaves.dropFirst().enumerated() {
                    node.insertSeparator(extra.key(at: 0), at: index + offset)
                    node.children.insert(extra, at: index + offset + 1)
                }
            } else {
                node.removeChild(at: index)
            }
        } else {
            if !isKnownUniquelyReferenced(&node.children[index]) {
                node.children[index] = node.children[index].copy(horizon: horizon)
                copies += 1
            }
            let child = node.children[index]
            if let split = merge(child, upper: childUpper, &source, budget, horizon, &taken, &copies, note) {
                node.insertSeparator(split.separator, at: index)
                node.children.insert(split.right, at: index + 1)
            } else if child.isEmpty {
                node.removeChild(at: index)
            }
        }
        return node.children.count > TreeNode.maxChildren ? node.splitInternal() : nil
    }

    /// The leaves that replace `old`: its entries and the source's entries below `upper` (at
    /// most `budget`, and at most twice a full leaf's worth per call), in key order, spread
    /// evenly over as many leaves as they need (none if nothing is left).
    private static func mergeLeaf<Source: SlotSource>(
        _ old: TreeNode, upper: [UInt8]?, _ source: inout Source, _ budget: Int, _ horizon: CommitTime,
        _ taken: inout Int, _ note: (TreeNode, Int, LeafSlot?) -> Void
    ) -> [TreeNode] {
        var picked = LeafPicks(horizon: horizon)
        picked.refs.reserveCapacity(old.count + 16)
        let oldLeaf = Unmanaged.passUnretained(old)
        let oldCount = old.count
        let most = min(budget, 2 * TreeNode.maxLeafEntries)
        var next = 0
        var took = 0
        while took < most, let (leaf, slot) = source.currentSlot {
            if let upper, leaf._withUnsafeGuaranteedRef({ $0.withKey(at: slot) { key in
                upper.withUnsafeBufferPointer { ByteOrder.compare(key, 0, key.count, $0) >= 0 }
            } }) {
                break
            }
            // The old entries below the source key (found by the leaf's hints), then the one it replaces.
            let (position, found) = leaf._withUnsafeGuaranteedRef { $0.withKey(at: slot) { old.entryIndex(for: $0, from: next) } }
            while next < position {
                picked.add(oldLeaf, next)
                next += 1
            }
            var replaced: LeafSlot?
            if found {
                replaced = old.slots[next]
                next += 1
            }
            leaf._withUnsafeGuaranteedRef { note($0, slot, replaced) }
            picked.add(leaf, slot)
            took += 1
            source.next()
        }
        while next < oldCount {
            picked.add(oldLeaf, next)
            next += 1
        }
        taken += took
        return picked.leaves()
    }
}

/// The entries a rebuilt leaf keeps, in order: slots of existing leaves, copied as raw bytes,
/// or entries that had to be taken apart to drop expired versions.
private struct LeafPicks {
    let horizon: CommitTime
    /// A slot of a leaf, or (leaf nil) an index into `pruned`.
    var refs: [(leaf: Unmanaged<TreeNode>?, index: Int)] = []
    var pruned: [VersionedEntry] = []

    init(horizon: CommitTime) { self.horizon = horizon }

    mutating func add(_ leaf: Unmanaged<TreeNode>, _ index: Int) {
        let needsPruning = horizon > 0 && leaf._withUnsafeGuaranteedRef { $0.slots[index].isPrunable }
        guard needsPruning else {
            refs.append((leaf, index))
            return
        }
        var entry = leaf._withUnsafeGuaranteedRef { $0.entry(at: index) }
        guard entry.prune(horizon: horizon) else { return }
        refs.append((nil, pruned.count))
        pruned.append(entry)
    }

    /// The picked entries in leaves of at most `maxLeafEntries` (about 48 each when more than
    /// one is needed), each allocated to its exact size.
    func leaves() -> [TreeNode] {
        let count = refs.count
        guard count > 0 else { return [] }
        let parts = count <= TreeNode.maxLeafEntries ? 1 : (count + 47) / 48
        var leaves: [TreeNode] = []
        leaves.reserveCapacity(parts)
        for part in 0..<parts {
            let range = (count * part / parts)..<(count * (part + 1) / parts)
            var bytes = 0
            for index in range {
                let (leaf, slot) = refs[index]
                if let leaf {
                    bytes += leaf._withUnsafeGuaranteedRef { $0.arenaBytes(of: slot) }
                } else {
                    bytes += TreeNode.arenaBytes(of: pruned[slot])
                }
            }
            let built = TreeNode.leaf()
            built.slots.reserveCapacity(range.count)
            built.arena.reserveCapacity(bytes)
            for index in range {
                let (leaf, slot) = refs[index]
                if let leaf {
                    leaf._withUnsafeGuaranteedRef { built.appendCopy(of: slot, in: $0) }
                } else {
                    let made = built.makeSlot(pruned[slot])
                    built.slots.append(made)
                }
            }
            built.rebuildLeafHints()
            leaves.append(built)
        }
        return leaves
    }
}

extension TreeNode {
    /// Calls `body` with the bytes of the key of slot `index`, in place.
    @inline(__always)
    func withKey<R>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let slot = slots[index]
        return arena.withUnsafeBufferPointer { arena in
            body(UnsafeBufferPointer(rebasing: arena[Int(slot.keyStart)..<Int(slot.keyStart) + Int(slot.keyCount)]))
        }
    }

    /// First slot index from `start` on whose key is ≥ `key`, and whether it equals (every key
    /// before `start` must be below `key`).
    @inline(__always)
    func entryIndex(for key: UnsafeBufferPointer<UInt8>, from start: Int) -> (index: Int, found: Bool) {
        let (slots, arena) = leafStorage
        return withHints { hints in TreeNode.search(slots, hints, hintOffset, prefixHint, entryBytes, arena, key, from: start) }
    }

    /// Orders the key of slot `lhsIndex` of `lhs` against the key of slot `rhsIndex` of `rhs`.
    @inline(__always)
    static func compareKeys(
        _ lhs: Unmanaged<TreeNode>, _ lhsIndex: Int, _ rhs: Unmanaged<TreeNode>, _ rhsIndex: Int
    ) -> Int {
        lhs._withUnsafeGuaranteedRef { left in
            rhs._withUnsafeGuaranteedRef { right in
                left.withKey(at: lhsIndex) { leftKey in
                    right.withKey(at: rhsIndex) { ByteOrder.compare(leftKey, 0, leftKey.count, $0) }
                }
            }
        }
    }

    /// Arena bytes slot `index` uses (its key, and its value when inline).
    @inline(__always)
    func arenaBytes(of index: Int) -> Int {
        let slot = slots[index]
        return Int(slot.keyCount) + (slot.valueKind == LeafSlot.inline ? Int(slot.valueCount) : 0)
    }

    /// Arena bytes `entry` will use once stored (`makeSlot`): its key, and its value when inline.
    static func arenaBytes(of entry: VersionedEntry) -> Int {
        entry.key.count + (entry.value.map { storesInline($0.count) ? $0.count : 0 } ?? 0)
    }

    /// Records the arena bytes per slot of a leaf just laid out in slot order (`entryBytes`).
    func noteLayout() {
        entryBytes = slots.isEmpty ? 0 : arena.count / slots.count
    }

    /// Appends a copy of slot `index` of `source` (keys must arrive in order; hints are left to
    /// `rebuildLeafHints`). Key and inline value bytes are copied, side arrays shared.
    func appendCopy(of index: Int, in source: TreeNode) {
        var slot = source.slots[index]
        let keyStart = Int(slot.keyStart)
        let keyCount = Int(slot.keyCount)
        source.arena.withUnsafeBufferPointer { bytes in
            slot.keyStart = UInt32(arena.count)
            if slot.valueKind == LeafSlot.inline && Int(slot.valueStart) == keyStart + keyCount {
                // Key and value side by side (as `makeSlot` stores them): one copy.
                arena.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[keyStart..<keyStart + keyCount + Int(slot.valueCount)]))
                slot.valueStart = slot.keyStart + UInt32(keyCount)
                return
            }
            arena.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[keyStart..<keyStart + keyCount]))
            switch slot.valueKind {
            case LeafSlot.inline:
                let valueStart = Int(slot.valueStart)
                slot.valueStart = UInt32(arena.count)
                arena.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[valueStart..<valueStart + Int(slot.valueCount)]))
            case LeafSlot.external:
                let value = source.externals[Int(slot.valueStart)]
                slot.valueStart = UInt32(externals.count)
                externals.append(value)
            default:
                break
            }
        }
        if slot.history >= 0 {
            let history = source.histories[Int(slot.history)]
            slot.history = Int32(histories.count)
            histories.append(history)
        }
        slots.append(slot)
    }

    /// Sets `hintOffset` to the prefix all keys share and recomputes every slot's hint (for a
    /// leaf built by appending).
    func rebuildLeafHints() {
        noteLayout()
        removeAllHints()
        guard let first = slots.first, let last = slots.last else {
            hintOffset = 0
            prefixHint = 0
            return
        }
        arena.withUnsafeBufferPointer { arena in
            // Keys are sorted, so the first and last share what all of them share.
            let limit = Swift.min(Int(first.keyCount), Int(last.keyCount))
            var shared = 0
            while shared < limit && arena[Int(first.keyStart) + shared] == arena[Int(last.keyStart) + shared] { shared += 1 }
            hintOffset = shared
            prefixHint = TreeNode.hint(arena, Int(first.keyStart), Swift.min(shared, 8), 0)
            for slot in slots { appendHint(TreeNode.hint(arena, Int(slot.keyStart), Int(slot.keyCount), shared)) }
        }
    }
}
