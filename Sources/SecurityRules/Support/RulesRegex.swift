/// A small regular-expression engine for rule conditions (no Foundation).
///
/// It covers the RE2 subset that rules use in practice: literals, `.`, classes with ranges and
/// negation, `\d \w \s` and their negations, `\b`, anchors `^ $`, groups `( )` and `(?: )`,
/// alternation, and the quantifiers `* + ? {n} {n,} {n,m}` (greedy or lazy). Matching works on
/// Unicode scalars with a Pike VM: linear in the text, no backtracking, no recursion on input.
struct RulesRegex: Sendable {
    struct SyntaxError: Error, Sendable {
        var message: String
    }

    fileprivate enum Instruction: Sendable {
        case scalar(Unicode.Scalar)
        case any
        case set(CharacterSet, negated: Bool)
        case split(Int, Int)
        case jump(Int)
        case assertStart
        case assertEnd
        case wordBoundary(Bool)
        case match
    }

    fileprivate indirect enum Node: Sendable {
        case scalar(Unicode.Scalar)
        case any
        case set(CharacterSet, negated: Bool)
        case lineStart
        case lineEnd
        case wordBoundary(Bool)
        case group([[Node]])
        case repeated(Node, min: Int, max: Int, greedy: Bool)
    }

    fileprivate struct CharacterSet: Sendable {
        var ranges: [ClosedRange<UInt32>] = []
    }

    private let program: [Instruction]
    private let caseInsensitive: Bool

    init(_ pattern: String, caseInsensitive: Bool = false) throws(SyntaxError) {
        var parser = RegexParser(scalars: Array(pattern.unicodeScalars))
        let root = try parser.parseAlternation()
        if parser.index < parser.scalars.count { throw SyntaxError(message: "unmatched ')'") }
        var compiler = RegexCompiler()
        try compiler.emitAlternatives(root)
        compiler.program.append(.match)
        program = compiler.program
        self.caseInsensitive = caseInsensitive
    }

    /// True when the whole of `text` matches (Firestore `matches`).
    func matchesWhole(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        return run(scalars, from: 0, search: false, requireEnd: true) != nil
    }

    /// The leftmost-first match at or after `start`, as a range of scalar offsets.
    func firstMatch(in scalars: [Unicode.Scalar], from start: Int) -> Range<Int>? {
        run(scalars, from: start, search: true, requireEnd: false)
    }

    /// True when some part of `text` matches (Realtime Database `matches`).
    func containsMatch(_ text: String) -> Bool {
        firstMatch(in: Array(text.unicodeScalars), from: 0) != nil
    }

    private struct Thread {
        var pc: Int
        var start: Int
    }

    /// A Pike VM: every thread advances in lock step, so time is linear in the text and nothing
    /// recurses on the text length (patterns run on untrusted document data).
    private func run(_ s: [Unicode.Scalar], from origin: Int, search: Bool, requireEnd: Bool) -> Range<Int>? {
        guard origin <= s.count else { return nil }
        var current: [Thread] = []
        var next: [Thread] = []
        var marks = [Int](repeating: -1, count: program.count)
        var generation = 0
        var matched: Range<Int>?
        var stack: [Int] = []

        func addThread(_ list: inout [Thread], _ pc: Int, _ start: Int, _ i: Int) {
            stack.removeAll(keepingCapacity: true)
            stack.append(pc)
            while let top = stack.popLast() {
                if marks[top] == generation { continue }
                marks[top] = generation
                switch program[top] {
                case .jump(let target): stack.append(target)
                case .split(let first, let second):
                    stack.append(second)
                    stack.append(first)
                case .assertStart: if i == 0 { stack.append(top + 1) }
                case .assertEnd: if i == s.count { stack.append(top + 1) }
                case .wordBoundary(let wanted):
                    let before = i > 0 && Self.isWord(s[i - 1])
                    let after = i < s.count && Self.isWord(s[i])
                    if (before != after) == wanted { stack.append(top + 1) }
                default: list.append(Thread(pc: top, start: start))
                }
            }
        }

        var i = origin
        generation += 1
        addThread(&current, 0, origin, origin)
        while true {
            generation += 1
            next.removeAll(keepingCapacity: true)
            threads: for thread in current {
                switch program[thread.pc] {
                case .match:
                    if requireEnd && i != s.count { continue }
                    matched = thread.start..<i
                    break threads
                case .scalar(let c):
                    if i < s.count, scalarEquals(s[i], c) { addThread(&next, thread.pc + 1, thread.start, i + 1) }
                case .any:
                    if i < s.count, s[i] != "\n" { addThread(&next, thread.pc + 1, thread.start, i + 1) }
                case .set(let set, let negated):
                    if i < s.count, setContains(set, s[i]) != negated { addThread(&next, thread.pc + 1, thread.start, i + 1) }
                default: break
                }
            }
            if i >= s.count { break }
            i += 1
            if search, matched == nil { addThread(&next, 0, i, i) }
            if next.isEmpty, matched != nil || !search { break }
            swap(&current, &next)
        }
        return matched
    }

