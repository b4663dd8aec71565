import EmulatorModel
import EmulatorStorage
import Synchronization

/// The REST read's encoded answers (a node's JSON body), one per stored packed object and form,
/// reused while the stored bytes are the ones they were made from.
///
/// A node kept whole in one packed entry (``DatabaseSnapshotSource/packedEntry(at:)``) is a pure
/// function of that entry's value bytes, so its encoding is too: an answer is found by where the
/// object is stored (namespace, key) and the form (`format=export`, `print=pretty`), and taken
/// only when the entry read now holds the same bytes (the stored array itself while the object
/// is unchanged, so the comparison is a pointer check). Nothing needs invalidating: a write
/// stores new bytes, and the next read misses. Memory is bounded as in Firestore's
/// `EncodedDocumentCache`: answers over ``maxAnswerBytes`` are not kept, and two generations of
/// at most half the budget each hold the rest (a hit in the older moves the answer to the newer).
///
/// ```swift
/// let body = cache.answer(namespace.id, entry, export: false, pretty: false) { node.encoded() }
/// ```
final class DatabaseAnswerCache: Sendable {
    private struct Key: Hashable {
        var namespace: NamespaceID
        var key: StorageKey
        var export: Bool
        var pretty: Bool
    }

    private struct Answer {
        var value: [UInt8]
        var encoded: [UInt8]

        /// The encoding, the value (shared with storage while unchanged, counted anyway) and a
        /// fixed overhead for the key and the entry.
        var cost: Int { encoded.count + value.count + 128 }
    }

    private struct Generations {
        var newer: [Key: Answer] = [:]
        var older: [Key: Answer] = [:]
        var newerCost = 0
    }

    private let generations = Mutex(Generations())
    /// The most bytes both generations hold together (about).
    let budgetBytes: Int
    /// The largest answer kept.
    let maxAnswerBytes: Int

    init(budgetBytes: Int = 8 << 20, maxAnswerBytes: Int = 64 << 10) {
        self.budgetBytes = budgetBytes
        self.maxAnswerBytes = maxAnswerBytes
    }

    /// The body for the packed object stored as `entry` in `namespace`, in the given form: the
    /// kept one when it was made from these bytes, else `make()`'s (kept when small enough); nil
    /// when `make` gives nil (nothing is kept then).
    func answer(
        _ namespace: NamespaceID, _ entry: StoredEntry, export: Bool, pretty: Bool, make: () -> [UInt8]?
    ) -> [UInt8]? {
        let key = Key(namespace: namespace, key: entry.key, export: export, pretty: pretty)
        let kept = generations.withLock { g -> [UInt8]? in
            if let answer = g.newer[key] {
                return answer.value == entry.value ? answer.encoded : nil
            }
            guard let answer = g.older.removeValue(forKey: key), answer.value == entry.value else { return nil }
            insert(key, answer, into: &g)
            return answer.encoded
        }
        if let kept { return kept }
        guard let encoded = make() else { return nil }
        if encoded.count <= maxAnswerBytes {
            let answer = Answer(value: entry.value, encoded: encoded)
            generations.withLock { g in
                if let previous = g.newer.removeValue(forKey: key) { g.newerCost -= previous.cost }
                insert(key, answer, into: &g)
            }
        }
        return encoded
    }

    /// How many answers are kept (both generations), for tests.
    var count: Int { generations.withLock { $0.newer.count + $0.older.count } }

    private func insert(_ key: Key, _ answer: Answer, into g: inout Generations) {
        if g.newerCost + answer.cost > budgetBytes / 2 {
            g.older = g.newer
            g.newer = [:]
            g.newerCost = 0
        }
        g.newer[key] = answer
        g.newerCost += answer.cost
    }
}
