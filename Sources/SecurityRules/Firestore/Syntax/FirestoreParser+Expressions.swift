extension FirestoreParser {
    /// expr := or [ "?" expr ":" expr ]
    mutating func parseExpression() throws(Failure) -> FirestoreExpression {
        expressionDepth += 1
        defer { expressionDepth -= 1 }
        if expressionDepth > 200 { throw failure("expression nested too deeply", id: "limit.expression-depth") }
        let first = current
        let condition = try parseOr()
        guard current.isSymbol("?") else { return condition }
        let counted = probe(condition, from: first)
        try advance()
        let whenTrue = try parseExpression()
        try expectSymbol(":", "in the conditional expression")
        let whenFalse = try parseExpression()
        return .conditional(counted, whenTrue, whenFalse)
    }

    /// `e`, parsed from `token` up to the last token consumed, as a sub-expression coverage
    /// counts (literals are not: they always come out the same).
    mutating func probe(_ e: FirestoreExpression, from token: FirestoreToken) -> FirestoreExpression {
        if case .literal = e { return e }
        probes.append(RulesExpressionSpan(line: token.position.line, column: token.position.column, start: token.offset, end: previousEnd))
        return .probe(probes.count - 1, e)
    }

    mutating func parseOr() throws(Failure) -> FirestoreExpression {
        let first = current
        var left = try parseAnd()
        guard current.isSymbol("||") else { return left }
        left = probe(left, from: first)
        while current.isSymbol("||") {
            try advance()
            let next = current
            let right = try parseAnd()
            left = .or(left, probe(right, from: next))
        }
        return left
    }

    mutating func parseAnd() throws(Failure) -> FirestoreExpression {
        let first = current
        var left = try parseEquality()
        guard current.isSymbol("&&") else { return left }
        left = probe(left, from: first)
        while current.isSymbol("&&") {
            try advance()
            let next = current
            let right = try parseEquality()
            left = .and(left, probe(right, from: next))
        }
        return left
    }

    mutating func parseEquality() throws(Failure) -> FirestoreExpression {
        var left = try parseRelational()
        while true {
            let op: RulesBinaryOperator
            if current.isSymbol("==") { op = .equal } else if current.isSymbol("!=") { op = .notEqual } else { return left }
            try advance()
            left = .binary(op, left, try parseRelational())
        }
    }

    mutating func parseRelational() throws(Failure) -> FirestoreExpression {
        var left = try parseAdditive()
        while true {
            let op: RulesBinaryOperator
            switch current.kind {
            case .symbol("<"): op = .less
            case .symbol("<="): op = .lessOrEqual
            case .symbol(">"): op = .greater
            case .symbol(">="): op = .greaterOrEqual
            case .identifier("in"): op = .in
            case .identifier("is"):
                try advance()
                let typePosition = current.position
                let typeName = try expectIdentifier("after 'is'")
                let known: Set<String> = [
                    "bool", "int", "float", "number", "string", "list", "map", "timestamp", "duration", "path", "latlng",
                    "bytes", "set", "map_diff", "null",
                ]
                guard known.contains(typeName) else {
                    throw Failure(id: "semantic.unknown-type", position: typePosition, message: "unknown type '\(typeName)' after 'is'")
                }
                left = .isType(left, typeName)
                continue
            default: return left
            }
            try advance()
            left = .binary(op, left, try parseAdditive())
        }
    }

    mutating func parseAdditive() throws(Failure) -> FirestoreExpression {
        var left = try parseMultiplicative()
        while true {
            let op: RulesBinaryOperator
            if current.isSymbol("+") { op = .add } else if current.isSymbol("-") { op = .subtract } else { return left }
            try advance()
            left = .binary(op, left, try parseMultiplicative())
        }
    }

    mutating func parseMultiplicative() throws(Failure) -> FirestoreExpression {
        var left = try parseUnary()
        while true {
            let op: RulesBinaryOperator
            switch current.kind {
            case .symbol("*"): op = .multiply
            case .symbol("/"): op = .divide
            case .symbol("%"): op = .remainder
            default: return left
            }
            try advance()
            left = .binary(op, left, try parseUnary())
        }
    }

    mutating func parseUnary() throws(Failure) -> FirestoreExpression {
        operandCount += 1
        if operandCount > 1_000 { throw failure("expression has more than 1000 operands", id: "limit.expression-size") }
        if current.isSymbol("!") {
            try advance()
            return .not(try parseUnary())
        }
        if current.isSymbol("-") {
            try advance()
            let operand = try parseUnary()
            switch operand {
            case .literal(.int(let i)): return .literal(.int(0 &- i))
            case .literal(.float(let d)): return .literal(.float(-d))
            default: return .negate(operand)
            }
        }
        return try parsePostfix()
    }

    mutating func parsePostfix() throws(Failure) -> FirestoreExpression {
        var expression = try parsePrimary()
        while true {
            if current.isSymbol(".") {
                try advance()
                let name = try expectIdentifier("after '.'")
                if current.isSymbol("(") {
                    let arguments = try parseArguments()
                    expression = .method(expression, name, arguments)
                } else {
                    expression = .member(expression, name)
                }
            } else if current.isSymbol("[") {
                try advance()
                var start: FirestoreExpression?
                if !current.isSymbol(":") { start = try parseExpression() }
                if current.isSymbol(":") {
                    try advance()
                    var end: FirestoreExpression?
                    if !current.isSymbol("]") { end = try parseExpression() }
                    try expectSymbol("]", "to close the range")
                    expression = .slice(expression, start, end)
                } else {
                    try expectSymbol("]", "to close the index")
                    guard let start else { throw failure("expected an index") }
                    expression = .index(expression, start)
                }
            } else {
                return expression
            }
        }
    }

    mutating func parseArguments() throws(Failure) -> [FirestoreExpression] {
        try expectSymbol("(", "to open the argument list")
        var arguments: [FirestoreExpression] = []
        if !current.isSymbol(")") {
            repeat {
                if current.isSymbol(",") { try advance() }
                arguments.append(try parseExpression())
            } while current.isSymbol(",")
        }
        try expectSymbol(")", "to close the argument list")
        return arguments
    }

    mutating func parsePrimary() throws(Failure) -> FirestoreExpression {
        let token = current
        switch token.kind {
        case .int(let i):
            try advance()
            return .literal(.int(i))
        case .float(let d):
            try advance()
            return .literal(.float(d))
        case .string(let s):
            try advance()
            return .literal(.string(s))
        case .bytes(let b):
            try advance()
            return .literal(.bytes(b))
        case .identifier(let name):
            switch name {
            case "true": try advance(); return .literal(.bool(true))
            case "false": try advance(); return .literal(.bool(false))
            case "null": try advance(); return .literal(.null)
            default: break
            }
            try advance()
            if current.isSymbol("(") {
                return .call(name, try parseArguments())
            }
            return .identifier(name)
        case .symbol("("):
            try advance()
            let inner = try parseExpression()
            try expectSymbol(")", "to close the parenthesis")
            return inner
        case .symbol("["):
            try advance()
            var items: [FirestoreExpression] = []
            while !current.isSymbol("]") {
                items.append(try parseExpression())
                if current.isSymbol(",") { try advance() } else { break }
            }
            try expectSymbol("]", "to close the list")
            return .list(items)
        case .symbol("{"):
            try advance()
            var entries: [(FirestoreExpression, FirestoreExpression)] = []
            while !current.isSymbol("}") {
                let key = try parseExpression()
                try expectSymbol(":", "after the map key")
                entries.append((key, try parseExpression()))
                if current.isSymbol(",") { try advance() } else { break }
            }
            try expectSymbol("}", "to close the map")
            return .map(entries)
        case .symbol("/"):
            return try parsePathLiteral()
        default:
            throw failure("expected an expression, found \(token.display)", id: "syntax.expected-expression")
        }
    }

    /// `/databases/$(database)/documents/users/$(request.auth.uid)`: raw segments and `$(expr)`.
    mutating func parsePathLiteral() throws(Failure) -> FirestoreExpression {
        // `current` is the `/` token and the lexer stands right after it.
        var parts: [FirestorePathPart] = []
        var atSlash = true
        while atSlash {
            if lexer.peekByte() == UInt8(ascii: "$"), lexer.peekByte(1) == UInt8(ascii: "(") {
                lexer.advance(); lexer.advance()
                try advance()
                let inner = try parseExpression()
                guard current.isSymbol(")") else {
                    throw failure("expected ')' to close '$('", id: "syntax.expected-token")
                }
                // The lexer stands right after `)`: keep reading raw path text.
                parts.append(.interpolated(inner))
            } else {
                let start = lexer.index
                while let b = lexer.peekByte(), Self.isPathByte(b), b != UInt8(ascii: ")") || lexer.index > start {
                    if b == UInt8(ascii: ")"), !lexer.bytes[start..<lexer.index].contains(UInt8(ascii: "(")) { break }
                    lexer.advance()
                }
                guard lexer.index > start else { throw Failure(id: "syntax.path", position: lexer.position, message: "empty path segment") }
                parts.append(.literal(String(decoding: lexer.bytes[start..<lexer.index], as: UTF8.self)))
            }
            atSlash = lexer.peekByte() == UInt8(ascii: "/")
            if atSlash { lexer.advance() }
        }
        try advance()
        return .path(parts)
    }
}
