import CEmulatorLinux
import Glibc

/// The fields of a tree node: the head of its allocation, which the node's hints follow.
/// Fields a search reads come first.
struct TreeNodeFields {
    let isLeaf: Bool
    /// Number of hints (one per leaf slot, or per separator of an internal node).
    var hintCount = 0
    /// A length every key of the leaf shares a prefix of (their common prefix or shorter).
    var hintOffset = 0
    /// The first (up to 8) bytes of the `hintOffset` bytes every key (leaf) or separator
    /// (internal node) shares, as a hint: a search checks a key against that prefix without
    /// reading the arena or the slots.
    var prefixHint: UInt64 = 0
    /// Arena bytes per slot when the leaf was last laid out in slot order (built, split off,
    /// merged or compacted): where a search guesses a found key's bytes are, to ask for them before its
    /// slot says. Only a guess, so it is not kept up to date: a wrong one wastes one prefetch.
    var entryBytes = 0
    // Internal payload (empty for leaves).
    var children: [TreeNode] = []
    // Leaf payload (empty for internal nodes).
    var slots: [LeafSlot] = []
    /// Key and small value bytes (leaves), or the separators' bytes (internal nodes).
    var arena: [UInt8] = []
    /// End offsets in `arena` of the separators: separator `i` ≤ every key in `children[i + 1]`
    /// and > every key in `children[i]`. Packed for the same reason as leaves.
    var separatorEnds: [UInt32] = []
    /// Values larger than `inlineValueLimit`, referenced by `LeafSlot.valueStart`.
    var externals = LeafSideArray<[UInt8]>()
    /// Older versions, oldest first, referenced by `LeafSlot.history`.
    var histories = LeafSideArray<VersionHistory>()
    /// Arena bytes no slot refers to any more.
    var garbage = 0
}

/// A node of the copy-on-write B+tree.
///
/// Leaves are packed so that copying one (which every commit does for each leaf it touches)
/// is a few memcpys, not a retain per entry: fixed-size `LeafSlot`s plus one byte arena for
/// keys and small values. Large values and version histories live in side arrays, in chunks
/// (`LeafSideArray`), so that changing one of them in a copy copies one chunk, not all.
///
/// A node is one allocation holding its fields and, right after them, its hints (per slot or
/// separator, the 8 key bytes after `hintOffset`; see `TreeNode+Hints`): a search reads the
/// node and the hints it compares from adjacent cache lines, which a descent asks for together
/// (`prefetch`) as soon as it knows the node, so the two are one wait on memory, not two.
///
/// Safety of `@unchecked Sendable`: a node reachable from a published root (the engine head or
/// any snapshot) is never mutated. Commits mutate a node only after `isKnownUniquelyReferenced`
/// proves the commit's working tree is its sole owner, and copy it otherwise (path copying).
final class TreeNode: @unchecked Sendable {
    // No stored properties: the fields and the hints are the allocation's tail, laid out by
    // `ManagedBufferPointer` (`make`). They are reached through pointers: no dynamic exclusivity
    // check (one costs a runtime call per access, over 15% of commit and read time) and no copy
    // of a field on a read. No two accesses to one node's field can overlap, since a node is
    // either published and only read, or private to the one committing thread.
    private typealias Storage = ManagedBufferPointer<TreeNodeFields, UInt64>

    /// Never called: nodes are made by `make`.
    private init() {}

    deinit { _ = Storage(unsafeBufferObject: self).withUnsafeMutablePointerToHeader { $0.deinitialize(count: 1) } }

    // The two addresses below outlive the closures that hand them out: a Swift object never
    // moves, so they are valid for as long as the node lives.
    @inline(__always)
    private var fields: UnsafeMutablePointer<TreeNodeFields> {
        Storage(unsafeBufferObject: self).withUnsafeMutablePointerToHeader { $0 }
    }

    @inline(__always)
    private var hintBase: UnsafeMutablePointer<UInt64> {
        Storage(unsafeBufferObject: self).withUnsafeMutablePointerToElements { $0 }
    }

    /// The address of one of the fields (a constant offset from the node).
    @inline(__always)
    private func field<Value>(_ path: WritableKeyPath<TreeNodeFields, Value>) -> UnsafeMutablePointer<Value> {
        fields.pointer(to: path).unsafelyUnwrapped
    }

