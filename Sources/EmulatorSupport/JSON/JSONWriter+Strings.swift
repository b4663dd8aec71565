extension JSONWriter {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `value` as a quoted JSON string. Escapes `"`, `\` and control characters
    /// (`\b \f \n \r \t` by name, others as `\u00XX`); everything else, including non-ASCII,
    /// is written as raw UTF-8, as `JSON.stringify` does.
    mutating func appendEscaped(_ value: String) {
        let done: Void? = value.utf8.withContiguousStorageIfAvailable { source in
            Self.appendEscaped(source, to: &bytes)
        }
        if done == nil {
            var copy = value
            copy.withUTF8 { source in Self.appendEscaped(source, to: &bytes) }
        }
    }

    /// Appends the UTF-8 in `source` as a quoted JSON string.
    package static func appendEscaped(_ source: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        appendEscapedContents(source, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends the UTF-8 in `source` escaped as the inside of a JSON string, without the quotes
    /// (for a string assembled from parts).
    package static func appendEscapedContents(_ source: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        let count = source.count
        var index = JSONStringScan.skipUnescaped(source, from: 0, to: count)
        while index < count {
            let byte = source[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
            index += 1
        }
        if index == count {
            // Common case: nothing to escape.
            bytes.append(contentsOf: source)
            return
        }
        var runStart = 0
        while index < count {
            let byte = source[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            if runStart < index {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<index]))
            }
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            default:
                bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
            index += 1
            runStart = index
        }
        if runStart < count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<count]))
        }
    }

    /// Appends `text` escaped as the inside of a JSON string, without the quotes.
    package static func appendEscapedContents(_ text: String, to bytes: inout [UInt8]) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { appendEscapedContents($0, to: &bytes) }
        if done == nil {
            var copy = text
            copy.withUTF8 { appendEscapedContents($0, to: &bytes) }
        }
    }
}
