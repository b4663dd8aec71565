import EmulatorModel
import EmulatorStorage
import EmulatorSupport

/// The REST read's encoded answers (a node's JSON body), one per stored packed object and form,
/// reused while the stored bytes are the ones they were made from.
///
/// A node kept whole in one packed entry (``DatabaseSnapshotSource/packedEntry(at:)``) is a pure
/// function of that entry's value bytes, so its encoding is too: an answer is found by where the
/// object is stored (namespace, key) and the form (`format=export`, `print=pretty`), and taken
/// only when the entry read now holds the same bytes (the stored array itself while the object
/// is unchanged, so the comparison is a pointer check). Nothing needs invalidating: a write
/// stores new bytes, and the next read misses. Bounded as ``EncodedAnswerCache`` says.
///
/// ```swift
/// let body = cache.answer(namespace.id, entry, export: false, pretty: false) { node.encoded() }
/// ```
struct DatabaseAnswerCache: Sendable {
    struct Key: Hashable {
        var namespace: NamespaceID
        var key: StorageKey
        var export: Bool
        var pretty: Bool
    }

    /// The stored bytes an answer was made from.
    struct Stamp: AnswerStamp {
        var value: [UInt8]
        var heldBytes: Int { value.count }
    }

    private let answers: EncodedAnswerCache<Key, Stamp>

    init(budgetBytes: Int = 8 << 20, maxAnswerBytes: Int = 64 << 10) {
        answers = EncodedAnswerCache(budgetBytes: budgetBytes, maxAnswerBytes: maxAnswerBytes)
    }

    /// The body for the packed object stored as `entry` in `namespace`, in the given form: the
    /// kept one when it was made from these bytes, else `make()`'s (kept when small enough); nil
    /// when `make` gives nil (nothing is kept then).
    func answer(
        _ namespace: NamespaceID, _ entry: StoredEntry, export: Bool, pretty: Bool, make: () -> [UInt8]?
    ) -> [UInt8]? {
        let key = Key(namespace: namespace, key: entry.key, export: export, pretty: pretty)
        return answers.answer(key, current: Stamp(value: entry.value), make: make)
    }

    /// How many answers are kept (both generations), for tests.
    var count: Int { answers.count }
}
