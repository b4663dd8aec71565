import CEmulatorLinux
import Glibc

/// Key hints: a leaf keeps, per slot, the 8 key bytes that follow a prefix all its keys share
/// (`hintOffset`), big-endian in a `UInt64`, zero-padded. Within the leaf, hint order agrees
/// with key order wherever two hints differ, so a search compares hints (one small
/// contiguous array) and reads key bytes from the arena only when hints tie. For document ids
/// under one collection that is usually only the final match, instead of one arena read per
/// probe. Keeping the hint array in step with `slots` is the job of every slot mutation.
/// Internal nodes keep the same kind of hints for their separators (rebuilt on every separator
/// change, which only splits and range cuts make).
extension TreeNode {
    /// The hint of `key` at `offset` (big-endian, zero-padded).
    @inline(__always)
    static func hint(_ key: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int, _ offset: Int) -> UInt64 {
        guard count > offset, let base = key.baseAddress else { return 0 }
        if count - offset >= 8 {
            return UInt64(bigEndian: UnsafeRawPointer(base + start + offset).loadUnaligned(as: UInt64.self))
        }
        var value: UInt64 = 0
        for index in offset..<count { value = value << 8 | UInt64(base[start + index]) }
        return value << (8 * UInt64(8 - (count - offset)))
    }

    static func hint(_ key: [UInt8], _ offset: Int) -> UInt64 {
        key.withUnsafeBufferPointer { hint($0, 0, $0.count, offset) }
    }

    /// How the first `shared` bytes of `key` order against a node's `prefixHint` (its keys' or
    /// separators' shared prefix, at most 8 bytes): 1 if the prefix is above, -1 if below, 0 if
    /// they match as far as the key goes. Big-endian, zero-padded words order as the bytes do.
    @inline(__always)
    static func orderOfPrefix(_ prefix: UInt64, against key: UnsafeBufferPointer<UInt8>, _ shared: Int) -> Int {
        let theirs = hint(key, 0, shared, 0)
        return prefix > theirs ? 1 : prefix < theirs ? -1 : 0
    }

    /// Lowers `hintOffset` (recomputing every hint) when `key` does not share the leaf's prefix.
    func admitHint(for key: [UInt8]) {
        guard let first = slots.first else {
            hintOffset = key.count
            prefixHint = key.withUnsafeBufferPointer { TreeNode.hint($0, 0, Swift.min($0.count, 8), 0) }
            return
        }
        let shared = arena.withUnsafeBufferPointer { arena in
            key.withUnsafeBufferPointer { key in
                var length = 0
                let limit = Swift.min(hintOffset, key.count, Int(first.keyCount))
                let start = Int(first.keyStart)
                while length < limit && arena[start + length] == key[length] { length += 1 }
                return length
            }
        }
        guard shared < hintOffset else { return }
        hintOffset = shared
        if shared < 8 { prefixHint &= shared == 0 ? 0 : ~UInt64(0) << (8 * UInt64(8 - shared)) }
        arena.withUnsafeBufferPointer { arena in
            for index in slots.indices {
                let slot = slots[index]
                setHint(TreeNode.hint(arena, Int(slot.keyStart), Int(slot.keyCount), shared), at: index)
            }
        }
    }

