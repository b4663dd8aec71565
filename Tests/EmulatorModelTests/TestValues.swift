import EmulatorTestSupport
@testable import EmulatorModel

/// Groups of equivalent values in strictly ascending Firestore order.
let orderedGroups: [[Value]] = {
    let root = "projects/p/databases/(default)/documents"
    func vector(_ xs: [Double]) -> Value {
        .map(["__type__": "__vector__", "value": .array(xs.map { .double($0) })])
    }
    return [
        [.null],
        [.minKey],
        [false],
        [true],
        [.double(.nan), .double(-.nan), .double(Double(bitPattern: 0x7FF8_0000_0000_0001)), .decimal128("NaN")],
        [.double(-.infinity), .decimal128("-Infinity")],
        [.decimal128("-1E+6000")],
        [.double(-9.3e18)],
        [.integer(.min), .double(-9_223_372_036_854_775_808.0), .decimal128("-9223372036854775808")],
        [.integer(.min + 1)],
        [.double(-1.5)],
        [.integer(-1), .double(-1), .int32(-1), .decimal128("-1.000"), .decimal128("-1")],
        [.double(-Double.leastNonzeroMagnitude)],
        [.decimal128("-1E-400")],
        [.integer(0), .double(0), .double(-0.0), .int32(0), .decimal128("0"), .decimal128("-0"), .decimal128("0E+10")],
        [.decimal128("1E-400")],
        [.double(Double.leastNonzeroMagnitude)],
        [.decimal128("0.1")],  // below the double nearest 0.1, which is 0.1000000000000000055…
        [.double(0.1)],
        [.double(0.5), .decimal128("0.5"), .decimal128("5E-1")],
        [.integer(1), .double(1), .int32(1), .decimal128("1"), .decimal128("1.000")],
        [.int32(Int32.max)],
        [.integer(9_007_199_254_740_992), .double(9_007_199_254_740_992.0)],
        [.integer(9_007_199_254_740_993), .decimal128("9007199254740993")],
        [.integer(9_007_199_254_740_994), .double(9_007_199_254_740_994.0)],
        [.integer(.max - 1)],
        [.integer(.max)],
        [.double(9_223_372_036_854_775_808.0), .decimal128("9223372036854775808")],
        [.decimal128("1E+6000")],
        [.double(.infinity), .decimal128("Infinity")],
        [.timestamp(Timestamp(seconds: Timestamp.minSeconds))],
        [.timestamp(Timestamp(seconds: -1, nanos: 999_999_999))],
        [.timestamp(Timestamp(seconds: 0))],
        [.timestamp(Timestamp(seconds: 0, nanos: 1))],
        [.timestamp(Timestamp(seconds: 1))],
        [.bsonTimestamp(seconds: 0, increment: 0)],
        [.bsonTimestamp(seconds: 0, increment: 1)],
        [.bsonTimestamp(seconds: 1, increment: 0)],
        [.bsonTimestamp(seconds: .max, increment: .max)],
        [""],
        ["\0"],
        ["a"],
        ["a\0"],
        ["ab"],
        ["b"],
        ["e\u{301}"],  // 65 CC 81: sorts before é by UTF-8 bytes although Swift calls them equal
        ["z"],
        ["\u{E9}"],  // C3 A9
        ["\u{FFFF}"],
        ["\u{10000}"],
        [.bytes([])],
        [.bytes([0])],
        [.bytes([0, 0])],
        [.bytes([1])],
        [.bytes([255])],
        [.bsonBinary(subtype: 1, [])],
        [.bsonBinary(subtype: 1, [0])],
        [.bsonBinary(subtype: 128, [0x61])],
        [.reference("\(root)/c/__id-5__")],
        [.reference("\(root)/c/__id5__")],
        [.reference("\(root)/c/__id10__")],
        [.reference("\(root)/c/a")],
        [.reference("\(root)/c/a/s/x")],
        [.reference("\(root)/c/b")],
        [.reference("\(root)/d/a")],
        [.objectId("000000000000000000000000")],
        [.objectId("507f191e810c19729de860ea")],
        [.objectId("ffffffffffffffffffffffff")],
        [.geoPoint(latitude: -10, longitude: 0)],
        [.geoPoint(latitude: 0, longitude: -1)],
        [.geoPoint(latitude: 0, longitude: 0), .geoPoint(latitude: -0.0, longitude: 0)],
        [.geoPoint(latitude: 1, longitude: -180)],
        [.regex("", options: "")],
        [.regex("a", options: "")],
        [.regex("a", options: "i")],
        [.regex("b", options: "")],
        [[]],
        [[1], [1.0]],
        [[1, 2, 3]],
        [[1, 2, 3, 1]],
        [[2]],
        [["__type__": "__vector__"], vector([])],  // a vector without `value` is empty
        [vector([5])],
        [vector([1, 2])],
        [vector([1, 3])],
        [[:]],
        [["a": "aaa", "b": "baz"]],
        [["a": "foo", "b": "bar"]],
        [["a": "foo", "b": "bar", "c": "qux"]],
        [["a": "foo", "b": "baz"]],
        [["b": "aaa", "c": "baz"]],
        [["c": "aaa"]],
        [.maxKey],
    ]
}()

