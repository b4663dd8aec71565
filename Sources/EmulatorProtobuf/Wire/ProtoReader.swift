package import EmulatorModel

/// Reads protobuf fields from a message's bytes. Every malformed input (truncation, overlong
/// varints, bad wire types, unbalanced groups, invalid UTF-8 in strings) throws
/// `INVALID_ARGUMENT`; nothing traps. A nested message's reader shares the outer bytes (a range
/// of the same array), so reading nested messages copies nothing.
///
/// ```swift
/// var r = ProtoReader(bytes)
/// while let (field, wire) = try r.next() {
///     switch field {
///     case 1: name = try r.string()
///     default: try r.skip(wire)
///     }
/// }
/// ```
package struct ProtoReader: Sendable {
    private let buffer: [UInt8]
    private var index: Int
    private let end: Int
    /// Nesting depth of the message being read (limits recursion on hostile input).
    package let depth: Int

    package static let maxDepth = 100

    package init(_ bytes: [UInt8], depth: Int = 0) {
        self.init(bytes, bytes.startIndex..<bytes.endIndex, depth: depth)
    }

    /// A reader over `range` of `bytes` (no copy).
    init(_ bytes: [UInt8], _ range: Range<Int>, depth: Int) {
        self.buffer = bytes
        self.index = range.lowerBound
        self.end = range.upperBound
        self.depth = depth
    }

    static func error(_ what: String) -> EmulatorError { .invalidArgument("Invalid protobuf message: \(what).") }

    package var isAtEnd: Bool { index >= end }

    /// The next field's number and wire type, or nil at the end of the message.
    package mutating func next() throws(EmulatorError) -> (field: Int, wire: ProtoWireType)? {
        guard index < end else { return nil }
        let key = try varint()
        guard let wire = ProtoWireType(rawValue: UInt8(key & 7)) else { throw Self.error("wire type \(key & 7)") }
        let field = key >> 3
        guard field >= 1, field <= 536_870_911 else { throw Self.error("field number \(field)") }
        return (Int(field), wire)
    }

    package mutating func varint() throws(EmulatorError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < end else { throw Self.error("truncated varint") }
            let b = buffer[index]
            index += 1
            if shift == 63, b > 1 { throw Self.error("varint overflows 64 bits") }
            result |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw Self.error("varint longer than 10 bytes") }
        }
    }

    package mutating func int64() throws(EmulatorError) -> Int64 { Int64(bitPattern: try varint()) }
    /// int32 and enums: the low 32 bits of the varint, as protobuf specifies.
    package mutating func int32() throws(EmulatorError) -> Int32 { Int32(truncatingIfNeeded: try varint()) }
    package mutating func sint64() throws(EmulatorError) -> Int64 { ProtoZigZag.decode(try varint()) }
    package mutating func bool() throws(EmulatorError) -> Bool { try varint() != 0 }

    package mutating func fixed64() throws(EmulatorError) -> UInt64 {
        guard end - index >= 8 else { throw Self.error("truncated fixed64") }
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(buffer[index + i]) << (8 * UInt64(i)) }
        index += 8
        return v
    }

    package mutating func fixed32() throws(EmulatorError) -> UInt32 {
        guard end - index >= 4 else { throw Self.error("truncated fixed32") }
        var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(buffer[index + i]) << (8 * UInt32(i)) }
        index += 4
        return v
    }

    package mutating func double() throws(EmulatorError) -> Double { Double(bitPattern: try fixed64()) }

    /// The range of the current length-delimited field's bytes, which it then skips.
    private mutating func lengthDelimited() throws(EmulatorError) -> Range<Int> {
        let n = try varint()
        guard n <= UInt64(end - index) else { throw Self.error("length \(n) beyond the end of the message") }
        let range = index..<(index + Int(n))
        index = range.upperBound
        return range
    }

    package mutating func bytes() throws(EmulatorError) -> [UInt8] {
        Array(buffer[try lengthDelimited()])
    }

    package mutating func string() throws(EmulatorError) -> String {
        let range = try lengthDelimited()
        guard let s = String(validating: buffer[range], as: UTF8.self) else { throw Self.error("string field is not valid UTF-8") }
        return s
    }

    /// A reader over the nested message at the current (length-delimited) field; it shares these
    /// bytes.
    package mutating func message() throws(EmulatorError) -> ProtoReader {
        guard depth < Self.maxDepth else { throw Self.error("nested more than \(Self.maxDepth) levels") }
        return ProtoReader(buffer, try lengthDelimited(), depth: depth + 1)
    }

    /// Reads a repeated int32 field, packed or not, appending to `values`.
    package mutating func repeatedInt32(_ wire: ProtoWireType, into values: inout [Int32]) throws(EmulatorError) {
        if wire == .lengthDelimited {
            var inner = ProtoReader(buffer, try lengthDelimited(), depth: depth + 1)
            while !inner.isAtEnd { values.append(try inner.int32()) }
        } else if wire == .varint {
            values.append(try int32())
        } else {
            throw Self.error("repeated int32 with wire type \(wire.rawValue)")
        }
    }

    /// Skips the value of a field of type `wire`, including whole groups.
    package mutating func skip(_ wire: ProtoWireType) throws(EmulatorError) {
        switch wire {
        case .varint: _ = try varint()
        case .fixed64: _ = try fixed64()
        case .fixed32: _ = try fixed32()
        case .lengthDelimited: _ = try lengthDelimited()
        case .startGroup:
            var open = 1
            while open > 0 {
                guard let (_, w) = try next() else { throw Self.error("unterminated group") }
                switch w {
                case .startGroup:
                    open += 1
                    if open > Self.maxDepth { throw Self.error("groups nested too deep") }
                case .endGroup: open -= 1
                default: try skip(w)
                }
            }
        case .endGroup:
            throw Self.error("unexpected end-group")
        }
    }

    /// Fails unless `wire` is `expected` (a field sent with the wrong type).
    package func expect(_ wire: ProtoWireType, _ expected: ProtoWireType, _ field: Int) throws(EmulatorError) {
        if wire != expected { throw Self.error("field \(field) has wire type \(wire.rawValue), expected \(expected.rawValue)") }
    }
}
