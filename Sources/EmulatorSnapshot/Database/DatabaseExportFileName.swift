import EmulatorSupport

/// How a namespace name becomes the file name `database_export/<file>.json` and back.
///
/// Names that follow the namespace rule (letters, digits, hyphens) are written as they are, so
/// exports stay byte-compatible with the official emulator's. Any other byte (a `/`, a `.`, NUL,
/// `%`, non-ASCII) is written as `%XX`, so a namespace kept from before names were checked (or
/// from a live `--data-dir`) still exports, and an import decodes it back to the same name.
///
/// ```swift
/// DatabaseExportFileName.encode("demo-default-rtdb")   // "demo-default-rtdb"
/// DatabaseExportFileName.encode("a/b")                 // "a%2Fb"
/// DatabaseExportFileName.decode("a%2Fb")               // "a/b"
/// ```
package enum DatabaseExportFileName {
    /// The file name (without `.json`) for namespace `name`; never empty, `.`, `..`, or holding
    /// `/` or NUL.
    package static func encode(_ name: String) -> String {
        if name.isEmpty { return "%" }  // decodes back to ""; no other name encodes to a bare `%`
        var out: [UInt8] = []
        out.reserveCapacity(name.utf8.count)
        for byte in name.utf8 {
            if isKept(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The namespace name a file name (without `.json`) stands for: `%XX` sequences decoded, any
    /// other byte (including a `%` not followed by two hex digits) kept, so production exports
    /// named freely still import under their own names.
    package static func decode(_ file: String) -> String {
        if file == "%" { return "" }
        let bytes = Array(file.utf8)
        guard bytes.contains(UInt8(ascii: "%")) else { return file }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count,
                let high = HexDigit.value(bytes[i + 1]), let low = HexDigit.value(bytes[i + 2])
            {
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
