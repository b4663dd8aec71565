/// The BSON types of Firestore with MongoDB compatibility. On the wire (protobuf, REST JSON,
/// WebChannel) and in storage each is a map of exactly one reserved key, as the SDKs write them
/// (e.g. google-cloud-firestore's `bson.py`, the JS SDK's `map_type.ts`):
///
/// | type | map |
/// |---|---|
/// | MinKey / MaxKey | `{__min__: null}` / `{__max__: null}` |
/// | ObjectId | `{__oid__: "<24 hex digits>"}` |
/// | Int32 | `{__int__: <integer in int32 range>}` |
/// | Decimal128 | `{__decimal128__: "<decimal text>"}` (``Decimal128``) |
/// | Regex | `{__regex__: {pattern: "<string>", options: "<letters of imsux>"}}` |
/// | BSON timestamp | `{__request_timestamp__: {seconds: <uint32>, increment: <uint32>}}` |
/// | BSON binary data | `{__binary__: <bytes: subtype byte, then the data>}` |
///
/// Their place in the total order: ``Value/Kind``. Int32 and Decimal128 are numbers.
package enum BSONType: Sendable, Hashable, CaseIterable {
    case minKey, maxKey, objectId, int32, decimal128, regex, timestamp, binary

    /// The reserved key of the map.
    package var key: String {
        switch self {
        case .minKey: "__min__"
        case .maxKey: "__max__"
        case .objectId: "__oid__"
        case .int32: "__int__"
        case .decimal128: "__decimal128__"
        case .regex: "__regex__"
        case .timestamp: "__request_timestamp__"
        case .binary: "__binary__"
        }
    }

    /// The type whose key is `name`, or nil.
    package init?(key name: String) {
        let b = name.utf8
        guard b.count >= 7, b.first == 0x5F else { return nil }
        switch b.count {
        case 7:
            if UTF8Order.equal(name, "__min__") { self = .minKey; return }
            if UTF8Order.equal(name, "__max__") { self = .maxKey; return }
            if UTF8Order.equal(name, "__oid__") { self = .objectId; return }
            if UTF8Order.equal(name, "__int__") { self = .int32; return }
        case 9: if UTF8Order.equal(name, "__regex__") { self = .regex; return }
        case 10: if UTF8Order.equal(name, "__binary__") { self = .binary; return }
        case 14: if UTF8Order.equal(name, "__decimal128__") { self = .decimal128; return }
        case 21: if UTF8Order.equal(name, "__request_timestamp__") { self = .timestamp; return }
        default: break
        }
        return nil
    }

    /// Regex options Firestore accepts (BSON's `i`, `m`, `s`, `u`, `x`).
    package static let regexOptions: Set<Character> = ["i", "m", "s", "u", "x"]
}

extension ValueMap {
    /// The BSON type this map encodes: exactly one field whose name is a BSON key.
    @inlinable
    package var bsonType: BSONType? {
        guard count == 1 else { return nil }
        return BSONType(key: self[0].name)
    }
}

extension Value {
    /// The BSON type of a map value, or nil.
    package var bsonType: BSONType? {
        if case .map(let m) = self { return m.bsonType }
        return nil
    }

    // MARK: Constructors (the wire maps)

    package static let minKey: Value = .map(ValueMap(uncheckedSortedFields: [.init("__min__", .null)]))
    package static let maxKey: Value = .map(ValueMap(uncheckedSortedFields: [.init("__max__", .null)]))

    package static func objectId(_ hex: String) -> Value {
        .map(ValueMap(uncheckedSortedFields: [.init("__oid__", .string(hex))]))
    }

    package static func int32(_ i: Int32) -> Value {
        .map(ValueMap(uncheckedSortedFields: [.init("__int__", .integer(Int64(i)))]))
    }

    package static func decimal128(_ text: String) -> Value {
        .map(ValueMap(uncheckedSortedFields: [.init("__decimal128__", .string(text))]))
    }

    package static func regex(_ pattern: String, options: String) -> Value {
        .map(ValueMap(uncheckedSortedFields: [
            .init("__regex__", .map(ValueMap(uncheckedSortedFields: [.init("options", .string(options)), .init("pattern", .string(pattern))])))
        ]))
    }

    package static func bsonTimestamp(seconds: UInt32, increment: UInt32) -> Value {
        .map(ValueMap(uncheckedSortedFields: [
            .init("__request_timestamp__", .map(ValueMap(uncheckedSortedFields: [
                .init("increment", .integer(Int64(increment))), .init("seconds", .integer(Int64(seconds))),
            ])))
        ]))
    }

    package static func bsonBinary(subtype: UInt8, _ data: [UInt8]) -> Value {
        .map(ValueMap(uncheckedSortedFields: [.init("__binary__", .bytes([subtype] + data))]))
    }
}

/// Reading the parts of BSON maps for ordering and indexing. A stored map of a BSON key whose
/// inner value has the wrong shape (only possible from an import) reads as that type's least
/// value, so the order stays total.
package enum BSONParts {
    /// The single value under the BSON key.
    @inlinable
    package static func inner(_ m: ValueMap) -> Value { m.isEmpty ? .null : m[0].value }

    package static func objectId(_ m: ValueMap) -> String {
        if case .string(let s) = inner(m) { return s }
        return ""
    }

    package static func int32(_ m: ValueMap) -> Int64 {
        if case .integer(let i) = inner(m) { return i }
        return 0
    }

    /// A decimal whose text does not parse reads as NaN.
    package static func decimal(_ m: ValueMap) -> Decimal128 {
        if case .string(let s) = inner(m), let d = Decimal128(s) { return d }
        return Decimal128.nan
    }

    package static func regex(_ m: ValueMap) -> (pattern: String, options: String) {
        guard case .map(let r) = inner(m) else { return ("", "") }
        var pattern = ""
        var options = ""
        if case .string(let p)? = r["pattern"] { pattern = p }
        if case .string(let o)? = r["options"] { options = o }
        return (pattern, options)
    }

    package static func timestamp(_ m: ValueMap) -> (seconds: Int64, increment: Int64) {
        guard case .map(let t) = inner(m) else { return (0, 0) }
        var seconds: Int64 = 0
        var increment: Int64 = 0
        if case .integer(let s)? = t["seconds"] { seconds = s }
        if case .integer(let i)? = t["increment"] { increment = i }
        return (seconds, increment)
    }

    package static func binary(_ m: ValueMap) -> [UInt8] {
        if case .bytes(let b) = inner(m) { return b }
        return []
    }
}
