/// Exact comparison of Firestore numbers: int64 and double interleaved by numeric value.
///
/// All NaNs are equal to each other and sort before -Infinity; `-0.0 == 0.0`. An int64 is never
/// rounded to a double, so `9007199254740993 > 9007199254740992.0`.
package enum NumberOrder {
    /// Negative, 0 or positive as `a` sorts before, with or after `b`.
    package static func compare(_ a: Double, _ b: Double) -> Int {
        if a.isNaN { return b.isNaN ? 0 : -1 }
        if b.isNaN { return 1 }
        return a < b ? -1 : (a > b ? 1 : 0)
    }

    package static func compare(_ a: Int64, _ b: Int64) -> Int {
        a < b ? -1 : (a > b ? 1 : 0)
    }

    /// Compares an int64 with a double without losing precision.
    package static func compare(_ i: Int64, _ d: Double) -> Int {
        if d.isNaN { return 1 }
        if d >= 9_223_372_036_854_775_808.0 { return -1 }  // 2^63: above every int64
        if d < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = d.rounded(.towardZero)
        let w = Int64(whole)  // exact: |whole| < 2^63 or == -2^63
        if i != w { return i < w ? -1 : 1 }
        let fraction = d - whole
        return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0)
    }

    package static func compare(_ d: Double, _ i: Int64) -> Int { -compare(i, d) }

    /// Any two Firestore numbers, Int32 and Decimal128 included.
    package static func compare(_ a: Number, _ b: Number) -> Int {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return compare(x, y)
        case (.double(let x), .double(let y)): return compare(x, y)
        case (.integer(let x), .double(let y)): return compare(x, y)
        case (.double(let x), .integer(let y)): return compare(x, y)
        case (.decimal(let x), .decimal(let y)): return Decimal128.compare(x, y)
        case (.decimal(let x), .double(let y)): return Decimal128.compare(x, y)
        case (.decimal(let x), .integer(let y)): return Decimal128.compare(x, y)
        case (.double(let x), .decimal(let y)): return -Decimal128.compare(y, x)
        case (.integer(let x), .decimal(let y)): return -Decimal128.compare(y, x)
        }
    }
}

/// A Firestore number of any representation, for comparison.
package enum Number: Sendable {
    case integer(Int64)
    case double(Double)
    case decimal(Decimal128)

    /// The number a value of kind `.number` holds (0 for anything else).
    package init(_ value: Value) {
        switch value {
        case .integer(let i): self = .integer(i)
        case .double(let d): self = .double(d)
        case .map(let m):
            switch m.bsonType {
            case .int32: self = .integer(BSONParts.int32(m))
            case .decimal128: self = .decimal(BSONParts.decimal(m))
            default: self = .integer(0)
            }
        default: self = .integer(0)
        }
    }
}
