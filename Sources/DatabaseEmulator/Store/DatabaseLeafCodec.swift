import EmulatorModel

/// The bytes of one stored leaf: a tag byte, then the payload.
///
/// `b` + 0/1 (bool), `i` + 8 bytes big-endian (Int64), `d` + 8 bytes big-endian IEEE-754 bits
/// (Double), `s` + UTF-8 (string). Ints and doubles stay apart so `1` and `1.0` round-trip.
enum DatabaseLeafCodec {
    static func encode(_ content: DatabaseNode.Content) -> [UInt8]? {
        switch content {
        case .bool(let v): return [UInt8(ascii: "b"), v ? 1 : 0]
        case .int(let v): return [UInt8(ascii: "i")] + bigEndian(UInt64(bitPattern: v))
        case .double(let v): return [UInt8(ascii: "d")] + bigEndian(v.bitPattern)
        case .string(let v):
            var out: [UInt8] = [UInt8(ascii: "s")]
            out.append(contentsOf: v.utf8)
            return out
        case .empty, .children: return nil
        }
    }

    static func decode(_ bytes: [UInt8]) -> DatabaseNode.Content? {
        guard let tag = bytes.first else { return nil }
        switch tag {
        case UInt8(ascii: "b"): return bytes.count == 2 ? .bool(bytes[1] != 0) : nil
        case UInt8(ascii: "i"): return bytes.count == 9 ? .int(Int64(bitPattern: word(bytes))) : nil
        case UInt8(ascii: "d"): return bytes.count == 9 ? .double(Double(bitPattern: word(bytes))) : nil
        case UInt8(ascii: "s"): return .string(String(decoding: bytes[1...], as: UTF8.self))
        default: return nil
        }
    }

    private static func bigEndian(_ v: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * UInt64($0))) }
    }

    private static func word(_ bytes: [UInt8]) -> UInt64 {
        var v: UInt64 = 0
        for i in 1...8 { v = v << 8 | UInt64(bytes[i]) }
        return v
    }
}
