/// Parses `firestore.rules` source into match blocks, allows and functions.
///
/// Grammar (ours, after firebase.google.com/docs/rules/rules-language and
/// firebase.google.com/docs/firestore/security/rules-structure):
/// ```
/// file     := [ "rules_version" "=" STRING ";" ] { function } "service" NAME "{" body "}"
/// body     := { function | match | allow }
/// match    := "match" pattern "{" body "}"
/// allow    := "allow" method { "," method } [ ":" "if" expr ] [ ";" ]
/// function := "function" IDENT "(" [ IDENT { "," IDENT } ] ")" "{" { "let" IDENT "=" expr ";" } "return" expr [ ";" ] "}"
/// ```
struct FirestoreParser {
    struct Failure: Error {
        var id: String
        var position: SourcePosition
        var message: String
    }

    var lexer: FirestoreLexer
    var current: FirestoreToken
    var version = 1
    var functions: [FirestoreFunction] = []
    var expressionDepth = 0
    /// Operands in the current top-level expression: bounds tree depth for later passes.
    var operandCount = 0
    /// The sub-expressions coverage counts (``FirestoreExpression/probe``), by index.
    var probes: [RulesExpressionSpan] = []
    /// The byte offset just past the last token consumed.
    var previousEnd = 0

    init(_ source: String) throws(Failure) {
        lexer = FirestoreLexer(source)
        current = FirestoreToken(kind: .end, position: SourcePosition(line: 1, column: 1), offset: 0)
        try advance()
    }

    mutating func advance() throws(Failure) {
        previousEnd = lexer.index
        do {
            current = try lexer.next()
        } catch {
            throw Failure(id: "syntax.token", position: error.position, message: error.message)
        }
    }

    func failure(_ message: String, id: String = "syntax.unexpected") -> Failure {
        Failure(id: id, position: current.position, message: message)
    }

    mutating func expectSymbol(_ s: String, _ context: String) throws(Failure) {
        guard current.isSymbol(s) else {
            throw failure("expected '\(s)' \(context), found \(current.display)", id: "syntax.expected-token")
        }
        try advance()
    }

    mutating func expectIdentifier(_ context: String) throws(Failure) -> String {
        guard case .identifier(let name) = current.kind else {
            throw failure("expected an identifier \(context), found \(current.display)", id: "syntax.expected-identifier")
        }
        try advance()
        return name
    }

    /// Parses the whole file: the service's top-level body as one root match with an empty pattern.
    mutating func parseFile() throws(Failure) -> (root: FirestoreMatch, version: Int, service: String) {
        if current.isIdentifier("rules_version") {
            try advance()
            try expectSymbol("=", "after rules_version")
            guard case .string(let text) = current.kind else {
                throw failure("expected a version string such as '2'", id: "syntax.rules-version")
            }
            switch text {
            case "1": version = 1
            case "2": version = 2
            default: throw failure("unsupported rules_version '\(text)'; use '1' or '2'", id: "syntax.rules-version")
            }
            try advance()
            if current.isSymbol(";") { try advance() }
        }
        var root = FirestoreMatch(pattern: [], line: 1)
        while current.isIdentifier("function") {
            root.functions.append(try parseFunction())
        }
        guard current.isIdentifier("service") else {
            throw failure("expected 'service cloud.firestore', found \(current.display)", id: "syntax.service")
        }
        try advance()
        let servicePosition = current.position
        var service = try expectIdentifier("after 'service'")
        while current.isSymbol(".") {
            try advance()
            service += "." + (try expectIdentifier("in the service name"))
        }
        guard service == "cloud.firestore" || service == "firebase.storage" else {
            throw Failure(id: "syntax.service", position: servicePosition, message: "unknown service '\(service)'; expected cloud.firestore")
        }
        try expectSymbol("{", "after the service name")
        try parseBody(into: &root, depth: 0)
        try expectSymbol("}", "to close the service block")
        guard current.isEnd else { throw failure("unexpected \(current.display) after the service block") }
        return (root, version, service)
    }

