/// A compact binary form of a document's fields for storage and snapshots.
///
/// Layout: a map is `varint count` then, per field in key order, `varint length, UTF-8 name,
/// value`. A value is one tag byte and its payload: integers zigzag varints, doubles 8 bytes
/// little-endian, strings/bytes/references length-prefixed. A 5-field document
/// `{name, age, city, score, tags[2]}` takes about 65 bytes.
///
/// `decode` treats its input as hostile: every length, tag, UTF-8 sequence, key order and the
/// nesting depth are checked, and any defect throws `DATA_LOSS`.
package enum ValueCodec {
    /// The tag byte before each value (``ProtoStoredFields`` in EmulatorProtobuf reads them too).
    package enum Tag: UInt8 {
        case null = 0, falseValue, trueValue, integer, double, timestamp, string, bytes, reference, geoPoint,
            array, map
    }

    /// Nesting deeper than this is rejected on decode (documents allow 20; this guards the stack).
    package static let maxDecodeDepth = 64

    /// Encodes the fields of a document.
    package static func encode(_ fields: ValueMap) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        appendMap(fields, to: &out)
        return out
    }

    /// Encodes one value.
    package static func encode(_ value: Value) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }

    /// Decodes what ``encode(_:)-(ValueMap)`` produced; throws `DATA_LOSS` on any defect.
    package static func decode(_ bytes: [UInt8]) throws(EmulatorError) -> ValueMap {
        var reader = Reader(bytes: bytes)
        let map = try reader.readMap(depth: 0)
        guard reader.position == bytes.count else { throw reader.corrupt("trailing bytes") }
        return map
    }

    /// Decodes what ``encode(_:)-(Value)`` produced; throws `DATA_LOSS` on any defect.
    package static func decodeValue(_ bytes: [UInt8]) throws(EmulatorError) -> Value {
        var reader = Reader(bytes: bytes)
        let value = try reader.readValue(depth: 0)
        guard reader.position == bytes.count else { throw reader.corrupt("trailing bytes") }
        return value
    }

    // MARK: Encoding

    static func appendMap(_ map: ValueMap, to out: inout [UInt8]) {
        appendVarint(UInt64(map.count), to: &out)
        for field in map {
            appendVarint(UInt64(field.name.utf8.count), to: &out)
            out.append(contentsOf: field.name.utf8)
            append(field.value, to: &out)
        }
    }

    static func append(_ value: Value, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(Tag.null.rawValue)
        case .boolean(let b): out.append(b ? Tag.trueValue.rawValue : Tag.falseValue.rawValue)
        case .integer(let i):
            out.append(Tag.integer.rawValue)
            appendVarint(UInt64(bitPattern: (i << 1) ^ (i >> 63)), to: &out)
        case .double(let d):
            out.append(Tag.double.rawValue)
            appendFixed(d.bitPattern, to: &out)
        case .timestamp(let t):
            out.append(Tag.timestamp.rawValue)
            appendVarint(UInt64(bitPattern: (t.seconds << 1) ^ (t.seconds >> 63)), to: &out)
            appendVarint(UInt64(UInt32(bitPattern: t.nanos)), to: &out)
        case .string(let s):
            out.append(Tag.string.rawValue)
            appendVarint(UInt64(s.utf8.count), to: &out)
            out.append(contentsOf: s.utf8)
        case .bytes(let b):
            out.append(Tag.bytes.rawValue)
            appendVarint(UInt64(b.count), to: &out)
            out.append(contentsOf: b)
        case .reference(let s):
            out.append(Tag.reference.rawValue)
            appendVarint(UInt64(s.utf8.count), to: &out)
            out.append(contentsOf: s.utf8)
        case .geoPoint(let lat, let lng):
            out.append(Tag.geoPoint.rawValue)
            appendFixed(lat.bitPattern, to: &out)
            appendFixed(lng.bitPattern, to: &out)
        case .array(let elements):
            out.append(Tag.array.rawValue)
            appendVarint(UInt64(elements.count), to: &out)
            for e in elements { append(e, to: &out) }
        case .map(let m):
            out.append(Tag.map.rawValue)
            appendMap(m, to: &out)
        }
    }

    static func appendVarint(_ v: UInt64, to out: inout [UInt8]) {
        var v = v
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    static func appendFixed(_ v: UInt64, to out: inout [UInt8]) {
        for k in 0..<8 { out.append(UInt8(truncatingIfNeeded: v >> UInt64(8 * k))) }
    }
}
