import EmulatorTestSupport
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
        var rng = SeededGenerator(seed: seed)
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

    @Test("descending components reverse their order inside composite keys", arguments: [5, 6] as [UInt64])
    func descending(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let pairs = (0..<150).map { _ in (randomValue(&rng), randomValue(&rng)) }
        func key(_ p: (Value, Value)) -> [UInt8] {
            var out: [UInt8] = []
            IndexKey.appendDescending(p.0, to: &out)
            IndexKey.append(p.1, to: &out)
            return out
        }
        let keys = pairs.map(key)
        for i in pairs.indices {
            for j in pairs.indices {
                let first = -Value.compare(pairs[i].0, pairs[j].0)
                let expected = sign(first != 0 ? first : Value.compare(pairs[i].1, pairs[j].1))
                if sign(UTF8Order.compare(keys[i], keys[j])) != expected {
                    Issue.record("\(pairs[i]) vs \(pairs[j])")
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
