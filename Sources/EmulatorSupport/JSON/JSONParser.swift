/// The recursive-descent state machine behind `JSONReader`. One instance parses one document.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    let allowComments: Bool
    /// Whether a name repeated within one object is an error.
    var rejectsDuplicateKeys = false
    var index = 0
    var depth = 0
    /// Reused buffer for strings that contain escapes.
    var scratch: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, allowComments: Bool) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.allowComments = allowComments
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            index = 3
        }
        try skipWhitespace()
        let value = try parseValue()
        try skipWhitespace()
        if index < bytes.count {
            throw error("unexpected \(describe(bytes[index])) after JSON value")
        }
        return value
    }

    // MARK: - Errors

    func error(_ message: String, at offset: Int? = nil) -> JSONError {
        JSONError(at: offset ?? index, in: bytes, message: message)
    }

    func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F {
            return "character '\(Character(Unicode.Scalar(byte)))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x\(byte < 16 ? "0" : "")\(hex)"
    }

    func unexpected(expecting what: String) -> JSONError {
        if index >= bytes.count {
            return error("unexpected end of input, expected \(what)")
        }
        return error("expected \(what)")
    }

    // MARK: - Whitespace

    @inline(__always)
    mutating func skipWhitespace() throws(JSONError) {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09:
                index += 1
            case UInt8(ascii: "/") where allowComments:
                try skipComment()
            default:
                return
            }
        }
    }

    mutating func skipComment() throws(JSONError) {
        let start = index
        guard index + 1 < bytes.count else { throw error("unexpected character '/'") }
        switch bytes[index + 1] {
        case UInt8(ascii: "/"):
            index += 2
            while index < bytes.count && bytes[index] != 0x0A { index += 1 }
        case UInt8(ascii: "*"):
            index += 2
            while index + 1 < bytes.count {
                if bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/") {
                    index += 2
                    return
                }
                index += 1
            }
            throw error("unterminated block comment", at: start)
        default:
            throw error("unexpected character '/'")
        }
    }

    // MARK: - Values

    mutating func parseValue() throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            return try parseObject()
        case UInt8(ascii: "["):
            return try parseArray()
        case UInt8(ascii: "\""):
            index += 1
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        case let byte:
            throw error("unexpected \(describe(byte)), expected a value")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        let start = literal.utf8Start
        guard index + count <= bytes.count else { throw error("invalid literal, expected '\(literal)'") }
        for offset in 0..<count where bytes[index + offset] != start[offset] {
            throw error("invalid literal, expected '\(literal)'")
        }
        index += count
    }

    mutating func enterContainer() throws(JSONError) {
        depth += 1
        if depth > maxDepth {
            throw error("nesting deeper than \(maxDepth) levels")
        }
    }

    mutating func parseObject() throws(JSONError) -> JSONValue {
        try enterContainer()
        index += 1  // '{'
        try skipWhitespace()
        var members: [JSONMember] = []
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        // Room for a typical small document up front: growing 1 → 2 → 4 → 8 costs more than
        // the spare slots in these (usually transient) trees.
        members.reserveCapacity(6)
        // Names so far, once an object is too large for a linear duplicate check.
        var seen: Set<String>?
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw unexpected(expecting: "a string key")
            }
            let keyStart = index
            index += 1
            let name = try parseString()
            if rejectsDuplicateKeys, !members.isEmpty, Self.isDuplicate(name, in: members, seen: &seen) {
                index = keyStart
                throw error("duplicate key \(String(decoding: JSONWriter.encode(.string(name)), as: UTF8.self))")
            }
            try skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw unexpected(expecting: "':' after object key")
            }
            index += 1
            try skipWhitespace()
            let value = try parseValue()
            members.append(JSONMember(name, value))
            try skipWhitespace()
            guard index < bytes.count else {
                throw error("unexpected end of input, expected ',' or '}' after object member")
            }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                try skipWhitespace()
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(members)
            } else {
                throw error("expected ',' or '}' after object member")
            }
        }
    }

    /// Whether `members` already has one named `name`: a linear scan while the object is small,
    /// then a set of the names (kept in `seen`), so a large object costs O(n), not O(n²).
    private static func isDuplicate(_ name: String, in members: [JSONMember], seen: inout Set<String>?) -> Bool {
        if members.count < 16 {
            for member in members where member.name == name { return true }
            return false
        }
        if seen == nil { seen = Set(members.lazy.map(\.name)) }
        return seen?.insert(name).inserted == false
    }

    mutating func parseArray() throws(JSONError) -> JSONValue {
        try enterContainer()
        index += 1  // '['
        try skipWhitespace()
        var elements: [JSONValue] = []
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        elements.reserveCapacity(4)
        while true {
            elements.append(try parseValue())
            try skipWhitespace()
            guard index < bytes.count else {
                throw error("unexpected end of input, expected ',' or ']' after array element")
            }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                try skipWhitespace()
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(elements)
            } else {
                throw error("expected ',' or ']' after array element")
            }
        }
    }
}
