import EmulatorSupport

/// A JSON value with the source position of its first byte, as read by `LenientJSONParser`.
struct LenientJSON: Sendable {
    indirect enum Kind: Sendable {
        case null
        case bool(Bool)
        case int(Int64)
        case double(Double)
        case string(String)
        case array([LenientJSON])
        case object([Member])
    }

    struct Member: Sendable {
        var name: String
        var namePosition: SourcePosition
        var value: LenientJSON
    }

    var kind: Kind
    var position: SourcePosition

    /// The same value without positions.
    var jsonValue: JSONValue {
        switch kind {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .array(let items): .array(items.map(\.jsonValue))
        case .object(let members): .object(members.map { JSONMember($0.name, $0.value.jsonValue) })
        }
    }
}

/// A JSON reader that also accepts what `database.rules.json` files contain in practice:
/// `//` and `/* */` comments, literal newlines and tabs inside strings, and trailing commas.
struct LenientJSONParser {
    struct Failure: Error {
        var position: SourcePosition
        var message: String
    }

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// Parses one value followed only by whitespace and comments.
    static func parse(_ text: String) -> Result<LenientJSON, Failure> {
        var parser = LenientJSONParser(text)
        do throws(Failure) {
            let value = try parser.parseValue()
            try parser.skipTrivia()
            if parser.index < parser.bytes.count {
                throw parser.failure("unexpected text after the JSON value")
            }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    private var position: SourcePosition { SourcePosition(line: line, column: index - lineStart + 1) }

    private func failure(_ message: String) -> Failure { Failure(position: position, message: message) }

    private mutating func advance() {
        if bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        index += 1
    }

    private mutating func skipTrivia() throws(Failure) {
        while index < bytes.count {
            let b = bytes[index]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D {
                advance()
            } else if b == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                while index < bytes.count, bytes[index] != 0x0A { advance() }
            } else if b == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                let start = position
                advance(); advance()
                var closed = false
                while index < bytes.count {
                    if bytes[index] == UInt8(ascii: "*"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                        advance(); advance()
                        closed = true
                        break
                    }
                    advance()
                }
                if !closed { throw Failure(position: start, message: "unterminated comment") }
            } else {
                return
            }
        }
    }

    private mutating func parseValue() throws(Failure) -> LenientJSON {
        try skipTrivia()
        guard index < bytes.count else { throw failure("unexpected end of input") }
        let start = position
        switch bytes[index] {
        case UInt8(ascii: "{"):
            depth += 1
            defer { depth -= 1 }
            if depth > 256 { throw failure("nesting too deep") }
            advance()
            var members: [LenientJSON.Member] = []
            while true {
                try skipTrivia()
                guard index < bytes.count else { throw failure("unterminated object") }
                if bytes[index] == UInt8(ascii: "}") { advance(); break }
                guard bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a member name in double quotes") }
                let namePosition = position
                let name = try parseString()
                try skipTrivia()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
                advance()
                let value = try parseValue()
                members.append(LenientJSON.Member(name: name, namePosition: namePosition, value: value))
                try skipTrivia()
                guard index < bytes.count else { throw failure("unterminated object") }
                if bytes[index] == UInt8(ascii: ",") { advance(); continue }
                if bytes[index] == UInt8(ascii: "}") { advance(); break }
                throw failure("expected ',' or '}'")
            }
            return LenientJSON(kind: .object(members), position: start)
        case UInt8(ascii: "["):
            depth += 1
            defer { depth -= 1 }
            if depth > 256 { throw failure("nesting too deep") }
            advance()
            var items: [LenientJSON] = []
            while true {
                try skipTrivia()
                guard index < bytes.count else { throw failure("unterminated array") }
                if bytes[index] == UInt8(ascii: "]") { advance(); break }
                items.append(try parseValue())
                try skipTrivia()
                guard index < bytes.count else { throw failure("unterminated array") }
                if bytes[index] == UInt8(ascii: ",") { advance(); continue }
                if bytes[index] == UInt8(ascii: "]") { advance(); break }
                throw failure("expected ',' or ']'")
            }
            return LenientJSON(kind: .array(items), position: start)
        case UInt8(ascii: "\""):
            return LenientJSON(kind: .string(try parseString()), position: start)
        case UInt8(ascii: "t"):
            try expectWord("true")
            return LenientJSON(kind: .bool(true), position: start)
        case UInt8(ascii: "f"):
            try expectWord("false")
            return LenientJSON(kind: .bool(false), position: start)
        case UInt8(ascii: "n"):
            try expectWord("null")
            return LenientJSON(kind: .null, position: start)
        default:
            return LenientJSON(kind: try parseNumber(), position: start)
        }
    }

    private mutating func expectWord(_ word: String) throws(Failure) {
        let count = word.utf8.count
        let ok = index + count <= bytes.count && bytes[index..<(index + count)].elementsEqual(word.utf8)
        guard ok else { throw failure("unexpected character") }
        for _ in 0..<count { advance() }
    }

    private mutating func parseNumber() throws(Failure) -> LenientJSON.Kind {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { advance() }
        var isInteger = true
        var sawDigit = false
        while index < bytes.count {
            let b = bytes[index]
            if b >= 0x30 && b <= 0x39 {
                sawDigit = true
            } else if b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
                || ((b == UInt8(ascii: "+") || b == UInt8(ascii: "-")) && !isInteger)
            {
                isInteger = false
            } else {
                break
            }
            advance()
        }
        guard sawDigit else { throw failure("unexpected character") }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let value = Int64(text) { return .int(value) }
        guard let value = Double(text) else { throw failure("malformed number") }
        return .double(value)
    }

    private mutating func parseString() throws(Failure) -> String {
        advance()  // opening quote
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw failure("unterminated string") }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") { advance(); break }
            if b == UInt8(ascii: "\\") {
                advance()
                guard index < bytes.count else { throw failure("unterminated string") }
                let e = bytes[index]
                advance()
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if scalar >= 0xD800 && scalar < 0xDC00, index + 1 < bytes.count,
                        bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                    {
                        advance(); advance()
                        let low = try parseHex4()
                        if low >= 0xDC00 && low < 0xE000 {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                    }
                    let unicode = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default: throw failure("invalid escape in string")
                }
                continue
            }
            out.append(b)
            advance()
        }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func parseHex4() throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw failure("invalid \\u escape") }
            let b = bytes[index]
            let digit: UInt32
            switch b {
            case 0x30...0x39: digit = UInt32(b - 0x30)
            case 0x41...0x46: digit = UInt32(b - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(b - 0x61 + 10)
            default: throw failure("invalid \\u escape")
            }
            value = value * 16 + digit
            advance()
        }
        return value
    }
}
