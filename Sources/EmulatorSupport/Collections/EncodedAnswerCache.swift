import Synchronization

/// What an encoded answer was made from: an answer is reused only while the stamp read now is
/// equal to the one it was kept with. `heldBytes` is what keeping the stamp costs.
package protocol AnswerStamp: Equatable, Sendable {
    var heldBytes: Int { get }
}

/// Encoded answers (response bodies) kept by key and reused while what they were made from is
/// unchanged, in bounded memory.
///
/// An answer that is a pure function of what it was made from needs no invalidation: the caller
/// passes the stamp of what it reads now (for a stored value, the stored byte array itself, so
/// comparing is a pointer check while the value is unchanged) and the kept answer is taken only
/// when the stamps are equal. Answers over ``maxAnswerBytes`` are not kept; the rest live in two
/// generations of at most half of ``budgetBytes`` each: when the newer fills up, the older is
/// dropped and the newer takes its place, so answers read often stay (a hit in the older
/// generation moves its answer to the newer).
///
/// ```swift
/// let body = try cache.answer(key, current: stamp) { try encodeNow() }
/// ```
package final class EncodedAnswerCache<Key: Hashable & Sendable, Stamp: AnswerStamp>: Sendable {
    private struct Kept {
        var stamp: Stamp
        var encoded: [UInt8]

        /// The encoding, what the stamp holds on to, and a fixed overhead for the key and entry.
        var cost: Int { encoded.count + stamp.heldBytes + 128 }
    }

    private struct Generations {
        var newer: [Key: Kept] = [:]
        var older: [Key: Kept] = [:]
        var newerCost = 0

        mutating func insert(_ key: Key, _ kept: Kept, budgetBytes: Int) {
            if newerCost + kept.cost > budgetBytes / 2 {
                older = newer
                newer = [:]
                newerCost = 0
            }
            newer[key] = kept
            newerCost += kept.cost
        }
    }

    private let generations = Mutex(Generations())
    /// The most bytes both generations hold together (about).
    package let budgetBytes: Int
    /// The largest answer kept.
    package let maxAnswerBytes: Int

    package init(budgetBytes: Int = 8 << 20, maxAnswerBytes: Int = 64 << 10) {
        self.budgetBytes = budgetBytes
        self.maxAnswerBytes = maxAnswerBytes
    }

    /// The answer kept for `key` when it was made from `stamp`, else `make()`'s (kept when small
    /// enough); nil when `make` gives nil, and nothing is kept then.
    package func answer<Failure: Error>(
        _ key: Key, current stamp: Stamp, make: () throws(Failure) -> [UInt8]?
    ) throws(Failure) -> [UInt8]? {
        let budget = budgetBytes
        let hit = generations.withLock { g -> [UInt8]? in
            if let kept = g.newer[key] { return kept.stamp == stamp ? kept.encoded : nil }
            guard let kept = g.older.removeValue(forKey: key), kept.stamp == stamp else { return nil }
            g.insert(key, kept, budgetBytes: budget)
            return kept.encoded
        }
        if let hit { return hit }
        guard let encoded = try make() else { return nil }
        if encoded.count <= maxAnswerBytes {
            let kept = Kept(stamp: stamp, encoded: encoded)
            generations.withLock { g in
                if let previous = g.newer.removeValue(forKey: key) { g.newerCost -= previous.cost }
                g.insert(key, kept, budgetBytes: budget)
            }
        }
        return encoded
    }

    /// How many answers are kept (both generations), for tests.
    package var count: Int { generations.withLock { $0.newer.count + $0.older.count } }
}
