import EmulatorStorage

/// The documents a Listen target's client holds: storage key → update time, one entry per
/// document the target sent. An open-addressing table (linear probing, backward-shift deletion)
/// that keeps each key's hash beside it: a probe compares hashes before keys and growing never
/// hashes a key again. The dictionary it replaces compared whole keys along every probe and
/// rehashed every key at each growth, per document a listener received.
struct HeldDocuments: Sendable, Equatable {
    private struct Slot: Sendable {
        /// 0 for an empty slot; else the key's hash with its top bit set.
        var hash: UInt64 = 0
        var time: Int64 = 0
        var key = StorageKey.root
    }

    private var slots: [Slot] = []
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    /// The held keys, in no particular order.
    var keys: [StorageKey] { slots.compactMap { $0.hash == 0 ? nil : $0.key } }

    /// The seeded hash of the key (`Hasher`, so crafted names cannot aim at one slot).
    private static func hash(_ key: StorageKey) -> UInt64 {
        var hasher = Hasher()
        key.hash(into: &hasher)
        return UInt64(bitPattern: Int64(hasher.finalize())) | (1 << 63)
    }

    /// The slot holding `key`, or the empty slot where it would go (the table is never full).
    private func find(_ key: StorageKey, _ hash: UInt64) -> (index: Int, found: Bool) {
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let h = slots[i].hash
            if h == 0 { return (i, false) }
            if h == hash && slots[i].key == key { return (i, true) }
            i = (i + 1) & mask
        }
    }

    subscript(key: StorageKey) -> Int64? {
        get {
            guard count > 0 else { return nil }
            let (i, found) = find(key, Self.hash(key))
            return found ? slots[i].time : nil
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// Sets the time held for `key`; returns the time it replaced, if any.
    @discardableResult
    mutating func updateValue(_ time: Int64, forKey key: StorageKey) -> Int64? {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let hash = Self.hash(key)
        let (i, found) = find(key, hash)
        if found {
            let old = slots[i].time
            slots[i].time = time
            return old
        }
        slots[i] = Slot(hash: hash, time: time, key: key)
        count += 1
        return nil
    }

    /// Drops `key`; returns the time it held, if any.
    @discardableResult
    mutating func removeValue(forKey key: StorageKey) -> Int64? {
        guard count > 0 else { return nil }
        let (index, found) = find(key, Self.hash(key))
        guard found else { return nil }
        let old = slots[index].time
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
        return old
    }

    /// The same keys with the same times, whatever their slots.
    static func == (a: HeldDocuments, b: HeldDocuments) -> Bool {
        guard a.count == b.count else { return false }
        for s in a.slots where s.hash != 0 && b[s.key] != s.time { return false }
        return true
    }

    /// Doubles the slots (at most three in four are used), moving each entry by its kept hash.
    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(), count: max(16, old.count * 2))
        let mask = slots.count - 1
        for s in old where s.hash != 0 {
            var i = Int(truncatingIfNeeded: s.hash) & mask
            while slots[i].hash != 0 { i = (i + 1) & mask }
            slots[i] = s
        }
    }
}
