import EmulatorSupport

/// Splits a `firestore.rules` source into tokens on demand. The parser can also read raw text
/// (match patterns and path literals) from a byte offset, since `/` means different things there.
struct FirestoreLexer {
    struct Failure: Error {
        var position: SourcePosition
        var message: String
    }

    let bytes: [UInt8]
    private(set) var index = 0
    private var line = 1
    private var lineStart = 0

    init(_ source: String) {
        bytes = Array(source.utf8)
    }

    var position: SourcePosition { SourcePosition(line: line, column: index - lineStart + 1) }

    func peekByte(_ ahead: Int = 0) -> UInt8? {
        index + ahead < bytes.count ? bytes[index + ahead] : nil
    }

    mutating func advance() {
        if bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        index += 1
    }

    /// Moves back to a byte offset on the current line range already scanned.
    mutating func rewind(to offset: Int, position: SourcePosition) {
        index = offset
        line = position.line
        lineStart = offset - (position.column - 1)
    }

    mutating func skipTrivia() throws(Failure) {
        while let b = peekByte() {
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D {
                advance()
            } else if b == UInt8(ascii: "/"), peekByte(1) == UInt8(ascii: "/") {
                while let c = peekByte(), c != 0x0A { _ = c; advance() }
            } else if b == UInt8(ascii: "/"), peekByte(1) == UInt8(ascii: "*") {
                let start = position
                advance(); advance()
                while true {
                    guard let c = peekByte() else { throw Failure(position: start, message: "unterminated comment") }
                    if c == UInt8(ascii: "*"), peekByte(1) == UInt8(ascii: "/") {
                        advance(); advance()
                        break
                    }
                    advance()
                }
            } else {
                return
            }
        }
    }

    static func isIdentifierStart(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
    }

    static func isIdentifierByte(_ b: UInt8) -> Bool {
        isIdentifierStart(b) || (b >= 0x30 && b <= 0x39)
    }

    private static let twoByteSymbols: Set<String> = ["==", "!=", "<=", ">=", "&&", "||"]

    mutating func next() throws(Failure) -> FirestoreToken {
        try skipTrivia()
        let start = position
        let offset = index
        guard let b = peekByte() else { return FirestoreToken(kind: .end, position: start, offset: offset) }
        func token(_ kind: FirestoreToken.Kind) -> FirestoreToken { FirestoreToken(kind: kind, position: start, offset: offset) }

        if Self.isIdentifierStart(b) {
            if (b == UInt8(ascii: "b") || b == UInt8(ascii: "B")),
                let q = peekByte(1), q == UInt8(ascii: "'") || q == UInt8(ascii: "\"")
            {
                advance()
                let text = try scanString()
                return token(.bytes(Array(text.utf8)))
            }
            while let c = peekByte(), Self.isIdentifierByte(c) { advance() }
            return token(.identifier(String(decoding: bytes[offset..<index], as: UTF8.self)))
        }
        if b >= 0x30 && b <= 0x39 {
            return token(try scanNumber(start: start))
        }
        if b == UInt8(ascii: "'") || b == UInt8(ascii: "\"") {
            return token(.string(try scanString()))
        }
        if b == UInt8(ascii: "."), let d = peekByte(1), d >= 0x30 && d <= 0x39 {
            return token(try scanNumber(start: start))
        }
        if let c = peekByte(1) {
            let pair = String(decoding: [b, c], as: UTF8.self)
            if Self.twoByteSymbols.contains(pair) {
                advance(); advance()
                return token(.symbol(pair))
            }
        }
        let singles = Array("{}()[];,.:?!=<>+-*/%".utf8)
        if singles.contains(b) {
            advance()
            return token(.symbol(String(UnicodeScalar(b))))
        }
        if b == UInt8(ascii: "&") || b == UInt8(ascii: "|") {
            throw Failure(position: start, message: "unexpected '\(UnicodeScalar(b))'; did you mean '\(UnicodeScalar(b))\(UnicodeScalar(b))'?")
        }
        throw Failure(position: start, message: "unexpected character '\(Character(UnicodeScalar(b)))'")
    }

    private mutating func scanNumber(start: SourcePosition) throws(Failure) -> FirestoreToken.Kind {
        let offset = index
        var isFloat = false
        while let c = peekByte() {
            if c >= 0x30 && c <= 0x39 {
                advance()
            } else if c == UInt8(ascii: "."), !isFloat, let d = peekByte(1), d >= 0x30 && d <= 0x39 {
                isFloat = true
                advance()
            } else if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                isFloat = true
                advance()
                if let s = peekByte(), s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { advance() }
            } else {
                break
            }
        }
        let text = String(decoding: bytes[offset..<index], as: UTF8.self)
        if !isFloat, let value = Int64(text) { return .int(value) }
        guard let value = Double(text) else { throw Failure(position: start, message: "malformed number '\(text)'") }
        return .float(value)
    }

    /// Reads a quoted string; only `\\ \' \" \n \t \r \uXXXX` escapes are accepted, as in production.
    mutating func scanString() throws(Failure) -> String {
        let start = position
        guard let quote = peekByte() else { throw Failure(position: start, message: "unterminated string") }
        advance()
        var out: [UInt8] = []
        while true {
            guard let c = peekByte(), c != 0x0A else { throw Failure(position: start, message: "unterminated string") }
            advance()
            if c == quote { break }
            if c == UInt8(ascii: "\\") {
                let escapePosition = SourcePosition(line: position.line, column: position.column - 1)
                guard let e = peekByte() else { throw Failure(position: start, message: "unterminated string") }
                advance()
                switch e {
                case UInt8(ascii: "\\"), UInt8(ascii: "'"), UInt8(ascii: "\""): out.append(e)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "u"):
                    var value: UInt32 = 0
                    for _ in 0..<4 {
                        guard let h = peekByte(), let digit = HexDigit.value(h) else {
                            throw Failure(position: escapePosition, message: "invalid \\u escape")
                        }
                        value = value * 16 + UInt32(digit)
                        advance()
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(value) ?? "\u{FFFD}")).utf8))
                default:
                    throw Failure(
                        position: escapePosition,
                        message: "invalid escape sequence '\\\(Character(UnicodeScalar(e)))' in string literal")
                }
                continue
            }
            out.append(c)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
