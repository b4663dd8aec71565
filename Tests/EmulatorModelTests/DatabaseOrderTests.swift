import EmulatorSupport
import Testing

@testable import EmulatorModel

@Suite("Realtime Database ordering")
struct DatabaseOrderTests {
    /// Ascending key order.
    static let keys: [String] = [
        "[MIN_NAME]", "-2147483648", "-10", "-1", "0", "-0", "00", "1", "01", "2", "7", "007", "10", "2147483647",
        "-", "-2147483649", "1.5", "12345678901", "2147483648", "A", "a", "aa", "b", "e\u{301}", "\u{E9}",
        "\u{10000}", "\u{FFFF}", "[MAX_NAME]",
    ]

    @Test("key order: int32-like keys numerically (shorter wins a tie), then UTF-16 code units")
    func keyOrder() {
        for (i, a) in Self.keys.enumerated() {
            for (j, b) in Self.keys.enumerated() {
                #expect(sign(DatabaseOrder.compareKeys(a, b)) == sign(i - j), "\(a) vs \(b)")
            }
        }
    }

    static let intKeys: [(String, Int32?)] = [
        ("0", 0), ("-0", 0), ("007", 7), ("2147483647", .max), ("-2147483648", .min), ("2147483648", nil),
        ("00000000000001", 1), ("12345678901", nil), ("", nil), ("-", nil), ("+1", nil), ("1e3", nil), (" 1", nil),
    ]

    @Test("integer-like keys", arguments: intKeys)
    func integerKeys(key: String, value: Int32?) {
        #expect(DatabaseOrder.integerKey(key) == value)
    }

    /// Groups of equal values in ascending order.
    static let values: [[JSONValue?]] = [
        [nil, .null],
        [.bool(false)],
        [.bool(true)],
        [.double(-.infinity)],
        [.int(.min)],
        [.double(-1.5)],
        [.int(0), .double(0), .double(-0.0)],
        [.int(1), .double(1)],
        [.double(9_007_199_254_740_992)],
        [.int(9_007_199_254_740_993)],
        [.string("")],
        [.string("A")],
        [.string("a")],
        [.string("\u{10000}")],
        [.string("\u{FFFF}")],
        [.object([]), .object([JSONMember("a", .int(1))]), .array([.int(1)])],
    ]

    @Test("value order: null < false < true < numbers < strings < objects")
    func valueOrder() {
        for (i, gi) in Self.values.enumerated() {
            for (j, gj) in Self.values.enumerated() {
                for a in gi {
                    for b in gj {
                        #expect(sign(DatabaseOrder.compareValues(a, b)) == sign(i - j), "\(String(describing: a)) vs \(String(describing: b))")
                    }
                }
            }
        }
    }

    @Test("ties in value order break by key")
    func tieBreak() {
        #expect(DatabaseOrder.compareChildren(.int(1), "b", .double(1), "a") > 0)
        #expect(DatabaseOrder.compareChildren(.object([]), "10", .object([]), "9") > 0)
        #expect(DatabaseOrder.compareChildren(.int(1), "z", .int(2), "a") < 0)
    }

    @Test("priority order: none < numbers < strings")
    func priorities() {
        let ordered: [JSONValue?] = [nil, .int(-5), .double(2.5), .int(3), .string("a"), .string("b")]
        for (i, a) in ordered.enumerated() {
            for (j, b) in ordered.enumerated() {
                #expect(sign(DatabaseOrder.comparePriorities(a, b)) == sign(i - j))
            }
        }
    }
}
