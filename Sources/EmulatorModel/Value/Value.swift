/// A Firestore value: the payload of one field of a document.
///
/// `==` and `hash(into:)` mean *identical representation*: strings compare by UTF-8 bytes (so
/// `"é"` and `"e\u{301}"` differ), doubles by bit pattern (so `NaN == NaN` and `0.0 != -0.0`), and
/// `.integer(1) != .double(1)`. Use ``compare(_:_:)`` for Firestore's total order and
/// ``isEquivalent(_:)`` for query and array-transform equality.
///
/// ```swift
/// let v: Value = .map(["name": "Ada", "age": .integer(36)])
/// ```
package enum Value: Sendable {
    case null
    case boolean(Bool)
    case integer(Int64)
    case double(Double)
    case timestamp(Timestamp)
    case string(String)
    case bytes([UInt8])
    /// A full resource name: `projects/{p}/databases/{d}/documents/{path}`.
    case reference(String)
    case geoPoint(latitude: Double, longitude: Double)
    case array([Value])
    case map(ValueMap)
}

extension Value: Hashable {
    package static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.boolean(let a), .boolean(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.timestamp(let a), .timestamp(let b)): return a == b
        case (.string(let a), .string(let b)): return UTF8Order.equal(a, b)
        case (.bytes(let a), .bytes(let b)): return a == b
        case (.reference(let a), .reference(let b)): return UTF8Order.equal(a, b)
        case (.geoPoint(let a1, let a2), .geoPoint(let b1, let b2)):
            return a1.bitPattern == b1.bitPattern && a2.bitPattern == b2.bitPattern
        case (.array(let a), .array(let b)): return a == b
        case (.map(let a), .map(let b)): return a == b
        default: return false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0 as UInt8)
        case .boolean(let b): hasher.combine(1 as UInt8); hasher.combine(b)
        case .integer(let i): hasher.combine(2 as UInt8); hasher.combine(i)
        case .double(let d): hasher.combine(3 as UInt8); hasher.combine(d.bitPattern)
        case .timestamp(let t): hasher.combine(4 as UInt8); hasher.combine(t)
        case .string(let s): hasher.combine(5 as UInt8); Value.hashUTF8(s, into: &hasher)
        case .bytes(let b): hasher.combine(6 as UInt8); hasher.combine(b)
        case .reference(let s): hasher.combine(7 as UInt8); Value.hashUTF8(s, into: &hasher)
        case .geoPoint(let lat, let lng):
            hasher.combine(8 as UInt8); hasher.combine(lat.bitPattern); hasher.combine(lng.bitPattern)
        case .array(let a): hasher.combine(9 as UInt8); hasher.combine(a)
        case .map(let m): hasher.combine(10 as UInt8); hasher.combine(m)
        }
    }

    /// Hashes the UTF-8 bytes of `s` (never `String.hash`, which normalises).
    package static func hashUTF8(_ s: String, into hasher: inout Hasher) {
        var s = s
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(s.utf8.count)
    }
}

extension Value {
    /// The kind of a value, in Firestore's type order: null < MinKey < boolean < number <
    /// timestamp < BSON timestamp < string < bytes < BSON binary < reference < ObjectId <
    /// geopoint < regex < array < vector < map < MaxKey. Int32 and Decimal128 are numbers.
    package enum Kind: Int, Sendable, Comparable {
        case null = 0, minKey, boolean, number, timestamp, bsonTimestamp, string, bytes, bsonBinary, reference,
            objectId, geoPoint, regex, array, vector, map, maxKey

        package static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    /// This value's position in the cross-type order. A map `{__type__: "__vector__", value: [...]}`
    /// is a vector, which sorts between arrays and maps; a map of one BSON key is that BSON type
    /// (``BSONType``).
    package var kind: Kind {
        switch self {
        case .null: .null
        case .boolean: .boolean
        case .integer, .double: .number
        case .timestamp: .timestamp
        case .string: .string
        case .bytes: .bytes
        case .reference: .reference
        case .geoPoint: .geoPoint
        case .array: .array
        case .map(let m):
            if let t = m.bsonType {
                switch t {
                case .minKey: .minKey
                case .maxKey: .maxKey
                case .objectId: .objectId
                case .int32, .decimal128: .number
                case .regex: .regex
                case .timestamp: .bsonTimestamp
                case .binary: .bsonBinary
                }
            } else {
                m.isVector ? .vector : .map
            }
        }
    }

    /// True for an `.integer` or a `.double` (not the BSON numbers), what numeric transforms take.
    package var isPlainNumber: Bool {
        switch self {
        case .integer, .double: true
        default: false
        }
    }

    /// True for `.double(.nan)`.
    package var isNaN: Bool {
        if case .double(let d) = self { return d.isNaN }
        return false
    }

    /// The fields of a `.map`, or nil.
    package var mapValue: ValueMap? {
        if case .map(let m) = self { return m }
        return nil
    }

    /// The elements of an `.array`, or nil.
    package var arrayValue: [Value]? {
        if case .array(let a) = self { return a }
        return nil
    }
}
