import CEmulatorLinux

/// A blocked Bloom filter over the keys of one tree level: `mayContain` is false only for a key
/// the level certainly does not hold, so a write of a new key (or a read of a key stored
/// elsewhere) skips the level's descent. Each key sets 6 bits inside one 512-bit block (one
/// cache line); at 10 bits per key about 1.5% of absent keys are reported as maybe present.
///
/// Keys are only ever added: removing entries from the level leaves their bits set, which keeps
/// the filter a superset of the level's keys (the one property lookups rely on). The owner
/// rebuilds it from the level (`init(capacity:keysOf:)`) when more keys were added than it was
/// sized for. An inactive filter (no words) answers "maybe" for every key.
struct KeyFilter: Sendable {
    private(set) var words: [UInt64] = []
    /// Keys added since the filter was built (re-added keys count again).
    private(set) var added = 0

    /// An inactive filter: every key may be present.
    init() {}

    /// An empty filter sized for `capacity` keys.
    init(capacity: Int) {
        let blocks = max(1, (max(capacity, 64) * KeyFilter.bitsPerKey + 511) / 512)
        words = [UInt64](repeating: 0, count: blocks * 8)
    }

    /// A filter sized for twice the keys `tree` holds (at least `minimumCapacity`), holding all of them.
    init(keysOf tree: VersionedTree, minimumCapacity: Int) {
        var keys = 0
        tree.root.forEachKey { _ in keys += 1 }
        self.init(capacity: max(minimumCapacity, keys * 2))
        tree.root.forEachKey { insert(KeyFilter.hash($0)) }
    }

    static let bitsPerKey = 10

    var isActive: Bool { !words.isEmpty }

    /// Keys the filter was sized for; past this, its false-positive rate climbs.
    var capacity: Int { words.count * 64 / KeyFilter.bitsPerKey }

    var isOverfull: Bool { isActive && added > capacity }

    @inline(__always)
    func mayContain(_ hash: UInt64) -> Bool {
        guard !words.isEmpty else { return true }
        return words.withUnsafeBufferPointer { words in
            let block = KeyFilter.block(hash, words.count)
            var bits = hash &* 0x9E37_79B9_7F4A_7C15
            for _ in 0..<6 {
                let bit = Int(truncatingIfNeeded: bits & 511)
                bits >>= 9
                if words[block + bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return false }
            }
            return true
        }
    }

    /// Asks for the cache line `mayContain(hash)` will read.
    @inline(__always)
    func prefetch(_ hash: UInt64) {
        words.withUnsafeBufferPointer { words in
            guard let base = words.baseAddress, !words.isEmpty else { return }
            cemu_prefetch(base + KeyFilter.block(hash, words.count))
        }
    }

    mutating func insert(_ hash: UInt64) {
        guard !words.isEmpty else { return }
        added += 1
        words.withUnsafeMutableBufferPointer { words in
            let block = KeyFilter.block(hash, words.count)
            var bits = hash &* 0x9E37_79B9_7F4A_7C15
            for _ in 0..<6 {
                let bit = Int(truncatingIfNeeded: bits & 511)
                bits >>= 9
                words[block + bit >> 6] |= 1 << UInt64(bit & 63)
            }
        }
    }

    /// The first word of the 512-bit block `hash` falls in (from its high bits).
    @inline(__always)
    private static func block(_ hash: UInt64, _ wordCount: Int) -> Int {
        let blocks = UInt64(wordCount / 8)
        return Int(truncatingIfNeeded: ((hash >> 32) &* blocks) >> 32) * 8
    }

    static func hash(_ key: [UInt8]) -> UInt64 {
        key.withUnsafeBufferPointer { hash($0) }
    }

    /// A 64-bit hash of the key bytes (8 bytes per step, then a finalizing mix).
    @inline(__always)
    static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var state: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(key.count)
        guard let base = key.baseAddress else { return mix(state) }
        var offset = 0
        let raw = UnsafeRawPointer(base)
        while offset + 8 <= key.count {
            let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            state = (state ^ word) &* 0xFF51_AFD7_ED55_8CCD
            state = (state << 29) | (state >> 35)
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < key.count {
            tail |= UInt64(base[offset]) << shift
            shift += 8
            offset += 1
        }
        state = (state ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        return mix(state)
    }

    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x = x &* 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        x = x &* 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return x
    }
}

extension TreeNode {
    /// Calls `body` with the bytes of every key below this node, in order (tombstones included),
    /// without copying them out of the leaves.
    func forEachKey(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard isLeaf else {
            for child in children { child.forEachKey(body) }
            return
        }
        slots.withUnsafeBufferPointer { slots in
            arena.withUnsafeBufferPointer { arena in
                for slot in slots {
                    body(UnsafeBufferPointer(rebasing: arena[Int(slot.keyStart)..<Int(slot.keyStart) + Int(slot.keyCount)]))
                }
            }
        }
    }
}
