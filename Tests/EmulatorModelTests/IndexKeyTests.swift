import Testing

@testable import EmulatorModel

@Suite("Order-preserving index keys")
struct IndexKeyTests {
    @Test("byte order of keys matches Value.compare on the ordered table")
    func table() {
        let all = orderedGroups.enumerated().flatMap { i, g in g.map { (i, $0) } }
        for (i, a) in all {
            for (j, b) in all {
                let c = sign(UTF8Order.compare(IndexKey.key(a), IndexKey.key(b)))
                #expect(c == sign(i - j), "key order of \(a) vs \(b) is \(c)")
            }
        }
    }

    @Test("byte order of keys matches Value.compare on random values", arguments: [1, 2, 3, 4] as [UInt64])
    func property(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        let values = (0..<300).map { _ in randomValue(&rng) }
        let keys = values.map(IndexKey.key)
        for i in values.indices {
            for j in values.indices {
                let expected = sign(Value.compare(values[i], values[j]))
                let actual = sign(UTF8Order.compare(keys[i], keys[j]))
                if expected != actual {
                    Issue.record("\(values[i]) vs \(values[j]): compare \(expected), keys \(actual)")
                    return
                }
            }
        }
    }

    @Test("composite keys order by first component, then second")
    func composite() throws {
        func key(_ a: Value, _ path: String) throws -> [UInt8] {
            var out: [UInt8] = []
            IndexKey.append(a, to: &out)
            IndexKey.append(path: try ResourcePath(parsing: path), to: &out)
            return out
        }
        #expect(try UTF8Order.compare(key("a", "c/z"), key("ab", "c/a")) < 0)
        #expect(try UTF8Order.compare(key(1, "c/__id10__"), key(1.0, "c/a")) < 0)
        #expect(try UTF8Order.compare(key(1, "c/b"), key(1.0, "c/a")) > 0)
    }
}