    mutating func parseBody(into block: inout FirestoreMatch, depth: Int) throws(Failure) {
        while true {
            if current.isIdentifier("match") {
                if depth >= 10 { throw failure("match statements are nested more than 10 deep", id: "limit.match-depth") }
                block.children.append(try parseMatch(depth: depth + 1))
            } else if current.isIdentifier("allow") {
                block.allows.append(try parseAllow())
            } else if current.isIdentifier("function") {
                block.functions.append(try parseFunction())
            } else {
                return
            }
        }
    }

    mutating func parseMatch(depth: Int) throws(Failure) -> FirestoreMatch {
        let line = current.position.line
        // The pattern is read as raw text: `/` and `{x=**}` mean something else in expressions.
        // The lexer stands right after the `match` keyword (one token of lookahead).
        try skipLexerTrivia()
        let patternStart = lexer.position
        var pattern: [FirestorePatternSegment] = []
        var names: Set<String> = []
        var sawRecursive = false
        while lexer.peekByte() == UInt8(ascii: "/") {
            lexer.advance()
            let segmentPosition = lexer.position
            if lexer.peekByte() == UInt8(ascii: "{") {
                lexer.advance()
                let nameStart = lexer.index
                while let b = lexer.peekByte(), FirestoreLexer.isIdentifierByte(b) { lexer.advance() }
                let name = String(decoding: lexer.bytes[nameStart..<lexer.index], as: UTF8.self)
                guard let first = name.utf8.first, FirestoreLexer.isIdentifierStart(first) else {
                    throw Failure(id: "syntax.match-pattern", position: segmentPosition, message: "expected a variable name after '{'")
                }
                var recursive = false
                if lexer.peekByte() == UInt8(ascii: "=") {
                    guard lexer.peekByte(1) == UInt8(ascii: "*"), lexer.peekByte(2) == UInt8(ascii: "*") else {
                        throw Failure(id: "syntax.match-pattern", position: lexer.position, message: "expected '=**'")
                    }
                    lexer.advance(); lexer.advance(); lexer.advance()
                    recursive = true
                }
                guard lexer.peekByte() == UInt8(ascii: "}") else {
                    throw Failure(id: "syntax.match-pattern", position: lexer.position, message: "expected '}' to close the path variable")
                }
                lexer.advance()
                if names.contains(name) {
                    throw Failure(id: "semantic.duplicate-variable", position: segmentPosition, message: "duplicate path variable '\(name)'")
                }
                names.insert(name)
                if recursive {
                    if sawRecursive {
                        throw Failure(id: "semantic.recursive-wildcard", position: segmentPosition,
                                      message: "only one recursive wildcard is allowed per match")
                    }
                    sawRecursive = true
                    pattern.append(.recursive(name))
                } else {
                    pattern.append(.single(name))
                }
            } else {
                let start = lexer.index
                while let b = lexer.peekByte(), Self.isPathByte(b) { lexer.advance() }
                guard lexer.index > start else {
                    throw Failure(id: "syntax.match-pattern", position: segmentPosition, message: "empty path segment in match pattern")
                }
                pattern.append(.literal(String(decoding: lexer.bytes[start..<lexer.index], as: UTF8.self)))
            }
        }
        guard !pattern.isEmpty else {
            throw Failure(id: "syntax.match-pattern", position: patternStart, message: "expected a path pattern starting with '/' after 'match'")
        }
        if version == 1, let index = pattern.firstIndex(where: { if case .recursive = $0 { true } else { false } }),
            index != pattern.count - 1
        {
            throw Failure(id: "semantic.recursive-wildcard", position: patternStart,
                          message: "a recursive wildcard must be the last segment in rules_version 1")
        }
        try advance()
        try expectSymbol("{", "to open the match block")
        var block = FirestoreMatch(pattern: pattern, line: line)
        try parseBody(into: &block, depth: depth)
        try expectSymbol("}", "to close the match block")
        return block
    }

