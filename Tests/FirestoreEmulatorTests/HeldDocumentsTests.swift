import EmulatorStorage
import EmulatorTestSupport
import Testing

@testable import FirestoreEmulator

/// The table of documents a Listen target holds answers as a dictionary would, through growth
/// and deletions that shift probe runs.
@Suite struct HeldDocumentsTests {
    /// Short keys (under eight bytes), and long ones of every length remainder with escaped
    /// bytes (the hash and the comparison read eight bytes at a time, then the tail).
    static let keySets: [[StorageKey]] = [
        (0..<600).map { StorageKey(segments: ["c", "d\($0)"]) },
        (0..<600).map { StorageKey(segments: ["books", "x\u{0}\u{1}" + String(repeating: "k", count: $0 % 29) + "\($0)"]) },
    ]

    @Test(arguments: keySets) func randomOperationsMatchADictionary(keys: [StorageKey]) {
        var rng = SeededGenerator(seed: 23)
        var table = HeldDocuments()
        var model: [StorageKey: Int64] = [:]
        // Few distinct keys against many operations: runs form, break and form again.
        for step in 0..<20_000 {
            let key = keys[Int(rng.next() % UInt64(keys.count))]
            switch rng.next() % 3 {
            case 0, 1:
                let time = Int64(step)
                #expect(table.updateValue(time, forKey: key) == model.updateValue(time, forKey: key))
            default:
                #expect(table.removeValue(forKey: key) == model.removeValue(forKey: key))
            }
            if step % 1_000 == 0 {
                #expect(table.count == model.count)
                for k in keys { #expect(table[k] == model[k]) }
            }
        }
        #expect(Set(table.keys) == Set(model.keys))
        var rebuilt = HeldDocuments()
        for (k, v) in model { rebuilt[k] = v }
        #expect(rebuilt == table)
        rebuilt[keys[0]] = -1
        #expect(rebuilt != table)
        for k in keys { table[k] = nil }
        #expect(table.isEmpty && table.keys.isEmpty && table[keys[0]] == nil)
        table[keys[1]] = 7
        #expect(table[keys[1]] == 7 && table.count == 1)
    }
}
