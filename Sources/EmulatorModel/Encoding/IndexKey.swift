/// An order-preserving byte encoding of values: for any `a`, `b`,
/// `memcmp(key(a), key(b))` has the sign of ``Value/compare(_:_:)``, and equivalent values
/// (`3` and `3.0`, `0.0` and `-0.0`, any two NaNs, `Int32(3)` and a Decimal128 `3.0`) encode
/// identically. One approximation: a Decimal128 that is neither an int64 nor a double sorts
/// just above the double below it, so beyond 2^53 it may sort after an int64 it is below by
/// less than one double step (`appendNumber(decimal:to:)`).
///
/// Every encoding is self-delimiting (no encoding is a proper prefix of another), so
/// concatenating encodings gives a composite key ordered by the first value, then the second,
/// and so on; and complementing one component's bytes (``appendDescending(_:to:)``) reverses
/// exactly that component's order.
///
/// ```swift
/// var key: [UInt8] = []
/// IndexKey.append(.string("b"), to: &key)
/// IndexKey.append(path: docPath, to: &key)   // tie-break by document name
/// ```
package enum IndexKey {
    /// One tag per ``Value/Kind``, in its order.
    private enum Tag: UInt8 {
        case null = 0x10, minKey, boolean, number, timestamp, bsonTimestamp, string, bytes, bsonBinary, reference,
            objectId, geoPoint, regex, array, vector, map, maxKey
    }

    /// Appends the order-preserving encoding of `value`.
    package static func append(_ value: Value, to out: inout [UInt8]) {
        switch value {
        case .null:
            out.append(Tag.null.rawValue)
        case .boolean(let b):
            out.append(Tag.boolean.rawValue)
            out.append(b ? 1 : 0)
        case .integer(let i):
            out.append(Tag.number.rawValue)
            appendNumber(integer: i, to: &out)
        case .double(let d):
            out.append(Tag.number.rawValue)
            appendNumber(double: d, to: &out)
        case .timestamp(let t):
            out.append(Tag.timestamp.rawValue)
            appendBigEndian(UInt64(bitPattern: t.seconds) ^ (1 << 63), to: &out)
            appendBigEndian(UInt32(bitPattern: t.nanos), to: &out)
        case .string(let s):
            out.append(Tag.string.rawValue)
            appendEscaped(s.utf8, to: &out)
        case .bytes(let b):
            out.append(Tag.bytes.rawValue)
            appendEscaped(b, to: &out)
        case .reference(let name):
            out.append(Tag.reference.rawValue)
            for part in name.utf8.split(separator: 0x2F, omittingEmptySubsequences: false) {
                appendSegment(String(decoding: part, as: UTF8.self), to: &out)
            }
            out.append(0)
        case .geoPoint(let lat, let lng):
            out.append(Tag.geoPoint.rawValue)
            appendOrderedDouble(lat, to: &out)
            appendOrderedDouble(lng, to: &out)
        case .array(let elements):
            out.append(Tag.array.rawValue)
            for e in elements { append(e, to: &out) }
            out.append(0)
        case .map(let map):
            if let type = map.bsonType {
                appendBSON(type, map, to: &out)
            } else if let elements = map.vectorElements {
                out.append(Tag.vector.rawValue)
                appendBigEndian(UInt64(elements.count), to: &out)
                for e in elements { append(e, to: &out) }
                out.append(0)
            } else {
                out.append(Tag.map.rawValue)
                for field in map {
                    out.append(1)
                    appendEscaped(field.name.utf8, to: &out)
                    append(field.value, to: &out)
                }
                out.append(0)
            }
        }
    }

    private static func appendBSON(_ type: BSONType, _ map: ValueMap, to out: inout [UInt8]) {
        switch type {
        case .minKey: out.append(Tag.minKey.rawValue)
        case .maxKey: out.append(Tag.maxKey.rawValue)
        case .int32:
            out.append(Tag.number.rawValue)
            appendNumber(integer: BSONParts.int32(map), to: &out)
        case .decimal128:
            out.append(Tag.number.rawValue)
            appendNumber(decimal: BSONParts.decimal(map), to: &out)
        case .objectId:
            out.append(Tag.objectId.rawValue)
            appendEscaped(BSONParts.objectId(map).utf8, to: &out)
        case .binary:
            out.append(Tag.bsonBinary.rawValue)
            appendEscaped(BSONParts.binary(map), to: &out)
        case .regex:
            let r = BSONParts.regex(map)
            out.append(Tag.regex.rawValue)
            appendEscaped(r.pattern.utf8, to: &out)
            appendEscaped(r.options.utf8, to: &out)
        case .timestamp:
            let t = BSONParts.timestamp(map)
            out.append(Tag.bsonTimestamp.rawValue)
            appendBigEndian(UInt64(bitPattern: t.seconds) ^ (1 << 63), to: &out)
            appendBigEndian(UInt64(bitPattern: t.increment) ^ (1 << 63), to: &out)
        }
    }

    /// Appends the encoding of `value` with every byte complemented: a descending component.
    package static func appendDescending(_ value: Value, to out: inout [UInt8]) {
        let start = out.count
        append(value, to: &out)
        for i in start..<out.count { out[i] = ~out[i] }
    }

    /// Appends a document path with every byte complemented: `__name__ DESC`.
    package static func appendDescending(path: ResourcePath, to out: inout [UInt8]) {
        let start = out.count
        append(path: path, to: &out)
        for i in start..<out.count { out[i] = ~out[i] }
    }

    /// Appends a document path (below `documents`) ordered as Firestore orders `__name__`:
    /// segment by segment with numeric ids `__id<n>__` first, then by segment count.
    package static func append(path: ResourcePath, to out: inout [UInt8]) {
        for segment in path.segments { appendSegment(segment, to: &out) }
        out.append(0)
    }

    /// The encoding of one value as a new array.
    package static func key(_ value: Value) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }

    // MARK: Pieces

    private static func appendSegment(_ segment: String, to out: inout [UInt8]) {
        if let n = ResourcePath.numericID(segment) {
            out.append(1)
            appendBigEndian(UInt64(bitPattern: n) ^ (1 << 63), to: &out)
        } else {
            out.append(2)
        }
        appendEscaped(segment.utf8, to: &out)
    }

    /// 0x00 becomes 0x00 0xFF; the end is 0x00 0x01, so a prefix sorts before its extensions.
    private static func appendEscaped<C: Collection<UInt8>>(_ bytes: C, to out: inout [UInt8]) {
        for b in bytes {
            out.append(b)
            if b == 0 { out.append(0xFF) }
        }
        out.append(0)
        out.append(1)
    }

    /// NaN → 0x00; anything else → 0x01 + the sign-adjusted bits (so -0.0 and 0.0 match).
    private static func appendOrderedDouble(_ d: Double, to out: inout [UInt8]) {
        if d.isNaN {
            out.append(0)
            return
        }
        out.append(1)
        appendBigEndian(orderedBits(d == 0 ? 0 : d), to: &out)
    }

    private static func orderedBits(_ d: Double) -> UInt64 {
        let bits = d.bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }

    /// A number is its value rounded toward −∞ to a double, then the exact integer excess
    /// (non-zero only for int64 values above 2^53 that a double cannot hold), as 2 bytes.
    private static func appendNumber(double d: Double, to out: inout [UInt8]) {
        appendOrderedDouble(d, to: &out)
        if !d.isNaN { out.append(0); out.append(0) }
    }

    private static func appendNumber(integer i: Int64, to out: inout [UInt8]) {
        var floor = Double(i)
        if NumberOrder.compare(i, floor) < 0 { floor = floor.nextDown }
        appendOrderedDouble(floor, to: &out)
        // floor ≤ i and i − floor < 2048 (the spacing of doubles below 2^63).
        let excess = i &- Int64(floor)
        out.append(UInt8(truncatingIfNeeded: excess >> 8))
        out.append(UInt8(truncatingIfNeeded: excess))
    }

    /// A decimal equal to an int64 or a double encodes as that number. Any other lies strictly
    /// between two doubles: the lower one, then 0xFF 0xFF, above every integer excess (< 2048).
    /// Exact beside doubles; beyond 2^53, where int64 values carry an excess, such a decimal
    /// sorts after every int64 with the same lower double (an approximation within one ulp).
    private static func appendNumber(decimal: Decimal128, to out: inout [UInt8]) {
        if let i = decimal.exactInteger {
            appendNumber(integer: i, to: &out)
            return
        }
        var d = decimal.doubleValue
        let c = Decimal128.compare(decimal, d)
        if c == 0 {
            appendNumber(double: d, to: &out)
            return
        }
        if c < 0 { d = d.nextDown }
        appendOrderedDouble(d, to: &out)
        out.append(0xFF)
        out.append(0xFF)
    }

    private static func appendBigEndian(_ v: UInt64, to out: inout [UInt8]) {
        var shift = 56
        while shift >= 0 {
            out.append(UInt8(truncatingIfNeeded: v >> UInt64(shift)))
            shift -= 8
        }
    }

    private static func appendBigEndian(_ v: UInt32, to out: inout [UInt8]) {
        var shift = 24
        while shift >= 0 {
            out.append(UInt8(truncatingIfNeeded: v >> UInt32(shift)))
            shift -= 8
        }
    }
}