    var isLeaf: Bool { fields.pointee.isLeaf }
    var children: [TreeNode] {
        unsafeAddress { UnsafePointer(field(\.children)) }
        unsafeMutableAddress { field(\.children) }
    }
    var separatorEnds: [UInt32] {
        unsafeAddress { UnsafePointer(field(\.separatorEnds)) }
        unsafeMutableAddress { field(\.separatorEnds) }
    }
    var arena: [UInt8] {
        unsafeAddress { UnsafePointer(field(\.arena)) }
        unsafeMutableAddress { field(\.arena) }
    }
    var hintOffset: Int {
        unsafeAddress { UnsafePointer(field(\.hintOffset)) }
        unsafeMutableAddress { field(\.hintOffset) }
    }
    var prefixHint: UInt64 {
        unsafeAddress { UnsafePointer(field(\.prefixHint)) }
        unsafeMutableAddress { field(\.prefixHint) }
    }
    var entryBytes: Int {
        unsafeAddress { UnsafePointer(field(\.entryBytes)) }
        unsafeMutableAddress { field(\.entryBytes) }
    }
    var slots: [LeafSlot] {
        unsafeAddress { UnsafePointer(field(\.slots)) }
        unsafeMutableAddress { field(\.slots) }
    }
    var externals: LeafSideArray<[UInt8]> {
        unsafeAddress { UnsafePointer(field(\.externals)) }
        unsafeMutableAddress { field(\.externals) }
    }
    var histories: LeafSideArray<VersionHistory> {
        unsafeAddress { UnsafePointer(field(\.histories)) }
        unsafeMutableAddress { field(\.histories) }
    }
    var garbage: Int {
        unsafeAddress { UnsafePointer(field(\.garbage)) }
        unsafeMutableAddress { field(\.garbage) }
    }

    /// Room for hints in every node. A leaf holds `maxLeafEntries + 1` slots for a moment
    /// before it splits; an internal node `maxChildren + 2` separators while a merge puts in
    /// the (up to four) leaves one rebuilt leaf becomes, before the node splits.
    static let hintCapacity = maxChildren + 4

    private static func make(_ fields: TreeNodeFields) -> TreeNode {
        unsafeDowncast(Storage(bufferClass: TreeNode.self, minimumCapacity: hintCapacity) { _, _ in fields }.buffer, to: TreeNode.self)
    }

    /// An empty leaf.
    static func leaf() -> TreeNode { make(TreeNodeFields(isLeaf: true)) }

    /// An internal node over `children`, with `separators[i]` between `children[i]` and
    /// `children[i + 1]`.
    static func node(children: [TreeNode], separators: [[UInt8]]) -> TreeNode {
        var fields = TreeNodeFields(isLeaf: false, children: children)
        for separator in separators {
            fields.arena.append(contentsOf: separator)
            fields.separatorEnds.append(UInt32(fields.arena.count))
        }
        let node = make(fields)
        node.rebuildSeparatorHints()
        return node
    }

    // MARK: Hints

    var hintCount: Int { fields.pointee.hintCount }

    /// Calls `body` with the node's hints, in place.
    @inline(__always)
    func withHints<R>(_ body: (UnsafeBufferPointer<UInt64>) -> R) -> R {
        body(UnsafeBufferPointer(start: hintBase, count: hintCount))
    }

    /// The storage of `slots` and `arena`, not retained. A closure over either array retains it:
    /// an atomic write to another cache line, which a read of a large tree waits for before it
    /// goes on. The pointers outlive the closures that hand them out (against the letter of
    /// `withUnsafeBufferPointer`): an array's storage stays where it is until the array is
    /// changed or freed, and the caller holds the node, which owns both arrays, and does not
    /// change it while it uses them.
    @inline(__always)
    var leafStorage: (slots: UnsafeBufferPointer<LeafSlot>, arena: UnsafeBufferPointer<UInt8>) {
        (slots.withUnsafeBufferPointer { $0 }, arena.withUnsafeBufferPointer { $0 })
    }

    /// A copy of the hints (for checks and tests).
    var hintValues: [UInt64] { withHints { Array($0) } }

    func setHint(_ hint: UInt64, at index: Int) {
        precondition(index >= 0 && index < hintCount, "hint index out of range")
        hintBase[index] = hint
    }

    func insertHint(_ hint: UInt64, at index: Int) {
        let count = hintCount
        precondition(index >= 0 && index <= count && count < TreeNode.hintCapacity, "hint insert out of range")
        let hints = hintBase
        _ = memmove(hints + index + 1, hints + index, 8 * (count - index))
        hints[index] = hint
        fields.pointee.hintCount = count + 1
    }

    func appendHint(_ hint: UInt64) {
        let count = hintCount
        precondition(count < TreeNode.hintCapacity, "too many hints")
        hintBase[count] = hint
        fields.pointee.hintCount = count + 1
    }

