import EmulatorModel
import EmulatorSupport

extension DatabaseStoredBytes {
    /// The children of a bulk `PATCH` body, read straight from its bytes: each member's key and
    /// the stored bytes `encode` gives for its value, with no `JSONValue` tree built. The same
    /// answer as parsing the body (`JSONReader`, duplicate names refused) and encoding each member
    /// (`encode(_:depth:)`, every key valid), for the bodies this reader takes: a non-empty object
    /// whose names are plain ASCII keys (no escapes) and whose values `encode` takes, with strings
    /// free of escapes. Anything else is nil, and the caller parses the body the general way, which
    /// also reports every error (a repeated name included) as before: nil never means invalid.
    ///
    /// `depth` is the depth of the children (the base path's count plus one).
    package static func children(ofBody body: [UInt8], depth: Int) -> (keys: [String], stored: [[UInt8]])? {
        guard depth <= DatabasePath.maxDepth else { return nil }
        return body.withUnsafeBufferPointer { bytes in
            var reader = BodyReader(bytes: bytes)
            var outer = BodyReader.Scratch()
            var inner = BodyReader.Scratch()
            return reader.children(depth: depth, &outer, &inner)
        }
    }
}

/// The byte reader behind `DatabaseStoredBytes.children(ofBody:depth:)`: JSON's grammar for the
/// subset it takes (see there); `nil` (or `false`) as soon as the input leaves it.
private struct BodyReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    /// The members of the object being read at one height: their names (ranges of the body) and
    /// their values in the packed layout (ranges of `values`). Reused from child to child.
    struct Scratch {
        var values: [UInt8] = []
        var members: [(name: Range<Int>, value: Range<Int>)] = []
    }

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func children(depth: Int, _ outer: inout Scratch, _ inner: inout Scratch) -> (keys: [String], stored: [[UInt8]])? {
        skipWhitespace()
        guard next(UInt8(ascii: "{")) else { return nil }
        skipWhitespace()
        var keys: [String] = []
        var stored: [[UInt8]] = []
        var hashes: [UInt64] = []
        while true {
            guard let (range, hash) = readKey() else { return nil }
            skipWhitespace()
            guard next(UInt8(ascii: ":")) else { return nil }
            skipWhitespace()
            guard let value = readChild(depth: depth, &outer, &inner) else { return nil }
            keys.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
            stored.append(value)
            hashes.append(hash)
            skipWhitespace()
            if next(UInt8(ascii: ",")) {
                skipWhitespace()
                continue
            }
            guard next(UInt8(ascii: "}")) else { return nil }
            break
        }
        skipWhitespace()
        guard index == bytes.count, Self.distinct(keys, hashes) else { return nil }
        return (keys, stored)
    }

    /// Whether no key repeats (ASCII keys: equal strings are equal bytes), by an open-addressing
    /// table of the keys' hashes.
    private static func distinct(_ keys: [String], _ hashes: [UInt64]) -> Bool {
        if keys.count < 2 { return true }
        var capacity = 4
        while capacity < keys.count * 2 { capacity <<= 1 }
        let mask = capacity - 1
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: capacity) { table in
            table.initialize(repeating: -1)
            for index in keys.indices {
                var slot = Int(truncatingIfNeeded: hashes[index]) & mask
                while table[slot] >= 0 {
                    let other = table[slot]
                    if hashes[other] == hashes[index], keys[other].utf8.elementsEqual(keys[index].utf8) { return false }
                    slot = (slot + 1) & mask
                }
                table[slot] = index
            }
            return true
        }
    }

    // MARK: Tokens

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Consumes `byte` if it comes next.
    @inline(__always)
    private mutating func next(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// A quoted name that is a valid database key of plain ASCII (no escapes): the range of its
    /// bytes, and an FNV-1a hash of them.
    private mutating func readKey() -> (Range<Int>, UInt64)? {
        guard next(UInt8(ascii: "\"")) else { return nil }
        let start = index
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            // The bytes `DatabaseInputValidator.isValidKey` refuses, escapes, and non-ASCII.
            switch byte {
            case 0x2E, 0x24, 0x23, 0x5B, 0x5D, 0x2F, 0x5C, 0x00...0x1F, 0x7F...0xFF: return nil
            default: break
            }
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            index += 1
        }
        let count = index - start
        guard index < bytes.count, count > 0, count <= DatabasePath.maxKeyBytes else { return nil }
        index += 1
        return (start..<(start + count), hash)
    }

    /// The range of a quoted string's bytes (valid UTF-8, no escapes, no control characters).
    private mutating func readString() -> Range<Int>? {
        guard next(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return start..<(index - 1)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            if byte >= 0x80 {
                guard let length = UTF8Validation.scalarLength(in: bytes, at: index) else { return nil }
                index += length
            } else {
                index += 1
            }
        }
        return nil
    }

    /// A number as `JSONReader` reads it: a plain integer of up to 18 digits at once, anything
    /// else (fraction, exponent, `-0`, more digits) by `JSONReader` itself on the number's bytes.
    private mutating func readNumber() -> JSONValue? {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let first = index
        var value: Int64 = 0
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
            value = value &* 10 &+ Int64(bytes[index] &- UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - first
        let plain = index == bytes.count || !Self.isNumberByte(bytes[index])
        // `0` is an integer; `-0` (a double) and leading zeros (an error) are JSONReader's.
        if plain, digits > 0, digits <= 18, bytes[first] != UInt8(ascii: "0") || (digits == 1 && !negative) {
            return .int(negative ? -value : value)
        }
        while index < bytes.count, Self.isNumberByte(bytes[index]) { index += 1 }
        return try? JSONReader.parse(UnsafeBufferPointer(rebasing: bytes[start..<index]))
    }

    @inline(__always)
    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            true
        default: false
        }
    }

    /// `true` or `false`.
    private mutating func readBool() -> Bool? {
        if bytes.count - index >= 4, bytes[index] == UInt8(ascii: "t"), bytes[index + 1] == UInt8(ascii: "r"),
            bytes[index + 2] == UInt8(ascii: "u"), bytes[index + 3] == UInt8(ascii: "e")
        {
            index += 4
            return true
        }
        if bytes.count - index >= 5, bytes[index] == UInt8(ascii: "f"), bytes[index + 1] == UInt8(ascii: "a"),
            bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "s"),
            bytes[index + 4] == UInt8(ascii: "e")
        {
            index += 5
            return false
        }
        return nil
    }

    // MARK: Values

    /// The stored bytes of one child's value (`DatabaseStoredBytes.encode` at `depth`).
    private mutating func readChild(depth: Int, _ outer: inout Scratch, _ inner: inout Scratch) -> [UInt8]? {
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            guard depth + DatabasePackedCodec.maxHeight <= DatabasePath.maxDepth else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(96)
            out.append(DatabasePackedCodec.tag)
            out.append(0)
            var leaves = 0
            guard readObject(height: 1, leaves: &leaves, into: &out, &outer, &inner), leaves > 0,
                leaves <= DatabasePackedCodec.maxLeaves, out.count <= DatabasePackedCodec.maxBytes
            else { return nil }
            out[1] = UInt8(leaves)
            return out
        case UInt8(ascii: "\""):
            guard let range = readString(), range.count <= DatabaseNode.maxStringBytes else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(1 + range.count)
            out.append(UInt8(ascii: "s"))
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
            return out
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            return readBool().map { [UInt8(ascii: "b"), $0 ? 1 : 0] }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            switch readNumber() {
            case .int(let v)?: return DatabaseLeafCodec.encode(.int(v))
            case .double(let v)? where v.isFinite: return DatabaseLeafCodec.encode(.double(v))
            default: return nil
            }
        default:
            return nil
        }
    }

    /// Reads an object at `height` and appends its packed layout (`DatabasePackedCodec`: count,
    /// then each member in key order) to `out`, with `scratch` for its members and `inner` for
    /// an object inside; false for anything `encode` leaves to the general way, or a repeated name.
    private mutating func readObject(
        height: Int, leaves: inout Int, into out: inout [UInt8], _ scratch: inout Scratch, _ inner: inout Scratch
    ) -> Bool {
        guard next(UInt8(ascii: "{")) else { return false }
        skipWhitespace()
        scratch.values.removeAll(keepingCapacity: true)
        scratch.members.removeAll(keepingCapacity: true)
        while true {
            // Every member holds a leaf at least, so more members than leaves can never pack.
            guard scratch.members.count < DatabasePackedCodec.maxLeaves, let (name, _) = readKey() else { return false }
            skipWhitespace()
            guard next(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            let start = scratch.values.count
            guard readMemberValue(height: height, leaves: &leaves, into: &scratch.values, &inner) else { return false }
            scratch.members.append((name, start..<scratch.values.count))
            if leaves > DatabasePackedCodec.maxLeaves || scratch.values.count > DatabasePackedCodec.maxBytes { return false }
            skipWhitespace()
            if next(UInt8(ascii: ",")) {
                skipWhitespace()
                continue
            }
            guard next(UInt8(ascii: "}")) else { return false }
            break
        }
        let count = scratch.members.count
        let bytes = bytes
        // Key order by an insertion sort of indices (at most `maxLeaves` members); an equal name
        // is where an insertion stops, so a repeated one is always seen.
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { order in
            for index in 0..<count {
                var slot = index
                let name = scratch.members[index].name
                while slot > 0 {
                    let comparison = Self.compareKeys(bytes, scratch.members[order[slot - 1]].name, name)
                    if comparison == 0 { return false }
                    if comparison < 0 { break }
                    order[slot] = order[slot - 1]
                    slot -= 1
                }
                order[slot] = index
            }
            DatabasePackedCodec.appendVarint(UInt64(count), to: &out)
            for index in order {
                let member = scratch.members[index]
                DatabasePackedCodec.appendVarint(UInt64(member.name.count), to: &out)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[member.name]))
                scratch.values.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[member.value])) }
            }
            return true
        }
    }

    /// `DatabaseOrder.compareKeys` of two keys of the body (valid ASCII keys): byte order when
    /// neither can be integer-like (what it compares then, UTF-16 order, is byte order for
    /// ASCII), else the comparator itself.
    private static func compareKeys(_ bytes: UnsafeBufferPointer<UInt8>, _ a: Range<Int>, _ b: Range<Int>) -> Int {
        let x = bytes[a.lowerBound]
        let y = bytes[b.lowerBound]
        func plain(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") >= 10 && byte != UInt8(ascii: "-") }
        guard plain(x), plain(y) else {
            return DatabaseOrder.compareKeys(
                String(decoding: UnsafeBufferPointer(rebasing: bytes[a]), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(rebasing: bytes[b]), as: UTF8.self))
        }
        let common = min(a.count, b.count)
        for offset in 0..<common where bytes[a.lowerBound + offset] != bytes[b.lowerBound + offset] {
            return bytes[a.lowerBound + offset] < bytes[b.lowerBound + offset] ? -1 : 1
        }
        return a.count == b.count ? 0 : a.count < b.count ? -1 : 1
    }

    /// One member's value in the packed layout, appended to `values` (`inner` for an object).
    private mutating func readMemberValue(height: Int, leaves: inout Int, into values: inout [UInt8], _ inner: inout Scratch) -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            guard height < DatabasePackedCodec.maxHeight else { return false }
            values.append(DatabasePackedCodec.tag)
            // The height limit is 2: an object inside this one has no object inside it.
            var unused = Scratch()
            return readObject(height: height + 1, leaves: &leaves, into: &values, &inner, &unused)
        case UInt8(ascii: "\""):
            guard let range = readString(), range.count <= DatabaseNode.maxStringBytes else { return false }
            values.append(UInt8(ascii: "s"))
            DatabasePackedCodec.appendVarint(UInt64(range.count), to: &values)
            values.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            guard let v = readBool() else { return false }
            values.append(v ? UInt8(ascii: "t") : UInt8(ascii: "f"))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            switch readNumber() {
            case .int(let v)?:
                values.append(UInt8(ascii: "i"))
                DatabasePackedCodec.appendVarint(UInt64(bitPattern: (v << 1) ^ (v >> 63)), to: &values)
            case .double(let v)? where v.isFinite:
                values.append(UInt8(ascii: "d"))
                let bits = v.bitPattern
                for shift in stride(from: 56, through: 0, by: -8) {
                    values.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
                }
            default:
                return false
            }
        default:
            return false
        }
        leaves += 1
        return true
    }
}
