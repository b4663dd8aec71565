import EmulatorStorage

/// The documents a Listen target's client holds: storage key → update time, one entry per
/// document the target sent. An open-addressing table (linear probing, backward-shift deletion)
/// of plain slots: each key's bytes live in one byte arena beside the table, and a slot keeps the
/// key's hash, its place in the arena and the time. A probe compares hashes before bytes; growing
/// moves plain values (no reference counting, no hashing again); a removed key's bytes are
/// reclaimed when the arena is compacted (once they are at least half of it).
struct HeldDocuments: Sendable, Equatable {
    private struct Slot: Sendable {
        /// 0 for an empty slot; else the key's hash with its top bit set.
        var hash: UInt64 = 0
        var time: Int64 = 0
        /// Where the key's encoded bytes sit in `arena`.
        var offset = 0
        var length = 0
    }

    private var slots: [Slot] = []
    /// The held keys' encodings, one after another (with removed keys' bytes until compaction).
    private var arena: [UInt8] = []
    /// Bytes of `arena` that belong to removed keys.
    private var garbage = 0
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    /// The held keys, in no particular order.
    var keys: [StorageKey] {
        slots.compactMap { s in s.hash == 0 ? nil : StorageKey(trustedEncoding: Array(arena[s.offset..<(s.offset + s.length)])) }
    }

    /// Seeds the hash once per process, so crafted names cannot aim at one slot.
    private static let seed = UInt64.random(in: .min ... .max)

    /// A seeded hash of the key's bytes, eight at a time (multiply and fold the 128-bit product):
    /// a fraction of `Hasher`'s cost for a key of tens of bytes.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        @inline(__always) func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
            let r = a.multipliedFullWidth(by: b)
            return r.high ^ r.low
        }
        let k0: UInt64 = 0xA076_1D64_78BD_642F
        let k1: UInt64 = 0xE703_7ED1_A0B4_28DB
        var h = seed ^ mix(UInt64(bytes.count) ^ k0, k1)
        guard let base = bytes.baseAddress else { return mix(h, k0) | (1 << 63) }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i + 8 <= bytes.count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            h = mix(h ^ word, k1)
            i += 8
        }
        if i < bytes.count {
            var word: UInt64 = 0
            var shift: UInt64 = 0
            while i < bytes.count {
                word |= UInt64(bytes[i]) << shift
                shift += 8
                i += 1
            }
            h = mix(h ^ word, k0)
        }
        return mix(h, k1 ^ seed) | (1 << 63)
    }

    /// Whether two runs of bytes of the same length are equal, eight bytes at a time.
    private static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = a.count
        guard n > 0, let pa = a.baseAddress, let pb = b.baseAddress else { return true }
        let ra = UnsafeRawPointer(pa)
        let rb = UnsafeRawPointer(pb)
        var i = 0
        while i + 8 <= n {
            if ra.loadUnaligned(fromByteOffset: i, as: UInt64.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
                return false
            }
            i += 8
        }
        while i < n {
            if pa[i] != pb[i] { return false }
            i += 1
        }
        return true
    }

    /// The slot holding `key`, or the empty slot where it would go (the table is never full).
    private func find(_ key: UnsafeBufferPointer<UInt8>, _ hash: UInt64) -> (index: Int, found: Bool) {
        let mask = slots.count - 1
        return slots.withUnsafeBufferPointer { slots in
            arena.withUnsafeBufferPointer { arena in
                var i = Int(truncatingIfNeeded: hash) & mask
                while true {
                    let s = slots[i]
                    if s.hash == 0 { return (i, false) }
                    if s.hash == hash && s.length == key.count
                        && Self.equal(UnsafeBufferPointer(rebasing: arena[s.offset..<(s.offset + s.length)]), key)
                    {
                        return (i, true)
                    }
                    i = (i + 1) & mask
                }
            }
        }
    }

    subscript(key: StorageKey) -> Int64? {
        get {
            guard count > 0 else { return nil }
            return key.encoded.withUnsafeBufferPointer { k in
                let (i, found) = find(k, Self.hash(k))
                return found ? slots[i].time : nil
            }
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// Sets the time held for `key`; returns the time it replaced, if any.
    @discardableResult
    mutating func updateValue(_ time: Int64, forKey key: StorageKey) -> Int64? {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        return key.encoded.withUnsafeBufferPointer { k in
            let hash = Self.hash(k)
            let (i, found) = find(k, hash)
            if found {
                let old = slots[i].time
                slots[i].time = time
                return old
            }
            let offset = arena.count
            arena.append(contentsOf: k)
            slots[i] = Slot(hash: hash, time: time, offset: offset, length: k.count)
            count += 1
            return nil
        }
    }

    /// Drops `key`; returns the time it held, if any.
    @discardableResult
    mutating func removeValue(forKey key: StorageKey) -> Int64? {
        guard count > 0 else { return nil }
        let (index, found) = key.encoded.withUnsafeBufferPointer { k in find(k, Self.hash(k)) }
        guard found else { return nil }
        let old = slots[index].time
        garbage += slots[index].length
        // Close the gap: each later slot of the run moves into the hole when the hole lies
        // between its home slot and where it sits.
        let mask = slots.count - 1
        var hole = index
        var j = (hole + 1) & mask
        while slots[j].hash != 0 {
            let home = Int(truncatingIfNeeded: slots[j].hash) & mask
            if (j - home) & mask >= (j - hole) & mask {
                slots[hole] = slots[j]
                hole = j
            }
            j = (j + 1) & mask
        }
        slots[hole] = Slot()
        count -= 1
        if count == 0 {
            arena = []
            garbage = 0
        } else if garbage >= 4096 && garbage * 2 >= arena.count {
            compact()
        }
        return old
    }

    /// The same keys with the same times, whatever their slots and arenas.
    static func == (a: HeldDocuments, b: HeldDocuments) -> Bool {
        guard a.count == b.count else { return false }
        if a.count == 0 { return true }
        return a.arena.withUnsafeBufferPointer { arena in
            for s in a.slots where s.hash != 0 {
                let key = UnsafeBufferPointer(rebasing: arena[s.offset..<(s.offset + s.length)])
                let (i, found) = b.find(key, s.hash)
                if !found || b.slots[i].time != s.time { return false }
            }
            return true
        }
    }

    /// Doubles the slots (at most three in four are used), moving each entry by its kept hash.
    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(), count: max(16, old.count * 2))
        let mask = slots.count - 1
        slots.withUnsafeMutableBufferPointer { slots in
            for s in old where s.hash != 0 {
                var i = Int(truncatingIfNeeded: s.hash) & mask
                while slots[i].hash != 0 { i = (i + 1) & mask }
                slots[i] = s
            }
        }
    }

    /// Drops removed keys' bytes from the arena.
    private mutating func compact() {
        var next: [UInt8] = []
        next.reserveCapacity(arena.count - garbage)
        for i in slots.indices where slots[i].hash != 0 {
            let s = slots[i]
            slots[i].offset = next.count
            next.append(contentsOf: arena[s.offset..<(s.offset + s.length)])
        }
        arena = next
        garbage = 0
    }
}