    private func scalarEquals(_ a: Unicode.Scalar, _ b: Unicode.Scalar) -> Bool {
        if a == b { return true }
        guard caseInsensitive else { return false }
        return Self.fold(a) == Self.fold(b)
    }

    private func setContains(_ set: CharacterSet, _ c: Unicode.Scalar) -> Bool {
        if set.ranges.contains(where: { $0.contains(c.value) }) { return true }
        guard caseInsensitive else { return false }
        let folded = Self.fold(c).value
        let upper = Self.upper(c).value
        return set.ranges.contains { $0.contains(folded) || $0.contains(upper) }
    }

    private static func fold(_ c: Unicode.Scalar) -> Unicode.Scalar {
        if c.value >= 0x41 && c.value <= 0x5A { return Unicode.Scalar(c.value + 32) ?? c }
        return c.properties.lowercaseMapping.unicodeScalars.first ?? c
    }

    private static func upper(_ c: Unicode.Scalar) -> Unicode.Scalar {
        if c.value >= 0x61 && c.value <= 0x7A { return Unicode.Scalar(c.value - 32) ?? c }
        return c.properties.uppercaseMapping.unicodeScalars.first ?? c
    }

    fileprivate static func isWord(_ c: Unicode.Scalar) -> Bool {
        let v = c.value
        return (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A) || v == 0x5F
    }
}

private struct RegexParser {
    typealias Node = RulesRegex.Node
    let scalars: [Unicode.Scalar]
    var index = 0
    var depth = 0

    static let digit = RulesRegex.CharacterSet(ranges: [0x30...0x39])
    static let word = RulesRegex.CharacterSet(ranges: [0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F...0x5F])
    static let space = RulesRegex.CharacterSet(ranges: [0x09...0x0D, 0x20...0x20])

    mutating func parseAlternation() throws(RulesRegex.SyntaxError) -> [[Node]] {
        depth += 1
        defer { depth -= 1 }
        if depth > 100 { throw RulesRegex.SyntaxError(message: "regex nesting too deep") }
        var alternatives: [[Node]] = [try parseSequence()]
        while index < scalars.count, scalars[index] == "|" {
            index += 1
            alternatives.append(try parseSequence())
        }
        return alternatives
    }

    mutating func parseSequence() throws(RulesRegex.SyntaxError) -> [Node] {
        var nodes: [Node] = []
        while index < scalars.count, scalars[index] != "|", scalars[index] != ")" {
            var atom = try parseAtom()
            atom = try parseQuantifier(atom)
            nodes.append(atom)
        }
        return nodes
    }

