/// Parses one rule expression. Positions in failures are byte offsets into the expression.
struct DatabaseExpressionParser {
    struct Failure: Error {
        var offset: Int
        var message: String
    }

    private enum Token: Equatable {
        case identifier(String)
        case number(Double)
        case string(String)
        case symbol(String)
        case end
    }

    private let bytes: [UInt8]
    private var index = 0
    private var token: Token = .end
    private var tokenStart = 0
    private var depth = 0
    private var operandCount = 0
    /// The byte offset just past the last token consumed.
    private var previousEnd = 0
    /// The sub-expressions coverage counts, appended to the ruleset's table from `firstProbe` on.
    private var probes: [RulesExpressionSpan] = []
    private var firstProbe = 0
    private var rule = SourcePosition(line: 1, column: 1)

    static func parse(_ text: String) -> Result<DatabaseExpression, Failure> {
        var probes: [RulesExpressionSpan] = []
        return parse(text, probes: &probes, rule: SourcePosition(line: 1, column: 1))
    }

    /// Parses `text`, the rule whose JSON string opens at `rule`, appending the sub-expressions
    /// coverage counts (``DatabaseExpression/probe``) to `probes`: their offsets are into `text`.
    static func parse(_ text: String, probes: inout [RulesExpressionSpan], rule: SourcePosition) -> Result<DatabaseExpression, Failure> {
        var parser = DatabaseExpressionParser(bytes: Array(text.utf8))
        parser.firstProbe = probes.count
        parser.rule = rule
        do throws(Failure) {
            try parser.advance()
            let expression = try parser.parseExpression()
            guard parser.token == .end else { throw parser.failure("unexpected \(parser.describe(parser.token))") }
            probes += parser.probes
            return .success(expression)
        } catch {
            return .failure(error)
        }
    }

