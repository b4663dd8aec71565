/// The rule for Realtime Database namespace (database) names.
///
/// Production takes the namespace from the first DNS label of the database host
/// (`<name>.firebaseio.com`), so a name is what a DNS label may be: 1 to 63 ASCII letters, digits
/// and hyphens. The emulator takes it from `?ns=` or the `Host` label, and a namespace becomes a
/// file name in exports (`database_export/<name>.json`), so a name like `a/b`, `..` or one with
/// NUL is refused where it enters instead of poisoning every later export.
///
/// ```swift
/// DatabaseNamespaceName.problem("demo-default-rtdb")   // nil
/// DatabaseNamespaceName.problem("a/b")                 // "Invalid namespace \"a/b\": …"
/// ```
package enum DatabaseNamespaceName {
    package static let maxLength = 63

    /// Whether `name` is a valid namespace name.
    package static func isValid(_ name: some StringProtocol) -> Bool {
        let bytes = name.utf8
        return !bytes.isEmpty && bytes.count <= maxLength && bytes.allSatisfy(isNameByte)
    }

    /// Why `name` is not a valid namespace name (the message of a 400), or nil when it is.
    package static func problem(_ name: String) -> String? {
        guard !isValid(name) else { return nil }
        let shown = name.utf8.count > 100 ? String(decoding: name.utf8.prefix(100), as: UTF8.self) + "…" : name
        return "Invalid namespace \(quoted(shown)): a database name is 1 to \(maxLength) letters, digits or hyphens"
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"):
            true
        default: false
        }
    }

    /// `"name"` with control characters, quotes and backslashes escaped, for error messages.
    private static func quoted(_ name: String) -> String {
        var out = "\""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
