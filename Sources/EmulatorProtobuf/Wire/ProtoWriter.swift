/// Appends protobuf fields to a byte buffer. Message fields are written with
/// ``message(_:_:)``, which length-prefixes what the closure writes.
///
/// ```swift
/// var w = ProtoWriter()
/// w.int64(2, 150)            // 0x10 0x96 0x01
/// w.string(17, "a")          // 0x8A 0x01 0x01 0x61
/// let bytes = w.bytes
/// ```
package struct ProtoWriter: Sendable {
    /// What was written so far; callers may append raw bytes or take the buffer over.
    package var bytes: [UInt8] = []

    package init() {}

    /// A writer whose buffer holds `capacity` bytes before it grows.
    package init(capacity: Int) { bytes.reserveCapacity(capacity) }

    package mutating func key(_ field: Int, _ wire: ProtoWireType) {
        varint(UInt64(field) << 3 | UInt64(wire.rawValue))
    }

    package mutating func varint(_ v: UInt64) {
        var v = v
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Appends `other` verbatim.
    package mutating func raw(_ other: [UInt8]) { bytes.append(contentsOf: other) }

    // MARK: Fields (always written, even when default: callers decide presence)

    package mutating func uint64(_ field: Int, _ v: UInt64) {
        key(field, .varint)
        varint(v)
    }

    package mutating func int64(_ field: Int, _ v: Int64) { uint64(field, UInt64(bitPattern: v)) }

    /// int32 and enums: negative values sign-extend to ten bytes.
    package mutating func int32(_ field: Int, _ v: Int32) { uint64(field, UInt64(bitPattern: Int64(v))) }

    package mutating func sint64(_ field: Int, _ v: Int64) { uint64(field, ProtoZigZag.encode(v)) }

    package mutating func bool(_ field: Int, _ v: Bool) { uint64(field, v ? 1 : 0) }

    package mutating func double(_ field: Int, _ v: Double) { fixed64(field, v.bitPattern) }

    package mutating func fixed64(_ field: Int, _ v: UInt64) {
        key(field, .fixed64)
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }

    package mutating func fixed32(_ field: Int, _ v: UInt32) {
        key(field, .fixed32)
        for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) }
    }

    package mutating func string(_ field: Int, _ s: String) {
        key(field, .lengthDelimited)
        varint(UInt64(s.utf8.count))
        bytes.append(contentsOf: s.utf8)
    }

    package mutating func bytes(_ field: Int, _ b: some Collection<UInt8>) {
        key(field, .lengthDelimited)
        varint(UInt64(b.count))
        bytes.append(contentsOf: b)
    }

    /// A nested message: `body` writes its fields in place after a one-byte length, which grows
    /// (moving the body) only when the body is 128 bytes or more.
    package mutating func message(_ field: Int, _ body: (inout ProtoWriter) -> Void) {
        key(field, .lengthDelimited)
        let start = bytes.count
        bytes.append(0)
        body(&self)
        let length = bytes.count - start - 1
        if length < 0x80 {
            bytes[start] = UInt8(length)
            return
        }
        // A longer length: open room after the placeholder in place (no temporary buffer) and
        // write the varint there.
        let size = Self.varintSize(UInt64(length))
        bytes.insert(contentsOf: repeatElement(0, count: size - 1), at: start + 1)
        var v = UInt64(length)
        var i = start
        while v >= 0x80 {
            bytes[i] = UInt8(truncatingIfNeeded: v) | 0x80
            v >>= 7
            i += 1
        }
        bytes[i] = UInt8(v)
    }

    /// A proto1 group (App Engine's `EntityProto` uses them for path elements, points and
    /// references): start tag, the body's fields, end tag.
    package mutating func group(_ field: Int, _ body: (inout ProtoWriter) -> Void) {
        key(field, .startGroup)
        body(&self)
        key(field, .endGroup)
    }

    /// A packed repeated int32 (proto3's default for scalar repeated fields). Nothing if empty.
    package mutating func packedInt32(_ field: Int, _ values: [Int32]) {
        guard !values.isEmpty else { return }
        var length = 0
        for v in values { length += Self.varintSize(UInt64(bitPattern: Int64(v))) }
        key(field, .lengthDelimited)
        varint(UInt64(length))
        for v in values { varint(UInt64(bitPattern: Int64(v))) }
    }

    /// How many bytes `v` takes as a varint.
    package static func varintSize(_ v: UInt64) -> Int {
        var v = v
        var n = 1
        while v >= 0x80 {
            v >>= 7
            n += 1
        }
        return n
    }
}

/// ZigZag encoding of signed integers (`sint32`/`sint64`).
package enum ProtoZigZag {
    package static func encode(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
    package static func decode(_ v: UInt64) -> Int64 { Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1) }
}