    /// `e`, from byte `start` to the last token consumed, as a counted sub-expression (not a literal).
    private mutating func probe(_ e: DatabaseExpression, from start: Int) -> DatabaseExpression {
        switch e {
        case .null, .bool, .number, .string: return e
        default: break
        }
        probes.append(RulesExpressionSpan(line: rule.line, column: rule.column, start: start, end: previousEnd, rule: rule))
        return .probe(firstProbe + probes.count - 1, e)
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func failure(_ message: String) -> Failure { Failure(offset: tokenStart, message: message) }

    private func describe(_ token: Token) -> String {
        switch token {
        case .identifier(let s): "'\(s)'"
        case .number(let d): "'\(d)'"
        case .string: "string"
        case .symbol(let s): "'\(s)'"
        case .end: "end of expression"
        }
    }

    private static let symbols3: Set<String> = ["===", "!=="]
    private static let symbols2: Set<String> = ["==", "!=", "<=", ">=", "&&", "||"]
    private static let symbols1: Set<UInt8> = Set("()[].,?:!+-*/%<>".utf8)

    private mutating func advance() throws(Failure) {
        previousEnd = index
        try skipWhitespaceAndComments()
        tokenStart = index
        guard index < bytes.count else {
            token = .end
            return
        }
        let b = bytes[index]
        if FirestoreLexer.isIdentifierStart(b) || b == UInt8(ascii: "$") {
            index += 1
            while index < bytes.count, FirestoreLexer.isIdentifierByte(bytes[index]) || bytes[index] == UInt8(ascii: "$") {
                index += 1
            }
            token = .identifier(String(decoding: bytes[tokenStart..<index], as: UTF8.self))
            return
        }
        if (b >= 0x30 && b <= 0x39) || (b == UInt8(ascii: ".") && index + 1 < bytes.count && bytes[index + 1] >= 0x30 && bytes[index + 1] <= 0x39) {
            while index < bytes.count, (bytes[index] >= 0x30 && bytes[index] <= 0x39) || bytes[index] == UInt8(ascii: ".")
                || bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")
            {
                index += 1
            }
            let text = String(decoding: bytes[tokenStart..<index], as: UTF8.self)
            guard let value = Double(text) else { throw failure("malformed number '\(text)'") }
            token = .number(value)
            return
        }
        if b == UInt8(ascii: "'") || b == UInt8(ascii: "\"") {
            index += 1
            var out: [UInt8] = []
            while true {
                guard index < bytes.count else { throw failure("unterminated string") }
                let c = bytes[index]
                index += 1
                if c == b { break }
                if c == UInt8(ascii: "\\"), index < bytes.count {
                    let e = bytes[index]
                    index += 1
                    switch e {
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    default: out.append(e)
                    }
                    continue
                }
                out.append(c)
            }
            token = .string(String(decoding: out, as: UTF8.self))
            return
        }
        for (set, length) in [(Self.symbols3, 3), (Self.symbols2, 2)] where index + length <= bytes.count {
            let text = String(decoding: bytes[index..<(index + length)], as: UTF8.self)
            if set.contains(text) {
                index += length
                token = .symbol(text == "===" ? "==" : text == "!==" ? "!=" : text)
                return
            }
        }
        if Self.symbols1.contains(b) {
            index += 1
            token = .symbol(String(UnicodeScalar(b)))
            return
        }
        throw failure("unexpected character '\(Character(UnicodeScalar(b)))'")
    }

    /// Spaces, tabs, line breaks, `// …` to the end of the line and `/* … */` are whitespace
    /// between tokens (rules files hold multi-line expressions with comments). A `/` followed
    /// by anything else is division, or a regular expression the parser reads from the bytes.
    private mutating func skipWhitespaceAndComments() throws(Failure) {
        while index < bytes.count {
            let b = bytes[index]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D {
                index += 1
                continue
            }
            guard b == UInt8(ascii: "/"), index + 1 < bytes.count else { return }
            if bytes[index + 1] == UInt8(ascii: "/") {
                index += 2
                while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
            } else if bytes[index + 1] == UInt8(ascii: "*") {
                let start = index
                index += 2
                while true {
                    guard index + 1 < bytes.count else {
                        index = bytes.count
                        throw Failure(offset: start, message: "unterminated comment")
                    }
                    if bytes[index] == UInt8(ascii: "*"), bytes[index + 1] == UInt8(ascii: "/") {
                        index += 2
                        break
                    }
                    index += 1
                }
            } else {
                return
            }
        }
    }

    private mutating func expect(_ symbol: String) throws(Failure) {
        guard token == .symbol(symbol) else { throw failure("expected '\(symbol)', found \(describe(token))") }
        try advance()
    }

    mutating func parseExpression() throws(Failure) -> DatabaseExpression {
        depth += 1
        defer { depth -= 1 }
        if depth > 100 { throw failure("expression nested too deeply") }
        let first = tokenStart
        let condition = try parseOr()
        guard token == .symbol("?") else { return condition }
        let counted = probe(condition, from: first)
        try advance()
        let a = try parseExpression()
        try expect(":")
        let b = try parseExpression()
        return .conditional(counted, a, b)
    }

    private mutating func parseOr() throws(Failure) -> DatabaseExpression {
        let first = tokenStart
        var left = try parseAnd()
        guard token == .symbol("||") else { return left }
        left = probe(left, from: first)
        while token == .symbol("||") {
            try advance()
            let next = tokenStart
            let right = try parseAnd()
            left = .or(left, probe(right, from: next))
        }
        return left
    }

    private mutating func parseAnd() throws(Failure) -> DatabaseExpression {
        let first = tokenStart
        var left = try parseBinary(level: 0)
        guard token == .symbol("&&") else { return left }
        left = probe(left, from: first)
        while token == .symbol("&&") {
            try advance()
            let next = tokenStart
            let right = try parseBinary(level: 0)
            left = .and(left, probe(right, from: next))
        }
        return left
    }

    private static let levels: [[String: DatabaseBinaryOperator]] = [
        ["==": .equal, "!=": .notEqual],
        ["<": .less, "<=": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual],
        ["+": .add, "-": .subtract],
        ["*": .multiply, "/": .divide, "%": .remainder],
    ]

    private mutating func parseBinary(level: Int) throws(Failure) -> DatabaseExpression {
        guard level < Self.levels.count else { return try parseUnary() }
        var left = try parseBinary(level: level + 1)
        while case .symbol(let s) = token, let op = Self.levels[level][s] {
            try advance()
            left = .binary(op, left, try parseBinary(level: level + 1))
        }
        return left
    }

    private mutating func parseUnary() throws(Failure) -> DatabaseExpression {
        operandCount += 1
        if operandCount > 1_000 { throw failure("expression has more than 1000 operands") }
        if token == .symbol("!") {
            try advance()
            return .not(try parseUnary())
        }
        if token == .symbol("-") {
            try advance()
            let operand = try parseUnary()
            if case .number(let d) = operand { return .number(-d) }
            return .negate(operand)
        }
        return try parsePostfix()
    }

    private mutating func parsePostfix() throws(Failure) -> DatabaseExpression {
        var expression = try parsePrimary()
        while true {
            if token == .symbol(".") {
                try advance()
                guard case .identifier(let name) = token else { throw failure("expected a name after '.'") }
                try advance()
                expression = .member(expression, name)
            } else if token == .symbol("[") {
                try advance()
                let key = try parseExpression()
                try expect("]")
                if case .string(let name) = key {
                    expression = .member(expression, name)
                } else {
                    expression = .computedMember(expression, key)
                }
            } else if token == .symbol("(") {
                try advance()
                var arguments: [DatabaseExpression] = []
                if token != .symbol(")") {
                    arguments.append(try parseExpression())
                    while token == .symbol(",") {
                        try advance()
                        arguments.append(try parseExpression())
                    }
                }
                try expect(")")
                switch expression {
                case .member(let receiver, let name):
                    expression = .call(receiver, name, arguments)
                case .computedMember:
                    throw failure("method names must be literal")
                default:
                    throw failure("only methods can be called")
                }
            } else {
                return expression
            }
        }
    }

    private mutating func parsePrimary() throws(Failure) -> DatabaseExpression {
        switch token {
        case .number(let d):
            try advance()
            return .number(d)
        case .string(let s):
            try advance()
            return .string(s)
        case .identifier(let name):
            try advance()
            switch name {
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "null": return .null
            default: break
            }
            if name.hasPrefix("$") { return .wildcard(name) }
            guard let variable = DatabaseVariable(rawValue: name) else {
                throw Failure(offset: tokenStart, message: "unknown variable '\(name)'")
            }
            return .variable(variable)
        case .symbol("("):
            try advance()
            let inner = try parseExpression()
            try expect(")")
            return inner
        case .symbol("["):
            try advance()
            var items: [DatabaseExpression] = []
            if token != .symbol("]") {
                items.append(try parseExpression())
                while token == .symbol(",") {
                    try advance()
                    items.append(try parseExpression())
                }
            }
            try expect("]")
            return .array(items)
        case .symbol("/"):
            return try parseRegex()
        default:
            throw failure("expected an expression, found \(describe(token))")
        }
    }

    /// `/pattern/flags`: only the `i` flag; `^` and `$` only at the ends; no empty alternatives.
    private mutating func parseRegex() throws(Failure) -> DatabaseExpression {
        let start = tokenStart
        index = start + 1
        var inClass = false
        var pattern: [UInt8] = []
        while true {
            guard index < bytes.count else { throw Failure(offset: start, message: "unterminated regular expression") }
            let c = bytes[index]
            index += 1
            if c == UInt8(ascii: "\\"), index < bytes.count {
                pattern.append(c)
                pattern.append(bytes[index])
                index += 1
                continue
            }
            if c == UInt8(ascii: "[") { inClass = true }
            if c == UInt8(ascii: "]") { inClass = false }
            if c == UInt8(ascii: "/") && !inClass { break }
            pattern.append(c)
        }
        var flags = ""
        while index < bytes.count, FirestoreLexer.isIdentifierByte(bytes[index]) {
            flags.append(Character(UnicodeScalar(bytes[index])))
            index += 1
        }
        guard flags.isEmpty || flags == "i" else { throw Failure(offset: start, message: "unsupported regular expression flags '\(flags)'") }
        let source = String(decoding: pattern, as: UTF8.self)
        try Self.checkDialect(pattern, offset: start)
        let regex: RulesRegex
        do throws(RulesRegex.SyntaxError) {
            regex = try RulesRegex(source, caseInsensitive: flags == "i")
        } catch {
            throw Failure(offset: start, message: "invalid regular expression: \(error.message)")
        }
        try advance()
        return .regex(regex, source: source)
    }

    private static func checkDialect(_ pattern: [UInt8], offset: Int) throws(Failure) {
        var i = 0
        var inClass = false
        var previous: UInt8 = 0
        while i < pattern.count {
            let c = pattern[i]
            if c == UInt8(ascii: "\\") {
                i += 2
                previous = UInt8(ascii: "a")
                continue
            }
            if inClass {
                if c == UInt8(ascii: "]") { inClass = false }
            } else {
                switch c {
                case UInt8(ascii: "["): inClass = true
                case UInt8(ascii: "^") where i != 0:
                    throw Failure(offset: offset, message: "'^' is only allowed at the start of a regular expression")
                case UInt8(ascii: "$") where i != pattern.count - 1:
                    throw Failure(offset: offset, message: "'$' is only allowed at the end of a regular expression")
                case UInt8(ascii: "|"), UInt8(ascii: ")"):
                    if previous == UInt8(ascii: "|") || previous == UInt8(ascii: "(")
                        || (c == UInt8(ascii: "|") && i == 0) || (c == UInt8(ascii: "|") && i == pattern.count - 1)
                    {
                        throw Failure(offset: offset, message: "empty alternatives are not allowed in regular expressions")
                    }
                default: break
                }
            }
            previous = c
            i += 1
        }
    }
}
