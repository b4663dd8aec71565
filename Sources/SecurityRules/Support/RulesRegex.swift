/// A small backtracking regular-expression engine for rule conditions (no Foundation).
///
/// It covers the RE2 subset that rules use in practice: literals, `.`, classes with ranges and
/// negation, `\d \w \s` and their negations, `\b`, anchors `^ $`, groups `( )` and `(?: )`,
/// alternation, and the quantifiers `* + ? {n} {n,} {n,m}` (greedy or lazy). Matching works on
/// Unicode scalars and gives up (no match) after a fixed number of steps.
struct RulesRegex: Sendable {
    struct SyntaxError: Error, Sendable {
        var message: String
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

    private let root: [[Node]]
    private let caseInsensitive: Bool

    init(_ pattern: String, caseInsensitive: Bool = false) throws(SyntaxError) {
        var parser = RegexParser(scalars: Array(pattern.unicodeScalars))
        root = try parser.parseAlternation()
        if parser.index < parser.scalars.count { throw SyntaxError(message: "unmatched ')'") }
        self.caseInsensitive = caseInsensitive
    }

    /// True when the whole of `text` matches (Firestore `matches`).
    func matchesWhole(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        var steps = 0
        return matchAlternatives(root, scalars, 0, &steps) { end, _ in end == scalars.count }
    }

    /// The first match at or after `start`, as a range of scalar offsets.
    func firstMatch(in scalars: [Unicode.Scalar], from start: Int) -> Range<Int>? {
        var position = start
        while position <= scalars.count {
            var steps = 0
            var end = -1
            if matchAlternatives(root, scalars, position, &steps, { matched, _ in end = matched; return true }) {
                return position..<end
            }
            position += 1
        }
        return nil
    }

    /// True when some part of `text` matches (Realtime Database `matches`).
    func containsMatch(_ text: String) -> Bool {
        firstMatch(in: Array(text.unicodeScalars), from: 0) != nil
    }

    private static let stepLimit = 200_000

    private func matchAlternatives(
        _ alternatives: [[Node]], _ s: [Unicode.Scalar], _ i: Int, _ steps: inout Int, _ k: (Int, inout Int) -> Bool
    ) -> Bool {
        for sequence in alternatives where matchSequence(sequence[...], s, i, &steps, k) {
            return true
        }
        return false
    }

    private func matchSequence(
        _ nodes: ArraySlice<Node>, _ s: [Unicode.Scalar], _ i: Int, _ steps: inout Int, _ k: (Int, inout Int) -> Bool
    ) -> Bool {
        steps += 1
        if steps > Self.stepLimit { return false }
        guard let node = nodes.first else { return k(i, &steps) }
        let rest = nodes.dropFirst()
        return matchNode(node, s, i, &steps) { next, steps in matchSequence(rest, s, next, &steps, k) }
    }

    private func matchNode(
        _ node: Node, _ s: [Unicode.Scalar], _ i: Int, _ steps: inout Int, _ k: (Int, inout Int) -> Bool
    ) -> Bool {
        switch node {
        case .scalar(let c):
            guard i < s.count, scalarEquals(s[i], c) else { return false }
            return k(i + 1, &steps)
        case .any:
            guard i < s.count, s[i] != "\n" else { return false }
            return k(i + 1, &steps)
        case .set(let set, let negated):
            guard i < s.count else { return false }
            guard setContains(set, s[i]) != negated else { return false }
            return k(i + 1, &steps)
        case .lineStart:
            return i == 0 ? k(i, &steps) : false
        case .lineEnd:
            return i == s.count ? k(i, &steps) : false
        case .wordBoundary(let wanted):
            let before = i > 0 && Self.isWord(s[i - 1])
            let after = i < s.count && Self.isWord(s[i])
            return (before != after) == wanted ? k(i, &steps) : false
        case .group(let alternatives):
            return matchAlternatives(alternatives, s, i, &steps, k)
        case .repeated(let inner, let min, let max, let greedy):
            return matchRepeat(inner, min, max, greedy, s, i, 0, &steps, k)
        }
    }

    private func matchRepeat(
        _ inner: Node, _ min: Int, _ max: Int, _ greedy: Bool, _ s: [Unicode.Scalar], _ i: Int, _ count: Int,
        _ steps: inout Int, _ k: (Int, inout Int) -> Bool
    ) -> Bool {
        steps += 1
        if steps > Self.stepLimit { return false }
        let canStop = count >= min
        let canGo = count < max
        if !greedy, canStop, k(i, &steps) { return true }
        if canGo {
            let more = matchNode(inner, s, i, &steps) { next, steps in
                // A repetition that consumed nothing cannot make progress: stop looping.
                if next == i { return count + 1 >= min ? k(next, &steps) : false }
                return matchRepeat(inner, min, max, greedy, s, next, count + 1, &steps, k)
            }
            if more { return true }
        }
        if greedy, canStop { return k(i, &steps) }
        return false
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