    static func isPathByte(_ b: UInt8) -> Bool {
        FirestoreLexer.isIdentifierByte(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "~")
            || b == UInt8(ascii: "%") || b == UInt8(ascii: "@") || b == UInt8(ascii: "+") || b == UInt8(ascii: ":")
            || b == UInt8(ascii: "(") || b == UInt8(ascii: ")") || b >= 0x80
    }

    mutating func skipLexerTrivia() throws(Failure) {
        do {
            try lexer.skipTrivia()
        } catch {
            throw Failure(id: "syntax.token", position: error.position, message: error.message)
        }
    }

    mutating func parseAllow() throws(Failure) -> FirestoreAllow {
        let line = current.position.line
        var reportedLine = line
        var reportedColumn = current.position.column
        try advance()
        var methods: FirestoreMethodSet = []
        repeat {
            if current.isSymbol(",") { try advance() }
            let methodPosition = current.position
            let name = try expectIdentifier("naming a method after 'allow'")
            switch name {
            case "read": methods.formUnion([.get, .list])
            case "write": methods.formUnion([.create, .update, .delete])
            default:
                guard let method = FirestoreRulesMethod(rawValue: name) else {
                    throw Failure(id: "syntax.allow-method", position: methodPosition,
                                  message: "unknown method '\(name)'; expected read, write, get, list, create, update or delete")
                }
                methods.insert(FirestoreMethodSet(method))
            }
        } while current.isSymbol(",")
        var condition: FirestoreExpression?
        if current.isSymbol(":") {
            try advance()
            guard current.isIdentifier("if") else { throw failure("expected 'if' after ':'", id: "syntax.expected-token") }
            try advance()
            // The official emulator names the line where the condition starts.
            reportedLine = current.position.line
            reportedColumn = current.position.column
            operandCount = 0
            condition = try parseExpression()
        }
        if current.isSymbol(";") { try advance() }
        return FirestoreAllow(methods: methods, condition: condition, line: reportedLine, column: reportedColumn)
    }

    mutating func parseFunction() throws(Failure) -> Int {
        let position = current.position
        try advance()
        let name = try expectIdentifier("after 'function'")
        try expectSymbol("(", "after the function name")
        var parameters: [String] = []
        if !current.isSymbol(")") {
            repeat {
                if current.isSymbol(",") { try advance() }
                let parameter = try expectIdentifier("as a parameter name")
                if parameters.contains(parameter) { throw failure("duplicate parameter '\(parameter)'", id: "semantic.duplicate-parameter") }
                parameters.append(parameter)
            } while current.isSymbol(",")
        }
        if parameters.count > 7 {
            throw Failure(id: "limit.function-arguments", position: position, message: "function '\(name)' takes more than 7 arguments")
        }
        try expectSymbol(")", "after the parameters")
        try expectSymbol("{", "to open the function body")
        var lets: [(String, FirestoreExpression)] = []
        while current.isIdentifier("let") {
            if version < 2 {
                throw failure("'let' bindings need rules_version = '2'", id: "semantic.let-version")
            }
            try advance()
            let variable = try expectIdentifier("after 'let'")
            try expectSymbol("=", "after the let name")
            operandCount = 0
            lets.append((variable, try parseExpression()))
            try expectSymbol(";", "after the let binding")
            if lets.count > 10 {
                throw Failure(id: "limit.let-bindings", position: position, message: "function '\(name)' has more than 10 let bindings")
            }
        }
        guard current.isIdentifier("return") else {
            throw failure("expected 'return' in function '\(name)', found \(current.display)", id: "syntax.expected-return")
        }
        try advance()
        operandCount = 0
        let body = try parseExpression()
        if current.isSymbol(";") { try advance() }
        try expectSymbol("}", "to close the function body")
        functions.append(FirestoreFunction(name: name, parameters: parameters, lets: lets, body: body, position: position))
        return functions.count - 1
    }
}
