package import EmulatorModel
import EmulatorSupport

/// Writes a document's stored fields (``ValueCodec`` bytes) as protobuf `map<string, Value>`
/// entries without building ``Value``s: the same bytes ``ProtoValue/writeFields(_:field:to:)``
/// writes for the decoded map, at the cost of one pass over the input. A Listen stream sends each
/// committed document this way.
///
/// The input is checked as ``ValueCodec/decode(_:)`` checks it (lengths, tags, UTF-8, nesting,
/// nanos); on a defect the writer is left as it was and `DATA_LOSS` is thrown. Key order is not
/// checked: the entries are written in the stored order.
package enum ProtoStoredFields {
    /// Writes the entries of the stored map `stored` as repeated field `field`.
    package static func write(_ stored: [UInt8], field: Int, to w: inout ProtoWriter) throws(EmulatorError) {
        let mark = w.bytes.count
        let ok = stored.withUnsafeBufferPointer { buffer in
            var cursor = Cursor(bytes: buffer)
            guard cursor.map(field: field, depth: 0, to: &w), cursor.position == buffer.count else { return false }
            return true
        }
        guard ok else {
            w.bytes.removeSubrange(mark...)
            throw .dataLoss("Corrupted value encoding of a stored document.")
        }
    }

    /// A bounds-checked pass over the stored bytes; every method returns false on a defect.
    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        mutating func byte() -> UInt8? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func varint() -> UInt64? {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while let b = byte() {
                if shift == 63 && b > 1 { return nil }
                result |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 { return result }
                shift += 7
                if shift > 63 { return nil }
            }
            return nil
        }

        mutating func zigzag() -> Int64? {
            guard let v = varint() else { return nil }
            return Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1)))
        }

        mutating func fixed() -> UInt64? {
            guard bytes.count - position >= 8 else { return nil }
            var v: UInt64 = 0
            for k in 0..<8 { v |= UInt64(bytes[position + k]) << UInt64(8 * k) }
            position += 8
            return v
        }

        /// A count that fits in the rest of the input at `unit` bytes per item.
        mutating func count(unit: Int) -> Int? {
            guard let n = varint(), n <= UInt64(bytes.count - position) / UInt64(unit) else { return nil }
            return Int(n)
        }

        /// A length-prefixed run of bytes, optionally valid UTF-8.
        mutating func run(utf8: Bool) -> UnsafeBufferPointer<UInt8>? {
            guard let n = count(unit: 1) else { return nil }
            let slice = UnsafeBufferPointer(rebasing: bytes[position..<(position + n)])
            if utf8 && !Self.isASCII(slice) && !UTF8Validation.isValid(slice) { return nil }
            position += n
            return slice
        }

        static func isASCII(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
            for byte in b where byte >= 0x80 { return false }
            return true
        }

        mutating func map(field: Int, depth: Int, to w: inout ProtoWriter) -> Bool {
            guard let n = count(unit: 2) else { return false }
            for _ in 0..<n {
                guard let name = run(utf8: true) else { return false }
                var ok = true
                w.message(field) { entry in
                    entry.bytes(1, name)
                    entry.message(2) { ok = value(depth: depth + 1, to: &$0) }
                }
                guard ok else { return false }
            }
            return true
        }

        /// Writes the fields of one `Value` message (as ``ProtoValue/write(_:to:)`` does).
        mutating func value(depth: Int, to w: inout ProtoWriter) -> Bool {
            guard depth <= ValueCodec.maxDecodeDepth, let raw = byte(), let tag = ValueCodec.Tag(rawValue: raw) else { return false }
            switch tag {
            case .null: w.uint64(11, 0)
            case .falseValue: w.bool(1, false)
            case .trueValue: w.bool(1, true)
            case .integer:
                guard let i = zigzag() else { return false }
                w.int64(2, i)
            case .double:
                guard let d = fixed() else { return false }
                w.fixed64(3, d)
            case .timestamp:
                guard let seconds = zigzag(), let nanos = varint(), nanos < 1_000_000_000 else { return false }
                w.message(10) { t in
                    if seconds != 0 { t.int64(1, seconds) }
                    if nanos != 0 { t.int32(2, Int32(nanos)) }
                }
            case .string:
                guard let s = run(utf8: true) else { return false }
                w.bytes(17, s)
            case .bytes:
                guard let b = run(utf8: false) else { return false }
                w.bytes(18, b)
            case .reference:
                guard let s = run(utf8: true) else { return false }
                w.bytes(5, s)
            case .geoPoint:
                guard let lat = fixed(), let lng = fixed() else { return false }
                w.message(8) {
                    $0.fixed64(1, lat)
                    $0.fixed64(2, lng)
                }
            case .array:
                guard let n = count(unit: 1) else { return false }
                var ok = true
                w.message(9) { a in
                    for _ in 0..<n where ok {
                        a.message(1) { ok = value(depth: depth + 1, to: &$0) }
                    }
                }
                return ok
            case .map:
                var ok = true
                w.message(6) { ok = map(field: 1, depth: depth, to: &$0) }
                return ok
            }
            return true
        }
    }
}