    /// First slot index whose key is ≥ `key`, and whether it equals (see the type's notes).
    @inline(__always)
    static func search(
        _ slots: UnsafeBufferPointer<LeafSlot>, _ hints: UnsafeBufferPointer<UInt64>, _ offset: Int, _ prefix: UInt64,
        _ entryBytes: Int, _ arena: UnsafeBufferPointer<UInt8>, _ key: UnsafeBufferPointer<UInt8>, from start: Int = 0
    ) -> (index: Int, found: Bool) {
        guard start < slots.count, let first = slots.first, let arenaBase = arena.baseAddress else {
            return (Swift.min(start, slots.count), false)
        }
        // Every key here starts with the same `offset` bytes; a key that does not is below or
        // above all. Up to 8 of them are in `prefix`, so only a longer shared prefix reads the
        // first key from the arena.
        let shared = Swift.min(offset, key.count)
        if shared > 0 {
            let order: Int
            if offset <= 8 {
                order = orderOfPrefix(prefix, against: key, shared)
            } else if let keyBase = key.baseAddress {
                order = Int(memcmp(arenaBase + Int(first.keyStart), keyBase, shared))
            } else {
                order = 0
            }
            if order > 0 { return (start, false) }
            if order < 0 { return (slots.count, false) }
        }
        if key.count < offset { return (start, false) }  // a proper prefix of every key here
        let target = hint(key, 0, key.count, offset)
        // A linear scan: there are at most 68 hints, and independent sequential loads
        // overlap their cache misses where a binary search would wait for each probe in turn
        // (a descent asked for all of their lines with the node's: `TreeNode.prefetch`).
        var index = start
        while index < hints.count && hints[index] < target { index += 1 }
        if index < hints.count && hints[index] == target {
            // The key's bytes are found through its slot, itself a miss. A leaf a merge built
            // holds its keys in the arena in slot order, so start loading where key `index`
            // would be if every entry took the same room (`entryBytes`): the two misses then
            // overlap, where a wrong guess costs only the line loaded for nothing (a prefetch
            // never faults, even past the arena).
            cemu_prefetch(arenaBase + index * entryBytes)
        }
        while index < hints.count && hints[index] == target {
            let slot = slots[index]
            let order = ByteOrder.compare(arena, Int(slot.keyStart), Int(slot.keyCount), key)
            if order == 0 { return (index, true) }
            if order > 0 { break }
            index += 1
        }
        return (index, false)
    }

    /// Recomputes an internal node's separator hints and their shared prefix length.
    func rebuildSeparatorHints() {
        removeAllHints()
        hintOffset = 0
        prefixHint = 0
        let count = separatorEnds.count
        guard count > 0 else { return }
        separatorEnds.withUnsafeBufferPointer { ends in
            arena.withUnsafeBufferPointer { arena in
                // Separators are sorted, so the first and last share what all of them share.
                let lastStart = count == 1 ? 0 : Int(ends[count - 2])
                let limit = Swift.min(Int(ends[0]), Int(ends[count - 1]) - lastStart)
                var shared = 0
                while shared < limit && arena[shared] == arena[lastStart + shared] { shared += 1 }
                hintOffset = shared
                prefixHint = TreeNode.hint(arena, 0, Swift.min(shared, 8), 0)  // separator 0 starts at 0
                for index in 0..<count {
                    let start = index == 0 ? 0 : Int(ends[index - 1])
                    appendHint(TreeNode.hint(arena, start, Int(ends[index]) - start, shared))
                }
            }
        }
    }

    /// Number of separators ≤ `key`: the index of the child that may hold it.
    @inline(__always)
    static func childSearch(
        _ ends: UnsafeBufferPointer<UInt32>, _ hints: UnsafeBufferPointer<UInt64>, _ offset: Int,
        _ arena: UnsafeBufferPointer<UInt8>, _ key: UnsafeBufferPointer<UInt8>
    ) -> Int {
        guard !ends.isEmpty, let arenaBase = arena.baseAddress else { return 0 }
        let shared = Swift.min(offset, key.count)
        if shared > 0, let keyBase = key.baseAddress {
            // Separator 0 starts at arena offset 0.
            let order = memcmp(arenaBase, keyBase, shared)
            if order > 0 { return 0 }
            if order < 0 { return ends.count }
        }
        if key.count < offset { return 0 }  // a proper prefix of every separator
        let target = hint(key, 0, key.count, offset)
        var index = 0
        while index < hints.count && hints[index] < target { index += 1 }
        while index < hints.count && hints[index] == target {
            let start = index == 0 ? 0 : Int(ends[index - 1])
            if ByteOrder.compare(arena, start, Int(ends[index]) - start, key) > 0 { break }
            index += 1
        }
        return index
    }
}
