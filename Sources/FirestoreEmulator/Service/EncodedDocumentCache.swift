import EmulatorModel
import EmulatorStorage
import Synchronization

/// A transport's encoded answers to GetDocument, one per document, reused while the stored
/// version is the one they were made from.
///
/// An answer is a pure function of the stored entry (value bytes, create and update time) and the
/// document's name, so a hit needs no invalidation: answers are found by where the document is
/// stored (namespace and key) and taken only when the entry read now has the same times and the
/// same value bytes (the stored array itself while the document is unchanged, so the comparison
/// is a pointer check) and the name is the same. Memory is bounded: answers over
/// ``maxAnswerBytes`` are not kept, and the cache holds two generations of at most half the
/// budget each; when the newer fills up, the older is dropped and the newer takes its place, so
/// documents read often stay (a hit in the older generation moves the answer to the newer).
package final class EncodedDocumentCache: Sendable {
    /// Where the document is stored: hashing the key's bytes is cheaper than hashing its name.
    private struct Key: Hashable {
        var namespace: NamespaceID
        var key: StorageKey
    }

    private struct Answer {
        var name: DocumentName
        var value: [UInt8]
        var createTime: Int64
        var updateTime: Int64
        var encoded: [UInt8]

        /// What the answer holds on to: the encoding, the value (shared with storage while the
        /// document is unchanged, counted anyway) and a fixed overhead for the name and entry.
        var cost: Int { encoded.count + value.count + 256 }

        func answers(_ name: DocumentName, _ entry: StoredEntry) -> Bool {
            entry.updateTime == updateTime && entry.createTime == createTime && entry.value == value && name == self.name
        }
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

    package init(budgetBytes: Int = 8 << 20, maxAnswerBytes: Int = 64 << 10) {
        self.budgetBytes = budgetBytes
        self.maxAnswerBytes = maxAnswerBytes
    }

    /// The answer for `name`, stored as `entry` in `namespace`: the kept one when it was made
    /// from this version, else `make()`'s, which is kept.
    func answer(
        _ name: DocumentName, _ entry: StoredEntry, in namespace: NamespaceID, make: () throws(EmulatorError) -> [UInt8]
    ) throws(EmulatorError) -> [UInt8] {
        let key = Key(namespace: namespace, key: entry.key)
        let kept = generations.withLock { g -> [UInt8]? in
            if let answer = g.newer[key] {
                return answer.answers(name, entry) ? answer.encoded : nil
            }
            guard let answer = g.older.removeValue(forKey: key), answer.answers(name, entry) else { return nil }
            insert(key, answer, into: &g)
            return answer.encoded
        }
        if let kept { return kept }
        let encoded = try make()
        if encoded.count <= maxAnswerBytes {
            let answer = Answer(
                name: name, value: entry.value, createTime: entry.createTime, updateTime: entry.updateTime, encoded: encoded)
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