/// Random values drawn from atoms chosen to collide often (ties, prefixes, edge numbers).
func randomValue(_ rng: inout SeededGenerator, depth: Int = 0) -> Value {
    let ints: [Int64] = [0, 1, -1, 2, 9_007_199_254_740_992, 9_007_199_254_740_993, .max, .min, .min + 1, 1 << 62]
    let doubles: [Double] = [
        0, -0.0, 1, -1, 0.5, 2, .nan, .infinity, -.infinity, 9_007_199_254_740_992, 9_223_372_036_854_775_808,
        -9_223_372_036_854_775_808, 1e300, 4.611686018427388e18,
    ]
    let strings = ["", "a", "ab", "\0", "a\0", "b", "\u{E9}", "e\u{301}", "\u{FFFF}", "\u{10000}", "__id1__"]
    let root = "projects/p/databases/d/documents"
    let refs = [
        "\(root)/c/a", "\(root)/c/__id1__", "\(root)/c/__id-2__", "\(root)/c/__id01__", "\(root)/c/a/s/b",
        "\(root)/c\0/a", "\(root)/c/b",
    ]
    let choice = Int.random(in: 0..<(depth < 3 ? 12 : 9), using: &rng)
    switch choice {
    case 0: return .null
    case 1: return .boolean(Bool.random(using: &rng))
    case 2: return .integer(ints.randomElement(using: &rng) ?? 0)
    case 3: return .double(doubles.randomElement(using: &rng) ?? 0)
    case 4:
        return .timestamp(
            Timestamp(seconds: Int64.random(in: -2...2, using: &rng), nanos: [0, 1, 999_999_999].randomElement(using: &rng) ?? 0))
    case 5: return .string(strings.randomElement(using: &rng) ?? "")
    case 6: return .bytes((0..<Int.random(in: 0...3, using: &rng)).map { _ in [0, 1, 255].randomElement(using: &rng) ?? 0 })
    case 7: return .reference(refs.randomElement(using: &rng) ?? "")
    case 8:
        return .geoPoint(latitude: [0, 1, -0.0].randomElement(using: &rng) ?? 0, longitude: [0, 1].randomElement(using: &rng) ?? 0)
    case 9, 10:
        return .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
    default:
        var map = ValueMap()
        for _ in 0..<Int.random(in: 0...3, using: &rng) {
            map[["a", "b", "", "\u{E9}", "e\u{301}"].randomElement(using: &rng) ?? "a"] = randomValue(&rng, depth: depth + 1)
        }
        return .map(map)
    }
}

func sign(_ x: Int) -> Int { x < 0 ? -1 : (x > 0 ? 1 : 0) }
