import EmulatorSupport

/// RFC 3986 percent-encoding.
package enum PercentEncoding {
    /// Decodes `%XX` escapes; `nil` when an escape is malformed or the result is not UTF-8.
    package static func decode(_ text: Substring, plusIsSpace: Bool = false) -> String? {
        // Most paths and query items have no escape: a Substring is valid UTF-8 already.
        if !needsDecoding(text, plusIsSpace: plusIsSpace) { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(HexDigit.value), let low = iterator.next().flatMap(HexDigit.value) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether `text` holds a `%` (or a `+` that means a space).
    static func needsDecoding(_ text: Substring, plusIsSpace: Bool) -> Bool {
        let found = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.contains { $0 == UInt8(ascii: "%") || ($0 == UInt8(ascii: "+") && plusIsSpace) }
        }
        return found ?? text.utf8.contains { $0 == UInt8(ascii: "%") || ($0 == UInt8(ascii: "+") && plusIsSpace) }
    }

    package static func decode(_ text: String, plusIsSpace: Bool = false) -> String? {
        decode(text[...], plusIsSpace: plusIsSpace)
    }

    /// Encodes every byte outside the RFC 3986 unreserved set.
    package static func encode(_ text: String) -> String {
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            default:
                let digits = Array("0123456789ABCDEF".utf8)
                out.append(UInt8(ascii: "%"))
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
