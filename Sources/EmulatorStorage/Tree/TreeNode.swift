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
    // Dynamic exclusivity checks are off for these fields (they cost a runtime call per access,
    // over 15% of commit and read time): no two accesses to one node's field can overlap, since
    // a node is either published and only read, or private to the one committing thread.
    // Fields a search reads come first, so a descent touches few cache lines per node.
    let isLeaf: Bool
    // Internal payload (empty for leaves).
    @exclusivity(unchecked) var children: [TreeNode]
    /// End offsets in `arena` of the separators: separator `i` ≤ every key in `children[i + 1]`
    /// and > every key in `children[i]`. Packed for the same reason as leaves.
    @exclusivity(unchecked) var separatorEnds: [UInt32]
    @exclusivity(unchecked) var arena: [UInt8]

    // Leaf payload (empty for internal nodes).
    /// Per slot, the 8 key bytes after `hintOffset` (see `TreeNode+Hints`): a leaf search
    /// compares these and reads the arena only on a tie.
    @exclusivity(unchecked) var hints: [UInt64]
    /// A length every key of the leaf shares a prefix of (their common prefix or shorter).
    @exclusivity(unchecked) var hintOffset: Int
    /// The first (up to 8) bytes of the `hintOffset` bytes every key (leaf) or separator
    /// (internal node) shares, as a hint: a search checks a key against that prefix without
    /// reading the arena or the slots.
    @exclusivity(unchecked) var prefixHint: UInt64 = 0
    @exclusivity(unchecked) var slots: [LeafSlot]
    /// Values larger than `inlineValueLimit`, referenced by `LeafSlot.valueStart`.
    @exclusivity(unchecked) var externals: [[UInt8]]
    /// Older versions, oldest first, referenced by `LeafSlot.history`.
    @exclusivity(unchecked) var histories: [[EntryVersion]]
    /// Arena bytes no slot refers to any more.
    @exclusivity(unchecked) var garbage: Int

    init(
        leafSlots: [LeafSlot] = [], hints: [UInt64] = [], hintOffset: Int = 0, prefixHint: UInt64 = 0, arena: [UInt8] = [],
        externals: [[UInt8]] = [], histories: [[EntryVersion]] = []
    ) {
        self.slots = leafSlots
        self.hints = hints
        self.hintOffset = hintOffset
        self.prefixHint = prefixHint
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
        self.hints = []
        self.hintOffset = 0
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
        rebuildSeparatorHints()
    }

    private init(
        children: [TreeNode], arena: [UInt8], separatorEnds: [UInt32], hints: [UInt64], hintOffset: Int, prefixHint: UInt64
    ) {
        self.slots = []
        self.hints = hints
        self.hintOffset = hintOffset
        self.prefixHint = prefixHint
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

    /// True if a value of `count` bytes goes into the leaf arena (else into `externals`).
    @inline(__always)
    static func storesInline(_ count: Int) -> Bool { count <= inlineValueLimit }

    /// A private copy; a leaf copy also drops versions older than `horizon` and compacts its arena.
    func copy(horizon: CommitTime) -> TreeNode {
        guard isLeaf else {
            // Separators change only on splits and cuts, so the copy shares them (copy-on-write).
            var copiedChildren: [TreeNode] = []
            copiedChildren.reserveCapacity(children.count + 2)
            copiedChildren.append(contentsOf: children)
            return TreeNode(
                children: copiedChildren, arena: arena, separatorEnds: separatorEnds, hints: hints,
                hintOffset: hintOffset, prefixHint: prefixHint)
        }
        let needsRewrite = (garbage > 256 && garbage * 2 > arena.count) || (horizon > 0 && slots.contains(where: \.isPrunable))
        guard needsRewrite else {
            // Copy with headroom so this commit's inserts do not reallocate again.
            var copiedSlots: [LeafSlot] = []
            copiedSlots.reserveCapacity(slots.count + 4)
            copiedSlots.append(contentsOf: slots)
            var copiedArena: [UInt8] = []
            copiedArena.reserveCapacity(arena.count + 384)
            copiedArena.append(contentsOf: arena)
            var copiedHints: [UInt64] = []
            copiedHints.reserveCapacity(hints.count + 4)
            copiedHints.append(contentsOf: hints)
            let copied = TreeNode(
                leafSlots: copiedSlots, hints: copiedHints, hintOffset: hintOffset, prefixHint: prefixHint, arena: copiedArena,
                externals: externals, histories: histories)
            copied.garbage = garbage
            return copied
        }
        let copied = TreeNode()
        copied.slots.reserveCapacity(slots.count + 4)
        copied.hints.reserveCapacity(slots.count + 4)
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
        key.withUnsafeBufferPointer { childIndex(for: $0) }
    }

    /// Index of the child that may hold `key`. Reads only the hints unless the key ties with a
    /// separator's hint or the separators share more than 8 bytes (each array read is another
    /// cache line on a descent); then the full search (`childSearch`) reads the arena.
    @inline(__always)
    func childIndex(for key: UnsafeBufferPointer<UInt8>) -> Int {
        if hintOffset <= 8, let index = childIndexByHints(key) { return index }
        return separatorEnds.withUnsafeBufferPointer { ends in
            hints.withUnsafeBufferPointer { hints in
                arena.withUnsafeBufferPointer { arena in TreeNode.childSearch(ends, hints, hintOffset, arena, key) }
            }
        }
    }

    /// `childIndex(for:)` from the hints and `prefixHint` alone (`hintOffset` ≤ 8); nil when
    /// the key's hint ties with a separator's and only the separators' bytes can tell.
    @inline(__always)
    private func childIndexByHints(_ key: UnsafeBufferPointer<UInt8>) -> Int? {
        let offset = hintOffset
        return hints.withUnsafeBufferPointer { hints -> Int? in
            guard !hints.isEmpty else { return 0 }
            let shared = Swift.min(offset, key.count)
            if shared > 0 {
                // (A key shorter than the prefix that matches it as far as it goes orders below
                // or equal: either way it belongs before every separator.)
                let order = TreeNode.orderOfPrefix(prefixHint, against: key, shared)
                if order > 0 { return 0 }
                if order < 0 { return hints.count }
            }
            if key.count < offset { return 0 }  // a proper prefix of every separator
            let target = TreeNode.hint(key, 0, key.count, offset)
            var index = 0
            while index < hints.count && hints[index] < target { index += 1 }
            return index < hints.count && hints[index] == target ? nil : index
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
        rebuildSeparatorHints()
    }

    func removeSeparator(at index: Int) {
        let start = index == 0 ? 0 : Int(separatorEnds[index - 1])
        let end = Int(separatorEnds[index])
        arena.removeSubrange(start..<end)
        separatorEnds.remove(at: index)
        for position in index..<separatorEnds.count { separatorEnds[position] -= UInt32(end - start) }
        rebuildSeparatorHints()
    }

    /// First slot index whose key is ≥ `key`, and whether it equals.
    @inline(__always)
    func entryIndex(for key: [UInt8]) -> (index: Int, found: Bool) {
        key.withUnsafeBufferPointer { entryIndex(for: $0, from: 0) }
    }

}
