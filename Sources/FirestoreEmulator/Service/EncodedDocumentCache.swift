import EmulatorModel
import EmulatorStorage
import EmulatorSupport

/// A transport's encoded answers to GetDocument, one per document, reused while the stored
/// version is the one they were made from.
///
/// An answer is a pure function of the stored entry (value bytes, create and update time) and the
/// document's name: answers are found by where the document is stored (namespace and key, whose
/// bytes hash faster than the name) and taken only when the entry read now has the same times,
/// the same value bytes and the same name. Bounded as ``EncodedAnswerCache`` says.
package struct EncodedDocumentCache: Sendable {
    struct Key: Hashable {
        var namespace: NamespaceID
        var key: StorageKey
    }

    struct Stamp: AnswerStamp {
        var name: DocumentName
        var value: [UInt8]
        var createTime: Int64
        var updateTime: Int64

        /// The value (shared with storage while the document is unchanged, counted anyway) and
        /// the name.
        var heldBytes: Int { value.count + 128 }

        static func == (a: Stamp, b: Stamp) -> Bool {
            a.updateTime == b.updateTime && a.createTime == b.createTime && a.value == b.value && a.name == b.name
        }
    }

    private let answers: EncodedAnswerCache<Key, Stamp>

    package init(budgetBytes: Int = 8 << 20, maxAnswerBytes: Int = 64 << 10) {
        answers = EncodedAnswerCache(budgetBytes: budgetBytes, maxAnswerBytes: maxAnswerBytes)
    }

    /// The answer for `name`, stored as `entry` in `namespace`: the kept one when it was made
    /// from this version, else `make()`'s, which is kept.
    func answer(
        _ name: DocumentName, _ entry: StoredEntry, in namespace: NamespaceID, make: () throws(EmulatorError) -> [UInt8]
    ) throws(EmulatorError) -> [UInt8] {
        let stamp = Stamp(name: name, value: entry.value, createTime: entry.createTime, updateTime: entry.updateTime)
        // `make` never gives nil, so neither does the cache.
        return try answers.answer(Key(namespace: namespace, key: entry.key), current: stamp) {
            () throws(EmulatorError) -> [UInt8]? in try make()
        } ?? []
    }

    /// How many answers are kept (both generations), for tests.
    var count: Int { answers.count }
}
