/// HPACK's prefixed integers (RFC 7541 §5.1) and string literals (§5.2).
enum HPACKPrimitive {
    /// Appends `value` with an `prefixBits`-bit prefix; `flags` fills the bits above the prefix.
    static func appendInteger(_ value: Int, prefixBits: Int, flags: UInt8, to out: inout [UInt8]) {
        let max = (1 << prefixBits) - 1
        if value < max {
            out.append(flags | UInt8(value))
            return
        }
        out.append(flags | UInt8(max))
        var rest = value - max
        while rest >= 128 {
            out.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }

    /// Reads an integer with an `prefixBits`-bit prefix at `index`, advancing it. Values beyond
    /// 2^28 are refused (no header field or table is that large).
    static func readInteger(_ bytes: [UInt8], _ index: inout Int, prefixBits: Int) throws(HPACKError) -> Int {
        guard index < bytes.count else { throw .truncated }
        let max = (1 << prefixBits) - 1
        var value = Int(bytes[index]) & max
        index += 1
        if value < max { return value }
        var shift = 0
        while true {
            guard index < bytes.count else { throw .truncated }
            let b = bytes[index]
            index += 1
            // Continuation bytes that add only zeros still move the shift: past 28 bits the value
            // is too large (or, shifted past 63 bits, would wrap negative), whatever they hold.
            guard shift <= 28 else { throw .integerOverflow }
            value += Int(b & 0x7F) << shift
            shift += 7
            if value > 1 << 28 { throw .integerOverflow }
            if b & 0x80 == 0 { return value }
        }
    }

    static func appendString(_ s: String, huffman: Bool, to out: inout [UInt8]) {
        if huffman {
            let encoded = Huffman.encode(s.utf8)
            appendInteger(encoded.count, prefixBits: 7, flags: 0x80, to: &out)
            out.append(contentsOf: encoded)
        } else {
            appendInteger(s.utf8.count, prefixBits: 7, flags: 0, to: &out)
            out.append(contentsOf: s.utf8)
        }
    }

    static func readString(_ bytes: [UInt8], _ index: inout Int) throws(HPACKError) -> String {
        guard index < bytes.count else { throw .truncated }
        let huffman = bytes[index] & 0x80 != 0
        let length = try readInteger(bytes, &index, prefixBits: 7)
        guard length <= bytes.count - index else { throw .truncated }
        let raw = bytes[index..<(index + length)]
        index += length
        if huffman { return String(decoding: try Huffman.decode(raw), as: UTF8.self) }
        return String(decoding: raw, as: UTF8.self)
    }
}
