/// A node of the copy-on-write B+tree.
///
/// Leaves are packed so that copying one (which every commit does for each leaf it touches)
/// is a few memcpys, not a retain per entry: fixed-size `LeafSlot`s plus one byte arena for
/// keys and small values. Large values and version histories live in side arrays.
///
/// Safety of `@unchecked Sendable`: a node reachable from a published root (the engine head or
/// any snapshot) is never mutated. Commits mutate a node only after `isKnownUniquelyReferenced`
/// proves the commit's working tree is its sole owner, and copy it otherwise (path copying).
final class TreeNode: @unchecked Sendable {
    // Leaf payload (empty for internal nodes).
    var slots: [LeafSlot]
    var arena: [UInt8]
    /// Values larger than `inlineValueLimit`, referenced by `LeafSlot.valueStart`.
    var externals: [[UInt8]]
    /// Older versions, oldest first, referenced by `LeafSlot.history`.
    var histories: [[EntryVersion]]
    /// Arena bytes no slot refers to any more.
    var garbage: Int

    // Internal payload (empty for leaves).
    var children: [TreeNode]
    /// End offsets in `arena` of the separators: separator `i` ≤ every key in `children[i + 1]`
    /// and > every key in `children[i]`. Packed for the same reason as leaves.
    var separatorEnds: [UInt32]
    let isLeaf: Bool

    init(leafSlots: [LeafSlot] = [], arena: [UInt8] = [], externals: [[UInt8]] = [], histories: [[EntryVersion]] = []) {
        self.slots = leafSlots
        self.arena = arena
        self.externals = externals
        self.histories = histories
        self.garbage = 0
        self.children = []
        self.separatorEnds = []
        self.isLeaf = true
    }

    init(children: [TreeNode], separators: [[UInt8]]) {
        self.slots = []
        self.arena = []
        self.externals = []
        self.histories = []
        self.garbage = 0
        self.children = children
        self.separatorEnds = []
        self.isLeaf = false
        for separator in separators {
            arena.append(contentsOf: separator)
            separatorEnds.append(UInt32(arena.count))
        }
    }

    private init(children: [TreeNode], arena: [UInt8], separatorEnds: [UInt32]) {
        self.slots = []
        self.arena = arena
        self.externals = []
        self.histories = []
        self.garbage = 0
        self.children = children
        self.separatorEnds = separatorEnds
        self.isLeaf = false
    }

    static let maxLeafEntries = 64
    static let maxChildren = 64
    /// Values up to this size are copied into the leaf arena; larger ones are shared arrays.
    static let inlineValueLimit = 256

    /// A private copy; a leaf copy also drops versions older than `horizon` and compacts its arena.
    func copy(horizon: CommitTime) -> TreeNode {
        guard isLeaf else {
            var copiedChildren: [TreeNode] = []
            copiedChildren.reserveCapacity(children.count + 2)
            copiedChildren.append(contentsOf: children)
            var copiedEnds: [UInt32] = []
            copiedEnds.reserveCapacity(separatorEnds.count + 2)
            copiedEnds.append(contentsOf: separatorEnds)
            var copiedArena: [UInt8] = []
            copiedArena.reserveCapacity(arena.count + 128)
            copiedArena.append(contentsOf: arena)
            return TreeNode(children: copiedChildren, arena: copiedArena, separatorEnds: copiedEnds)
        }
        var needsRewrite = garbage > 256 && garbage * 2 > arena.count
        if horizon > 0 && !needsRewrite {
            for slot in slots where slot.history >= 0 || slot.valueKind == LeafSlot.tombstone {
                needsRewrite = true
                break
            }
        }
        guard needsRewrite else {
            // Copy with headroom so this commit's inserts do not reallocate again.
            var copiedSlots: [LeafSlot] = []
            copiedSlots.reserveCapacity(slots.count + 4)
            copiedSlots.append(contentsOf: slots)
            var copiedArena: [UInt8] = []
            copiedArena.reserveCapacity(arena.count + 384)
            copiedArena.append(contentsOf: arena)
            let copied = TreeNode(leafSlots: copiedSlots, arena: copiedArena, externals: externals, histories: histories)
            copied.garbage = garbage
            return copied
        }
        let copied = TreeNode()
        copied.slots.reserveCapacity(slots.count + 4)
        copied.arena.reserveCapacity(arena.count - garbage + 256)
        for index in slots.indices {
            var entry = entry(at: index)
            if horizon > 0 && !entry.prune(horizon: horizon) { continue }
            copied.append(entry)
        }
        return copied
    }

    var isEmpty: Bool { isLeaf ? slots.isEmpty : children.isEmpty }
    var count: Int { slots.count }

    /// Index of the child that may hold `key`.
    @inline(__always)
    func childIndex(for key: [UInt8]) -> Int {
        separatorEnds.withUnsafeBufferPointer { ends in
            arena.withUnsafeBufferPointer { arena in
                key.withUnsafeBufferPointer { key in
                    var low = 0
                    var high = ends.count
                    while low < high {
                        let mid = (low + high) >> 1
                        let start = mid == 0 ? 0 : Int(ends[mid - 1])
                        let order = ByteOrder.compare(arena, start, Int(ends[mid]) - start, key)
                        if order <= 0 { low = mid + 1 } else { high = mid }
                    }
                    return low
                }
            }
        }
    }

    var separatorCount: Int { separatorEnds.count }

    /// The bytes of separator `index`.
    func separator(at index: Int) -> [UInt8] {
        let start = index == 0 ? 0 : Int(separatorEnds[index - 1])
        return Array(arena[start..<Int(separatorEnds[index])])
    }

    func insertSeparator(_ bytes: [UInt8], at index: Int) {
        let start = index == 0 ? 0 : Int(separatorEnds[index - 1])
        arena.insert(contentsOf: bytes, at: start)
        separatorEnds.insert(UInt32(start), at: index)
        for position in index..<separatorEnds.count { separatorEnds[position] += UInt32(bytes.count) }
    }

    func removeSeparator(at index: Int) {
        let start = index == 0 ? 0 : Int(separatorEnds[index - 1])
        let end = Int(separatorEnds[index])
        arena.removeSubrange(start..<end)
        separatorEnds.remove(at: index)
        for position in index..<separatorEnds.count { separatorEnds[position] -= UInt32(end - start) }
    }

    /// First slot index whose key is ≥ `key`, and whether it equals.
    @inline(__always)
    func entryIndex(for key: [UInt8]) -> (index: Int, found: Bool) {
        slots.withUnsafeBufferPointer { slots in
            arena.withUnsafeBufferPointer { arena in
                key.withUnsafeBufferPointer { key in
                    var low = 0
                    var high = slots.count
                    while low < high {
                        let mid = (low + high) >> 1
                        let slot = slots[mid]
                        let order = ByteOrder.compare(
                            arena, Int(slot.keyStart), Int(slot.keyCount), key)
                        if order == 0 { return (mid, true) }
                        if order < 0 { low = mid + 1 } else { high = mid }
                    }
                    return (low, false)
                }
            }
        }
    }
}
