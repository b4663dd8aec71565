extension JSONParser {
    /// Parses a string body; `index` is just past the opening quote.
    mutating func parseString() throws(JSONError) -> String {
        let start = index
        let count = bytes.count
        var i = JSONStringScan.skipPlainASCII(bytes, from: index, to: count)
        while i < count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                index = i + 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                return try parseEscapedString(start: start, escapeAt: i)
            }
            if byte < 0x20 {
                throw error("control character \(describe(byte)) in string must be escaped", at: i)
            }
            if byte >= 0x80 {
                guard let length = UTF8Validation.scalarLength(in: bytes, at: i) else {
                    throw error("invalid UTF-8 in string", at: i)
                }
                i += length
            } else {
                i += 1
            }
        }
        throw error("unterminated string", at: start - 1)
    }

    /// The slow path: copies the string into `scratch`, decoding escapes.
    private mutating func parseEscapedString(start: Int, escapeAt: Int) throws(JSONError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<escapeAt]))
        var i = escapeAt
        let count = bytes.count
        while i < count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                index = i + 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                i = try decodeEscape(at: i)
            } else if byte < 0x20 {
                throw error("control character \(describe(byte)) in string must be escaped", at: i)
            } else if byte >= 0x80 {
                guard let length = UTF8Validation.scalarLength(in: bytes, at: i) else {
                    throw error("invalid UTF-8 in string", at: i)
                }
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[i..<(i + length)]))
                i += length
            } else {
                scratch.append(byte)
                i += 1
            }
        }
        throw error("unterminated string", at: start - 1)
    }

    /// Decodes the escape at `position` (a backslash) into `scratch`; returns the next index.
    private mutating func decodeEscape(at position: Int) throws(JSONError) -> Int {
        guard position + 1 < bytes.count else { throw error("unterminated string", at: position) }
        let decoded: UInt8
        switch bytes[position + 1] {
        case UInt8(ascii: "\""): decoded = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): decoded = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): decoded = UInt8(ascii: "/")
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = 0x0A
        case UInt8(ascii: "r"): decoded = 0x0D
        case UInt8(ascii: "t"): decoded = 0x09
        case UInt8(ascii: "u"):
            return try decodeUnicodeEscape(at: position)
        case let other:
            throw error("invalid escape \(describe(other)) in string", at: position)
        }
        scratch.append(decoded)
        return position + 2
    }

    private func hexQuad(at position: Int) -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for offset in 0..<4 {
            guard let digit = HexDigit.value(bytes[position + offset]) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private mutating func decodeUnicodeEscape(at position: Int) throws(JSONError) -> Int {
        guard let unit = hexQuad(at: position + 2) else {
            throw error("invalid \\u escape: expected 4 hex digits", at: position)
        }
        var scalarValue = unit
        var next = position + 6
        if unit >= 0xD800 && unit <= 0xDBFF {
            guard next + 1 < bytes.count, bytes[next] == UInt8(ascii: "\\"), bytes[next + 1] == UInt8(ascii: "u"),
                let low = hexQuad(at: next + 2), low >= 0xDC00 && low <= 0xDFFF
            else {
                throw error("lone high surrogate in \\u escape", at: position)
            }
            scalarValue = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            next += 6
        } else if unit >= 0xDC00 && unit <= 0xDFFF {
            throw error("lone low surrogate in \\u escape", at: position)
        }
        guard let scalar = Unicode.Scalar(scalarValue) else {
            throw error("invalid \\u escape", at: position)
        }
        UTF8Validation.appendUTF8(of: scalar, to: &scratch)
        return next
    }
}
