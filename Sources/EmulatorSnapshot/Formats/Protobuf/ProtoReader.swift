/// A minimal protobuf wire-format reader over a byte range, with proto1 groups.
///
/// Every read is bounds-checked; errors carry the absolute offset in the underlying buffer so
/// a caller can report `file at offset N`. The reader borrows the buffer: use it only inside
/// the `withUnsafeBufferPointer` call that produced it.
///
/// ```swift
/// bytes.withUnsafeBufferPointer { buffer in var r = ProtoReader(buffer, 0..<buffer.count); … }
/// while let (field, type) = try r.nextTag() {
///     switch field { case 1: x = try r.readVarint(); default: try r.skip(type, field: field) }
/// }
/// ```
struct ProtoReader {
    enum WireType: UInt64 {
        case varint = 0, fixed64 = 1, lengthDelimited = 2, startGroup = 3, endGroup = 4, fixed32 = 5
    }

    struct Failure: Error {
        var offset: Int
        var message: String
    }

    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position: Int
    let end: Int
    /// Set while reading inside a group: the group's field number, whose end tag stops `nextTag`.
    private var groupField: Int?
    /// True once the end tag of the group being read was consumed.
    private var groupClosed = false
    private let depth: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, depth: Int = 0) {
        self.bytes = bytes
        self.position = range.lowerBound
        self.end = range.upperBound
        self.depth = depth
    }

    /// The next field tag, or nil at the end of the message (or at the end tag of the group
    /// being read).
    mutating func nextTag() throws(Failure) -> (field: Int, type: WireType)? {
        if groupClosed { return nil }
        if position >= end {
            if let groupField { throw Failure(offset: position, message: "group \(groupField) is not closed") }
            return nil
        }
        let at = position
        let key = try readRawVarint()
        guard let type = WireType(rawValue: key & 7) else {
            throw Failure(offset: at, message: "invalid wire type \(key & 7)")
        }
        let field = Int(truncatingIfNeeded: key >> 3)
        guard field > 0, key >> 3 <= 0x1FFF_FFFF else { throw Failure(offset: at, message: "invalid field number") }
        if type == .endGroup {
            guard field == groupField else { throw Failure(offset: at, message: "unexpected end of group \(field)") }
            groupClosed = true
            return nil
        }
        return (field, type)
    }

    mutating func readRawVarint() throws(Failure) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        let start = position
        while true {
            guard position < end else { throw Failure(offset: start, message: "truncated varint") }
            let byte = bytes[position]
            position += 1
            if shift == 63 && byte > 1 { throw Failure(offset: start, message: "varint overflows 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
            if shift > 63 { throw Failure(offset: start, message: "varint overflows 64 bits") }
        }
    }

    mutating func readVarint(_ type: WireType) throws(Failure) -> UInt64 {
        guard type == .varint else { throw Failure(offset: position, message: "expected a varint field") }
        return try readRawVarint()
    }

    mutating func readFixed64(_ type: WireType) throws(Failure) -> UInt64 {
        guard type == .fixed64 else { throw Failure(offset: position, message: "expected a 64-bit field") }
        guard end - position >= 8 else { throw Failure(offset: position, message: "truncated 64-bit field") }
        var value: UInt64 = 0
        for i in 0..<8 { value |= UInt64(bytes[position + i]) << UInt64(8 * i) }
        position += 8
        return value
    }

    mutating func readFixed32(_ type: WireType) throws(Failure) -> UInt32 {
        guard type == .fixed32 else { throw Failure(offset: position, message: "expected a 32-bit field") }
        guard end - position >= 4 else { throw Failure(offset: position, message: "truncated 32-bit field") }
        var value: UInt32 = 0
        for i in 0..<4 { value |= UInt32(bytes[position + i]) << UInt32(8 * i) }
        position += 4
        return value
    }

    /// The byte range of a length-delimited field (the caller slices or nests into it).
    mutating func readLengthDelimited(_ type: WireType) throws(Failure) -> Range<Int> {
        guard type == .lengthDelimited else { throw Failure(offset: position, message: "expected a length-delimited field") }
        let at = position
        let length = try readRawVarint()
        guard length <= UInt64(end - position) else { throw Failure(offset: at, message: "length \(length) runs past the end") }
        let range = position..<(position + Int(length))
        position = range.upperBound
        return range
    }

    mutating func readBytes(_ type: WireType) throws(Failure) -> [UInt8] {
        Array(UnsafeBufferPointer(rebasing: bytes[try readLengthDelimited(type)]))
    }

    /// The bytes in `range` as a new array.
    func copy(_ range: Range<Int>) -> [UInt8] {
        Array(UnsafeBufferPointer(rebasing: bytes[range]))
    }

    mutating func readString(_ type: WireType) throws(Failure) -> String {
        let range = try readLengthDelimited(type)
        guard let text = Self.string(UnsafeBufferPointer(rebasing: bytes[range])) else {
            throw Failure(offset: range.lowerBound, message: "string is not valid UTF-8")
        }
        return text
    }

    /// True when `slice` is valid UTF-8 (ASCII checked eight bytes at a time).
    static func isUTF8(_ slice: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = slice.count
        if let base = slice.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= n {
                if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
                i += 8
            }
        }
        // Everything before `i` is ASCII, so no multi-byte sequence starts before it.
        while i < n {
            if slice[i] >= 0x80 { return String(validating: UnsafeBufferPointer(rebasing: slice[i...]), as: UTF8.self) != nil }
            i += 1
        }
        return true
    }

    /// The UTF-8 text of `slice`, or nil when it is not valid UTF-8. ASCII (field names, ids,
    /// most values) is copied without the general validator.
    static func string(_ slice: UnsafeBufferPointer<UInt8>) -> String? {
        var ascii = true
        var i = 0
        let n = slice.count
        if let base = slice.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= n {
                if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { ascii = false; break }
                i += 8
            }
            while ascii && i < n {
                if slice[i] >= 0x80 { ascii = false }
                i += 1
            }
        }
        guard ascii else { return String(validating: slice, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: n) { target in
            _ = target.initialize(from: slice)
            return n
        }
    }

    /// A reader for a nested message in a length-delimited field.
    mutating func readMessage(_ type: WireType) throws(Failure) -> ProtoReader {
        let range = try readLengthDelimited(type)
        guard depth < 100 else { throw Failure(offset: range.lowerBound, message: "messages nested too deeply") }
        return ProtoReader(bytes, range, depth: depth + 1)
    }

    /// Reads a group's fields with `body`, positioned after its start tag; consumes the end tag.
    mutating func readGroup(field: Int, _ type: WireType, _ body: (inout ProtoReader) throws(Failure) -> Void) throws(Failure) {
        guard type == .startGroup else { throw Failure(offset: position, message: "expected a group") }
        guard depth < 100 else { throw Failure(offset: position, message: "groups nested too deeply") }
        var inner = ProtoReader(bytes, position..<end, depth: depth + 1)
        inner.groupField = field
        try body(&inner)
        // Drain fields the body did not read, up to the end tag.
        while let (f, t) = try inner.nextTag() { try inner.skip(t, field: f) }
        position = inner.position
    }

    /// Skips a field's value (groups included).
    mutating func skip(_ type: WireType, field: Int) throws(Failure) {
        switch type {
        case .varint: _ = try readRawVarint()
        case .fixed64: _ = try readFixed64(type)
        case .fixed32: _ = try readFixed32(type)
        case .lengthDelimited: _ = try readLengthDelimited(type)
        case .startGroup: try readGroup(field: field, type) { _ throws(Failure) in }
        case .endGroup: throw Failure(offset: position, message: "unexpected end of group")
        }
    }
}

extension ProtoReader {
    /// Runs `body` with a reader over all of `bytes`.
    static func reading<R>(
        _ bytes: [UInt8], from start: Int = 0, _ body: (inout ProtoReader) throws(Failure) -> R
    ) throws(Failure) -> R {
        let result: Result<R, Failure> = bytes.withUnsafeBufferPointer { buffer in
            var reader = ProtoReader(buffer, min(start, buffer.count)..<buffer.count)
            do throws(Failure) { return .success(try body(&reader)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