    func removeHints(_ range: Range<Int>) {
        let count = hintCount
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "hint range out of range")
        let hints = hintBase
        _ = memmove(hints + range.lowerBound, hints + range.upperBound, 8 * (count - range.upperBound))
        fields.pointee.hintCount = count - range.count
    }

    func removeAllHints() { fields.pointee.hintCount = 0 }

    /// Asks for the cache lines of the node's fields and hints at once (a descent calls this as
    /// soon as it knows the node, before it reads it).
    @inline(__always)
    static func prefetch(_ node: Unmanaged<TreeNode>) {
        // Address arithmetic only: nothing of the node is read here.
        let end = node._withUnsafeGuaranteedRef { UnsafeRawPointer($0.hintBase + maxLeafEntries) }
        var line = Int(bitPattern: node.toOpaque()) & ~63
        while line < Int(bitPattern: end) {
            cemu_prefetch(UnsafeRawPointer(bitPattern: line))
            line += 64
        }
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
            var copiedFields = copiedHeader()
            copiedFields.children = copiedChildren
            copiedFields.arena = arena
            copiedFields.separatorEnds = separatorEnds
            return copy(with: copiedFields)
        }
        let needsRewrite = (garbage > 256 && garbage * 2 > arena.count) || (horizon > 0 && holdsPrunable(at: horizon))
        guard needsRewrite else {
            // Copy with headroom so this commit's inserts do not reallocate again.
            var copiedSlots: [LeafSlot] = []
            copiedSlots.reserveCapacity(slots.count + 4)
            copiedSlots.append(contentsOf: slots)
            var copiedArena: [UInt8] = []
            copiedArena.reserveCapacity(arena.count + 384)
            copiedArena.append(contentsOf: arena)
            var copiedFields = copiedHeader()
            copiedFields.slots = copiedSlots
            copiedFields.arena = copiedArena
            copiedFields.externals = externals
            copiedFields.histories = histories
            return copy(with: copiedFields)
        }
        let copied = TreeNode.leaf()
        copied.slots.reserveCapacity(slots.count + 4)
        copied.arena.reserveCapacity(arena.count - garbage + 256)
        for index in slots.indices {
            var entry = entry(at: index)
            if horizon > 0 && !entry.prune(horizon: horizon) { continue }
            copied.append(entry)
        }
        copied.noteLayout()
        return copied
    }

    /// New fields with this node's kind and header (hint count, hint offset, prefix hint, entry
    /// bytes, garbage) and no arrays: a copy sets the arrays it keeps or copies one by one, since
    /// a copy of all the fields would retain every array, the other kind's too.
    private func copiedHeader() -> TreeNodeFields {
        let source = fields
        var copied = TreeNodeFields(isLeaf: source.pointee.isLeaf)
        copied.hintCount = source.pointee.hintCount
        copied.hintOffset = source.pointee.hintOffset
        copied.prefixHint = source.pointee.prefixHint
        copied.entryBytes = source.pointee.entryBytes
        copied.garbage = source.pointee.garbage
        return copied
    }

    /// True if pruning at `horizon` would change an entry of this leaf (`VersionedEntry.prune`):
    /// its oldest version was superseded at or before `horizon`, or it is a tombstone without
    /// history. Entries that merely keep history (every overwritten document, for as long as
    /// history is kept) do not make a copy rebuild the leaf entry by entry.
    private func holdsPrunable(at horizon: CommitTime) -> Bool {
        let slots = self.slots
        for slot in slots where slot.isPrunable {
            guard slot.history >= 0, case let versions = history(of: slot), !versions.isEmpty else {
                if slot.valueKind == LeafSlot.tombstone { return true }
                continue
            }
            let supersededAt = versions.count > 1 ? versions[1].time : slot.updateTime
            if supersededAt <= horizon { return true }
        }
        return false
    }

    /// A node with `fields` (this node's, some arrays replaced) and this node's hints.
    private func copy(with fields: TreeNodeFields) -> TreeNode {
        let copied = TreeNode.make(fields)
        copied.hintBase.update(from: hintBase, count: hintCount)  // (disjoint)
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
            withHints { hints in
                arena.withUnsafeBufferPointer { arena in TreeNode.childSearch(ends, hints, hintOffset, arena, key) }
            }
        }
    }

    /// `childIndex(for:)` from the hints and `prefixHint` alone (`hintOffset` ≤ 8); nil when
    /// the key's hint ties with a separator's and only the separators' bytes can tell.
    @inline(__always)
    private func childIndexByHints(_ key: UnsafeBufferPointer<UInt8>) -> Int? {
        let offset = hintOffset
        return withHints { hints -> Int? in
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
