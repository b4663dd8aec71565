/// A minimal protobuf wire-format writer: varints, 64-bit, length-delimited, and proto1 groups
/// (App Engine's `EntityProto` uses groups for path elements, points and references).
///
/// ```swift
/// var w = ProtoWriter()
/// w.writeVarint(field: 1, 150)      // 08 96 01
/// w.writeString(field: 2, "a")      // 12 01 61
/// ```
struct ProtoWriter {
    enum WireType: UInt64 {
        case varint = 0, fixed64 = 1, lengthDelimited = 2, startGroup = 3, endGroup = 4, fixed32 = 5
    }

    var bytes: [UInt8] = []

    mutating func writeRawVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func writeTag(_ field: Int, _ type: WireType) {
        writeRawVarint(UInt64(field) << 3 | type.rawValue)
    }

    mutating func writeVarint(field: Int, _ value: UInt64) {
        writeTag(field, .varint)
        writeRawVarint(value)
    }

    /// An `int64` field (negative values take ten bytes, as protobuf specifies).
    mutating func writeInt64(field: Int, _ value: Int64) {
        writeVarint(field: field, UInt64(bitPattern: value))
    }

    mutating func writeBool(field: Int, _ value: Bool) {
        writeVarint(field: field, value ? 1 : 0)
    }

    mutating func writeFixed64(field: Int, _ value: UInt64) {
        writeTag(field, .fixed64)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func writeDouble(field: Int, _ value: Double) {
        writeFixed64(field: field, value.bitPattern)
    }

    mutating func writeFixed32(field: Int, _ value: UInt32) {
        writeTag(field, .fixed32)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func writeBytes(field: Int, _ value: some Collection<UInt8>) {
        writeTag(field, .lengthDelimited)
        writeRawVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func writeString(field: Int, _ value: String) {
        writeBytes(field: field, value.utf8)
    }

    /// A nested message, written by `body` in place: one length byte is reserved and the body
    /// is shifted when its length needs a longer varint (no temporary buffer).
    mutating func writeMessage(field: Int, _ body: (inout ProtoWriter) -> Void) {
        writeTag(field, .lengthDelimited)
        let lengthAt = bytes.count
        bytes.append(0)
        body(&self)
        let length = bytes.count - lengthAt - 1
        if length < 0x80 {
            bytes[lengthAt] = UInt8(length)
            return
        }
        var varint: [UInt8] = []
        var v = UInt64(length)
        while v >= 0x80 {
            varint.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        varint.append(UInt8(v))
        bytes.replaceSubrange(lengthAt..<(lengthAt + 1), with: varint)
    }

    /// A proto1 group: start tag, the body's fields, end tag.
    mutating func writeGroup(field: Int, _ body: (inout ProtoWriter) -> Void) {
        writeTag(field, .startGroup)
        body(&self)
        writeTag(field, .endGroup)
    }
}
