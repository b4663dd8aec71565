/// The fixed-size part of one leaf entry; its bytes live in the leaf's arena (see `TreeNode`).
struct LeafSlot: Sendable {
    var keyStart: UInt32
    var keyCount: UInt32
    /// Arena offset of an inline value, or the index into `externals` of an external one.
    var valueStart: UInt32
    var valueCount: UInt32
    var valueKind: UInt8
    /// Index into the leaf's `histories`, or -1.
    var history: Int32
    var createTime: CommitTime
    var updateTime: CommitTime

    static let tombstone: UInt8 = 0
    static let inline: UInt8 = 1
    static let external: UInt8 = 2

    /// True if pruning at a horizon could change this entry: it keeps older versions, or it is a
    /// tombstone (which goes once its time has passed).
    var isPrunable: Bool { history >= 0 || valueKind == LeafSlot.tombstone }
}

extension TreeNode {
    /// The key bytes of slot `index`.
    func key(at index: Int) -> [UInt8] {
        // Through `leafStorage`: slicing the arena would retain it, an atomic write to its first
        // cache line, which a read of a large tree has not loaded and would wait for.
        let (slots, arena) = leafStorage
        let slot = slots[index]
        let start = Int(slot.keyStart)
        return Array(UnsafeBufferPointer(rebasing: arena[start..<start + Int(slot.keyCount)]))
    }

    /// The current value of slot `index` (nil for a tombstone).
    func value(at index: Int) -> [UInt8]? {
        let (slots, arena) = leafStorage
        let slot = slots[index]
        switch slot.valueKind {
        case LeafSlot.inline:
            let start = Int(slot.valueStart)
            return Array(UnsafeBufferPointer(rebasing: arena[start..<start + Int(slot.valueCount)]))
        case LeafSlot.external:
            return externals[Int(slot.valueStart)]
        default:
            return nil
        }
    }

    /// Slot `index` as a whole entry.
    func entry(at index: Int) -> VersionedEntry {
        entry(at: index, key: key(at: index))
    }

    /// Slot `index` as a whole entry, for a caller that holds its key's bytes as `key` (a search
    /// that found it): no copy of the key is made.
    func entry(at index: Int, key: [UInt8]) -> VersionedEntry {
        let slot = slots[index]
        var entry = VersionedEntry(key: key, value: value(at: index), createTime: slot.createTime, updateTime: slot.updateTime)
        if slot.history >= 0 { entry.history = history(of: slot) }
        return entry
    }

    /// The history of a slot whose `history` is set: as stored, with what was appended in place
    /// since (`VersionHistory.extended(before:)`).
    @inline(__always)
    func history(of slot: LeafSlot) -> VersionHistory {
        histories[Int(slot.history)].extended(before: slot.updateTime)
    }

    /// Appends an entry (keys must arrive in order).
    func append(_ entry: VersionedEntry) {
        insert(entry, at: slots.count)
    }

    func insert(_ entry: VersionedEntry, at index: Int) {
        admitHint(for: entry.key)
        if slots.count == slots.capacity {
            // Grow by half (at least 8 slots), not by doubling: less room left unused in leaves
            // that stop growing, and still a bounded number of copies while a leaf fills.
            let room = slots.count + Swift.max(8, slots.count / 2)
            slots.reserveCapacity(room)
        }
        reserveArena(entry.key.count)  // `storeValue` makes room for an inline value
        slots.insert(makeSlot(entry), at: index)
        insertHint(TreeNode.hint(entry.key, hintOffset), at: index)
    }

    /// Removes a run of slots at once.
    func removeSlots(_ range: Range<Int>) {
        for index in range { release(slots[index], keepingKey: false) }
        slots.removeSubrange(range)
        removeHints(range)
    }

    func remove(at index: Int) {
        release(slots[index], keepingKey: false)
        slots.remove(at: index)
        removeHints(index..<index + 1)
    }

