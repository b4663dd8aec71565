import EmulatorTestSupport
import Testing

@testable import EmulatorModel

@Suite("Firestore value order")
struct ValueOrderTests {
    @Test("every pair of the ordered table compares by its position")
    func crossTypeTable() {
        for (i, gi) in orderedGroups.enumerated() {
            for (j, gj) in orderedGroups.enumerated() {
                for a in gi {
                    for b in gj {
                        let c = sign(Value.compare(a, b))
                        #expect(c == sign(i - j), "compare(\(a), \(b)) = \(c), expected \(sign(i - j))")
                    }
                }
            }
        }
    }

    static let equivalenceCases: [(Value, Value, Bool)] = [
            (Value.integer(3), Value.double(3), true),
            (.double(.nan), .double(.nan), true),
            (.double(0), .double(-0.0), true),
            (.integer(9_007_199_254_740_993), .double(9_007_199_254_740_992), false),
            (.string("\u{E9}"), .string("e\u{301}"), false),
            ([1, 2], [1.0, 2.0], true),
            (["a": 1], ["a": 1.0], true),
            (.null, false, false),
        ]

    @Test("equivalence is numeric and NaN-equal", arguments: equivalenceCases)
    func equivalence(a: Value, b: Value, expected: Bool) {
        #expect(a.isEquivalent(b) == expected)
    }

    @Test("== is representation identity, not Swift string equality")
    func identity() {
        #expect(Value.string("\u{E9}") != Value.string("e\u{301}"))
        #expect(Value.integer(1) != Value.double(1))
        #expect(Value.double(.nan) == Value.double(.nan))
        #expect(Value.double(0) != Value.double(-0.0))
        let set: Set<Value> = [.string("\u{E9}"), .string("e\u{301}")]
        #expect(set.count == 2)
    }

    static let idCases: [(String, String, Int)] = [
            ("__id5__", "__id10__", -1), ("__id-5__", "__id5__", -1), ("__id10__", "a", -1),
            ("__id9223372036854775807__", "__id-9223372036854775808__", 1), ("a", "b", -1),
            ("__idx__", "__id1__", 1), ("A", "a", -1), ("e\u{301}", "\u{E9}", -1),
        ]

    @Test("document ids: numeric __id<n>__ first and numerically", arguments: idCases)
    func documentIDs(a: String, b: String, expected: Int) {
        #expect(sign(ResourcePath.compareSegments(a, b)) == expected)
        #expect(sign(ResourcePath.compareSegments(b, a)) == -expected)
    }

    @Test("exact int64/double comparison beyond 2^53")
    func mixedNumbers() {
        #expect(NumberOrder.compare(Int64(9_007_199_254_740_993), 9_007_199_254_740_992.0) == 1)
        #expect(NumberOrder.compare(Int64.max, 9_223_372_036_854_775_808.0) == -1)
        #expect(NumberOrder.compare(Int64.min, -9_223_372_036_854_775_808.0) == 0)
        #expect(NumberOrder.compare(Int64(0), -0.0) == 0)
        #expect(NumberOrder.compare(Int64.min, -Double.infinity) == 1)
        #expect(NumberOrder.compare(Int64(2), 2.5) == -1)
        #expect(NumberOrder.compare(Int64(-2), -2.5) == 1)
    }

    @Test("sorting with compare gives the table order")
    func sortMatches() {
        var rng = SeededGenerator(seed: 7)
        let flat = orderedGroups.map { $0[0] }
        let sorted = flat.shuffled(using: &rng).sorted { Value.compare($0, $1) < 0 }
        #expect(sorted == flat)
    }
}
