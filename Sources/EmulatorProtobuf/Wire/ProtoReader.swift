package import EmulatorModel
import EmulatorSupport

/// Reads protobuf fields from a message's bytes; the one protobuf reader of the package (gRPC
/// requests, the client's responses, export entity records, journal records). Every malformed
/// input (truncation, overlong varints, bad wire types, unbalanced groups, invalid UTF-8 in
/// strings, nesting past `maxDepth`) throws `Failure`; nothing traps. A nested message's reader
/// shares the outer bytes (a range of the same array), so reading nested messages copies nothing.
///
/// `Failure` is the caller's error type, made from a description and the byte offset (in the
/// whole array) where the damage is: `ProtoReader` throws `EmulatorError` (`INVALID_ARGUMENT`,
/// the offset left out), `ProtoRecordReader` throws `ProtoFailure`, which keeps the offset for
/// file formats whose errors name it.
///
/// ```swift
/// var r = ProtoReader(bytes)
/// while let (field, wire) = try r.next() {
///     switch field {
///     case 1: try r.expect(wire, .lengthDelimited, field); name = try r.string()
///     case 5: try r.expect(wire, .startGroup, field); point = try r.group(field) { g in try readPoint(&g) }
///     default: try r.skip(wire)
///     }
/// }
/// ```
package struct ProtoWireReader<Failure: ProtoReadFailure>: Sendable {
    /// All the bytes this reader (and every reader nested in it) reads from; offsets and ranges
    /// index into them.
    package let buffer: [UInt8]
    @usableFromInline var index: Int
    @usableFromInline let end: Int
    /// Nesting depth of the message being read (limits recursion on hostile input).
    package let depth: Int
    /// Inside a group: its field number, whose end tag ends `next()`; -1 once that tag was read;
    /// 0 in a message.
    @usableFromInline var group: Int
    /// The field number `next()` returned last (what `skip(.startGroup)` closes).
    @usableFromInline var lastField: Int

    package static var maxDepth: Int { 100 }

    package init(_ bytes: [UInt8], depth: Int = 0) {
        self.init(bytes, bytes.startIndex..<bytes.endIndex, depth: depth, group: 0)
    }

    /// A reader over `range` of `bytes` (no copy); a range outside `bytes` is clamped to it.
    package init(_ bytes: [UInt8], range: Range<Int>, depth: Int = 0) {
        self.init(bytes, range.clamped(to: bytes.startIndex..<bytes.endIndex), depth: depth, group: 0)
    }

    @inlinable
    init(_ bytes: [UInt8], _ range: Range<Int>, depth: Int, group: Int) {
        self.buffer = bytes
        self.index = range.lowerBound
        self.end = range.upperBound
        self.depth = depth
        self.group = group
        self.lastField = 0
    }

    /// The offset of the next byte to read.
    package var position: Int { index }

    package var isAtEnd: Bool { index >= end }

    @inlinable
    static func failure(_ what: String, at offset: Int) -> Failure { Failure.protoFailure(what, at: offset) }

    /// The next field's number and wire type, or nil at the end of the message (or at the end
    /// tag of the group being read). An end-group tag is never returned: outside the group it
    /// closes, it is an error.
    @inlinable
    package mutating func next() throws(Failure) -> (field: Int, wire: ProtoWireType)? {
        guard group >= 0 else { return nil }
        guard index < end else {
            if group > 0 { throw Self.failure("unterminated group \(group)", at: index) }
            return nil
        }
        let at = index
        let key = try varint()
        guard let wire = ProtoWireType(rawValue: UInt8(key & 7)) else { throw Self.failure("wire type \(key & 7)", at: at) }
        let field = key >> 3
        guard field >= 1, field <= 536_870_911 else { throw Self.failure("field number \(field)", at: at) }
        if wire == .endGroup {
            guard group > 0, field == UInt64(group) else { throw Self.failure("unexpected end-group \(field)", at: at) }
            group = -1
            return nil
        }
        lastField = Int(field)
        return (Int(field), wire)
    }

    @inlinable
    package mutating func varint() throws(Failure) -> UInt64 {
        let start = index
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < end else { throw Self.failure("truncated varint", at: start) }
            let b = buffer[index]
            index += 1
            if shift == 63, b > 1 { throw Self.failure("varint overflows 64 bits", at: start) }
            result |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw Self.failure("varint longer than 10 bytes", at: start) }
        }
    }

    @inlinable
    package mutating func int64() throws(Failure) -> Int64 { Int64(bitPattern: try varint()) }
    /// int32 and enums: the low 32 bits of the varint, as protobuf specifies.
    @inlinable
    package mutating func int32() throws(Failure) -> Int32 { Int32(truncatingIfNeeded: try varint()) }
    @inlinable
    package mutating func sint64() throws(Failure) -> Int64 { ProtoZigZag.decode(try varint()) }
    @inlinable
    package mutating func bool() throws(Failure) -> Bool { try varint() != 0 }

    @inlinable
    package mutating func fixed64() throws(Failure) -> UInt64 {
        guard end - index >= 8 else { throw Self.failure("truncated fixed64", at: index) }
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(buffer[index + i]) << (8 * UInt64(i)) }
        index += 8
        return v
    }

    @inlinable
    package mutating func fixed32() throws(Failure) -> UInt32 {
        guard end - index >= 4 else { throw Self.failure("truncated fixed32", at: index) }
        var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(buffer[index + i]) << (8 * UInt32(i)) }
        index += 4
        return v
    }

    @inlinable
    package mutating func double() throws(Failure) -> Double { Double(bitPattern: try fixed64()) }

    /// The range (in `bytes`) of the current length-delimited field's bytes, which it then skips.
    @inlinable
    package mutating func lengthDelimited() throws(Failure) -> Range<Int> {
        let at = index
        let n = try varint()
        guard n <= UInt64(end - index) else { throw Self.failure("length \(n) beyond the end of the message", at: at) }
        let range = index..<(index + Int(n))
        index = range.upperBound
        return range
    }

    @inlinable
    package mutating func bytes() throws(Failure) -> [UInt8] {
        Array(buffer[try lengthDelimited()])
    }

    @inlinable
    package mutating func string() throws(Failure) -> String {
        let range = try lengthDelimited()
        let text = buffer.withUnsafeBufferPointer { UTF8Validation.string(UnsafeBufferPointer(rebasing: $0[range])) }
        guard let text else { throw Self.failure("string field is not valid UTF-8", at: range.lowerBound) }
        return text
    }

    /// A reader over the nested message at the current (length-delimited) field; it shares these
    /// bytes.
    @inlinable
    package mutating func message() throws(Failure) -> Self {
        guard depth < Self.maxDepth else { throw Self.failure("nested more than \(Self.maxDepth) levels", at: index) }
        return Self(buffer, try lengthDelimited(), depth: depth + 1, group: 0)
    }

    /// A reader over the nested message at `range`, a length-delimited field read earlier with
    /// `lengthDelimited()` (of this reader or of one nested in it).
    @inlinable
    package func message(at range: Range<Int>) throws(Failure) -> Self {
        guard depth < Self.maxDepth else { throw Self.failure("nested more than \(Self.maxDepth) levels", at: range.lowerBound) }
        return Self(buffer, range.clamped(to: buffer.startIndex..<buffer.endIndex), depth: depth + 1, group: 0)
    }

    /// Reads the proto1 group whose start tag (of `field`) `next()` just returned: `body` reads
    /// its fields from a reader whose `next()` ends at the group's end tag; fields `body` leaves
    /// are skipped, and this reader continues after the end tag.
    @inlinable
    package mutating func group<R>(_ field: Int, _ body: (inout Self) throws(Failure) -> R) throws(Failure) -> R {
        guard depth < Self.maxDepth else { throw Self.failure("groups nested too deep", at: index) }
        var inner = Self(buffer, index..<end, depth: depth + 1, group: field)
        let result = try body(&inner)
        while let (_, wire) = try inner.next() { try inner.skip(wire) }
        index = inner.index
        return result
    }

    /// Reads a repeated int32 field, packed or not, appending to `values`.
    package mutating func repeatedInt32(_ wire: ProtoWireType, into values: inout [Int32]) throws(Failure) {
        if wire == .lengthDelimited {
            var inner = Self(buffer, try lengthDelimited(), depth: depth + 1, group: 0)
            while !inner.isAtEnd { values.append(try inner.int32()) }
        } else if wire == .varint {
            values.append(try int32())
        } else {
            throw Self.failure("repeated int32 with wire type \(wire.rawValue)", at: index)
        }
    }

    /// Skips the value of the field `next()` returned last, of type `wire`, including whole
    /// groups (whose end tag must match).
    @inlinable
    package mutating func skip(_ wire: ProtoWireType) throws(Failure) {
        switch wire {
        case .varint: _ = try varint()
        case .fixed64: _ = try fixed64()
        case .fixed32: _ = try fixed32()
        case .lengthDelimited: _ = try lengthDelimited()
        case .startGroup: try group(lastField) { (_: inout Self) throws(Failure) in }
        case .endGroup: throw Self.failure("unexpected end-group", at: index)
        }
    }

    /// Fails unless `wire` is `expected` (a field sent with the wrong type).
    @inlinable
    package func expect(_ wire: ProtoWireType, _ expected: ProtoWireType, _ field: Int) throws(Failure) {
        if wire != expected {
            throw Self.failure("field \(field) has wire type \(wire.rawValue), expected \(expected.rawValue)", at: index)
        }
    }
}

/// The reader of protobuf requests and responses: failures are `INVALID_ARGUMENT` errors.
package typealias ProtoReader = ProtoWireReader<EmulatorError>

/// The reader of records in files (export entities, journal records, export metadata): failures
/// keep the byte offset.
package typealias ProtoRecordReader = ProtoWireReader<ProtoFailure>

/// What a `ProtoWireReader` throws: an error made from a description of the damage and its byte
/// offset.
package protocol ProtoReadFailure: Error {
    static func protoFailure(_ what: String, at offset: Int) -> Self
}

extension EmulatorError: ProtoReadFailure {
    /// `INVALID_ARGUMENT` "Invalid protobuf message: <what>." (a client is not told offsets).
    package static func protoFailure(_ what: String, at offset: Int) -> EmulatorError {
        .invalidArgument("Invalid protobuf message: \(what).")
    }
}

/// A protobuf failure at a byte offset, for file formats whose errors say where the damage is.
package struct ProtoFailure: ProtoReadFailure, Equatable {
    /// The offset in the bytes the reader was made over.
    package var offset: Int
    package var message: String

    package init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    package static func protoFailure(_ what: String, at offset: Int) -> ProtoFailure { ProtoFailure(offset: offset, message: what) }
}