    /// Replaces slot `index` (same key) with `entry`, reusing what did not change.
    func replace(at index: Int, with entry: VersionedEntry) {
        var slot = slots[index]
        let old = slot
        storeValue(entry.value, in: &slot, replacing: old)
        if entry.history.isEmpty {
            if old.history >= 0 { histories[Int(old.history)] = [] }
            slot.history = -1
        } else if old.history >= 0 {
            // A write that appended a version in place leaves the stored history as it is (the
            // new update time extends it on reads): changing it would copy a chunk of the
            // histories this copy of the leaf shares with the published one.
            if !histories[Int(old.history)].isPrefix(of: entry.history) { histories[Int(old.history)] = entry.history }
        } else {
            slot.history = Int32(histories.count)
            histories.append(entry.history)
        }
        slot.createTime = entry.createTime
        slot.updateTime = entry.updateTime
        slots[index] = slot
    }

    /// Moves slots `from...` into a new right sibling (their bytes copied as they are).
    func splitLeaf(at from: Int) -> TreeNode {
        let right = TreeNode.leaf()
        right.slots.reserveCapacity(slots.count - from + 8)
        var bytes = 0
        for index in from..<slots.count { bytes += arenaBytes(of: index) }
        right.arena.reserveCapacity(bytes + 512)
        for index in from..<slots.count {
            right.appendCopy(of: index, in: self)
            release(slots[index], keepingKey: false)
        }
        right.rebuildLeafHints()
        removeHints(from..<slots.count)
        slots.removeSubrange(from...)
        return right
    }

    func makeSlot(_ entry: VersionedEntry) -> LeafSlot {
        var slot = LeafSlot(
            keyStart: UInt32(arena.count), keyCount: UInt32(entry.key.count), valueStart: 0, valueCount: 0,
            valueKind: LeafSlot.tombstone, history: -1, createTime: entry.createTime, updateTime: entry.updateTime)
        arena.append(contentsOf: entry.key)
        storeValue(entry.value, in: &slot, replacing: nil)
        if !entry.history.isEmpty {
            slot.history = Int32(histories.count)
            histories.append(entry.history)
        }
        return slot
    }

    private func storeValue(_ value: [UInt8]?, in slot: inout LeafSlot, replacing old: LeafSlot?) {
        if let old {
            // Same bytes already stored: keep them.
            if let value, old.valueKind == LeafSlot.inline, Int(old.valueCount) == value.count {
                let start = Int(old.valueStart)
                if arena[start..<start + value.count].elementsEqual(value) { return }
            }
            if let value, old.valueKind == LeafSlot.external, !TreeNode.storesInline(value.count) {
                // A large value over a large value takes the old one's side-array slot: no hole
                // left behind, so a document rewritten again and again does not make its leaf
                // count garbage and get compacted every few copies.
                slot.valueStart = old.valueStart
                slot.valueCount = UInt32(value.count)
                externals[Int(old.valueStart)] = value
                return
            }
            release(old, keepingKey: true)
        }
        guard let value else {
            slot.valueKind = LeafSlot.tombstone
            slot.valueCount = 0
            return
        }
        if TreeNode.storesInline(value.count) {
            reserveArena(value.count)
            slot.valueKind = LeafSlot.inline
            slot.valueStart = UInt32(arena.count)
            slot.valueCount = UInt32(value.count)
            arena.append(contentsOf: value)
        } else {
            slot.valueKind = LeafSlot.external
            slot.valueStart = UInt32(externals.count)
            slot.valueCount = UInt32(value.count)
            externals.append(value)
        }
    }

    /// Makes room for `bytes` more arena bytes, growing by half (see `insert`).
    @inline(__always)
    private func reserveArena(_ bytes: Int) {
        if arena.capacity - arena.count < bytes { arena.reserveCapacity(arena.count + bytes + Swift.max(512, arena.count / 2)) }
    }

    /// Accounts for the bytes a slot no longer uses (and drops its external value).
    private func release(_ slot: LeafSlot, keepingKey: Bool) {
        if !keepingKey { garbage += Int(slot.keyCount) }
        switch slot.valueKind {
        case LeafSlot.inline: garbage += Int(slot.valueCount)
        case LeafSlot.external:
            externals[Int(slot.valueStart)] = []
            garbage += 64  // an emptied side-array slot; counts towards compaction
        default: break
        }
        if !keepingKey && slot.history >= 0 {
            histories[Int(slot.history)] = []
            garbage += 16
        }
    }
}