    mutating func parseAtom() throws(RulesRegex.SyntaxError) -> Node {
        let c = scalars[index]
        index += 1
        switch c {
        case ".": return .any
        case "^": return .lineStart
        case "$": return .lineEnd
        case "(":
            if index + 1 < scalars.count, scalars[index] == "?" {
                if scalars[index + 1] == ":" {
                    index += 2
                } else if scalars[index + 1] == "P" || scalars[index + 1] == "<" {
                    // Named group: skip the name.
                    while index < scalars.count, scalars[index] != ">" { index += 1 }
                    index += 1
                } else {
                    throw RulesRegex.SyntaxError(message: "unsupported group flag")
                }
            }
            let inner = try parseAlternation()
            guard index < scalars.count, scalars[index] == ")" else {
                throw RulesRegex.SyntaxError(message: "missing ')'")
            }
            index += 1
            return .group(inner)
        case "[": return try parseClass()
        case "\\": return try parseEscape(inClass: false).node
        case "*", "+", "?":
            throw RulesRegex.SyntaxError(message: "missing argument to repetition operator")
        default: return .scalar(c)
        }
    }

    /// Returns either a single scalar (usable in a class range) or a node.
    mutating func parseEscape(inClass: Bool) throws(RulesRegex.SyntaxError) -> (node: Node, scalar: Unicode.Scalar?) {
        guard index < scalars.count else { throw RulesRegex.SyntaxError(message: "trailing backslash") }
        let e = scalars[index]
        index += 1
        switch e {
        case "d": return (.set(Self.digit, negated: false), nil)
        case "D": return (.set(Self.digit, negated: true), nil)
        case "w": return (.set(Self.word, negated: false), nil)
        case "W": return (.set(Self.word, negated: true), nil)
        case "s": return (.set(Self.space, negated: false), nil)
        case "S": return (.set(Self.space, negated: true), nil)
        case "b" where !inClass: return (.wordBoundary(true), nil)
        case "B" where !inClass: return (.wordBoundary(false), nil)
        case "n": return (.scalar("\n"), "\n")
        case "t": return (.scalar("\t"), "\t")
        case "r": return (.scalar("\r"), "\r")
        case "f": return (.scalar("\u{0C}"), "\u{0C}")
        case "v": return (.scalar("\u{0B}"), "\u{0B}")
        default:
            let v = e.value
            let isAlnum = (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A)
            if isAlnum { throw RulesRegex.SyntaxError(message: "invalid escape sequence: \\\(e)") }
            return (.scalar(e), e)
        }
    }

    mutating func parseClass() throws(RulesRegex.SyntaxError) -> Node {
        var negated = false
        if index < scalars.count, scalars[index] == "^" {
            negated = true
            index += 1
        }
        var set = RulesRegex.CharacterSet()
        var first = true
        while true {
            guard index < scalars.count else { throw RulesRegex.SyntaxError(message: "missing ']'") }
            var c = scalars[index]
            if c == "]" && !first { index += 1; break }
            first = false
            index += 1
            if c == "\\" {
                let escaped = try parseEscape(inClass: true)
                guard let scalar = escaped.scalar else {
                    if case .set(let inner, let innerNegated) = escaped.node {
                        if innerNegated {
                            set.ranges.append(contentsOf: Self.complement(inner.ranges))
                        } else {
                            set.ranges.append(contentsOf: inner.ranges)
                        }
                    }
                    continue
                }
                c = scalar
            }
            if index + 1 < scalars.count, scalars[index] == "-", scalars[index + 1] != "]" {
                index += 1
                var upper = scalars[index]
                index += 1
                if upper == "\\" {
                    guard let scalar = try parseEscape(inClass: true).scalar else {
                        throw RulesRegex.SyntaxError(message: "invalid character class range")
                    }
                    upper = scalar
                }
                guard c.value <= upper.value else { throw RulesRegex.SyntaxError(message: "invalid character class range") }
                set.ranges.append(c.value...upper.value)
            } else {
                set.ranges.append(c.value...c.value)
            }
        }
        return .set(set, negated: negated)
    }

    static func complement(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var result: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if range.lowerBound > next { result.append(next...(range.lowerBound - 1)) }
            next = max(next, range.upperBound + 1)
        }
        if next <= 0x10FFFF { result.append(next...0x10FFFF) }
        return result
    }

    mutating func parseQuantifier(_ atom: Node) throws(RulesRegex.SyntaxError) -> Node {
        guard index < scalars.count else { return atom }
        var min = 0
        var max = Int.max
        switch scalars[index] {
        case "*": index += 1
        case "+": min = 1; index += 1
        case "?": max = 1; index += 1
        case "{":
            var j = index + 1
            func number(_ j: inout Int) -> Int? {
                var value: Int?
                while j < scalars.count, let d = Int(String(scalars[j])), d >= 0, d <= 9 {
                    value = (value ?? 0) * 10 + d
                    if value ?? 0 > 1000 { return nil }
                    j += 1
                }
                return value
            }
            guard let lower = number(&j) else { return atom }
            var upper = lower
            if j < scalars.count, scalars[j] == "," {
                j += 1
                upper = number(&j) ?? Int.max
            }
            guard j < scalars.count, scalars[j] == "}" else { return atom }
            guard upper >= lower else { throw RulesRegex.SyntaxError(message: "invalid repeat count") }
            index = j + 1
            min = lower
            max = upper
        default:
            return atom
        }
        var greedy = true
        if index < scalars.count, scalars[index] == "?" {
            greedy = false
            index += 1
        }
        return .repeated(atom, min: min, max: max, greedy: greedy)
    }
}

/// Turns the parsed pattern into Pike VM instructions.
private struct RegexCompiler {
    typealias Node = RulesRegex.Node
    var program: [RulesRegex.Instruction] = []

    static let sizeLimit = 20_000

    mutating func emit(_ instruction: RulesRegex.Instruction) throws(RulesRegex.SyntaxError) {
        if program.count >= Self.sizeLimit { throw RulesRegex.SyntaxError(message: "regular expression too large") }
        program.append(instruction)
    }

    mutating func emitAlternatives(_ alternatives: [[Node]]) throws(RulesRegex.SyntaxError) {
        var jumps: [Int] = []
        for (index, sequence) in alternatives.enumerated() {
            if index < alternatives.count - 1 {
                let split = program.count
                try emit(.split(split + 1, -1))
                for node in sequence { try emitNode(node) }
                jumps.append(program.count)
                try emit(.jump(-1))
                program[split] = .split(split + 1, program.count)
            } else {
                for node in sequence { try emitNode(node) }
            }
        }
        for jump in jumps { program[jump] = .jump(program.count) }
    }

    mutating func emitNode(_ node: Node) throws(RulesRegex.SyntaxError) {
        switch node {
        case .scalar(let c): try emit(.scalar(c))
        case .any: try emit(.any)
        case .set(let set, let negated): try emit(.set(set, negated: negated))
        case .lineStart: try emit(.assertStart)
        case .lineEnd: try emit(.assertEnd)
        case .wordBoundary(let wanted): try emit(.wordBoundary(wanted))
        case .group(let alternatives): try emitAlternatives(alternatives)
        case .repeated(let inner, let min, let max, let greedy):
            for _ in 0..<min { try emitNode(inner) }
            if max == Int.max {
                let loop = program.count
                try emit(.split(-1, -1))
                try emitNode(inner)
                try emit(.jump(loop))
                let exit = program.count
                program[loop] = greedy ? .split(loop + 1, exit) : .split(exit, loop + 1)
            } else if max > min {
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(program.count)
                    try emit(.split(-1, -1))
                    try emitNode(inner)
                }
                let exit = program.count
                for split in splits { program[split] = greedy ? .split(split + 1, exit) : .split(exit, split + 1) }
            }
        }
    }
}
