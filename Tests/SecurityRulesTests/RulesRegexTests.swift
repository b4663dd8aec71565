import Testing

@testable import SecurityRules

private let wholeMatches: [(String, String, Bool)] = [
    ("a.c", "abc", true), ("a.c", "abcd", false), ("[a-z]+@[a-z]+\\.com", "me@acme.com", true),
    ("\\d{3}-\\d{4}", "555-1234", true), ("\\d{3}-\\d{4}", "55-1234", false), ("(foo|bar)baz", "barbaz", true),
    ("a*?b", "aaab", true), ("[^0-9]*", "abc", true), ("[^0-9]*", "ab1", false), ("\\w+\\s\\w+", "hi there", true),
    ("(?:ab)+", "ababab", true), ("colou?r", "color", true), ("x{2,3}", "xxxx", false), ("", "", true),
    ("(a|ab)(c|bcd)(d*)", "abcd", true), ("[\\]a]+", "]a]", true),
]

@Test("Full-string regex matching (Firestore matches)", arguments: wholeMatches)
func regexWholeMatch(_ pattern: String, _ text: String, _ expected: Bool) throws {
    #expect(try RulesRegex(pattern).matchesWhole(text) == expected)
}

@Test("Case-insensitive search (Realtime Database /re/i)")
func regexCaseInsensitiveSearch() throws {
    #expect(try RulesRegex("BAR", caseInsensitive: true).containsMatch("foobar"))
    #expect(try !RulesRegex("^bar").containsMatch("foobar"))
    #expect(try RulesRegex("[A-Z]", caseInsensitive: true).containsMatch("q"))
}

@Test("Catastrophic patterns and long inputs run in linear time without deep recursion")
func regexLinearTime() throws {
    let text = String(repeating: "a", count: 40) + "!"
    #expect(try !RulesRegex("(a*)*b").matchesWhole(text))
    let long = String(repeating: "x", count: 200_000) + "@acme.com"
    #expect(try RulesRegex(".*@acme\\.com").matchesWhole(long))
    #expect(try RulesRegex("(x+x+)+y").firstMatch(in: Array("xxxxxxxxxxxxxxxxxxxxxxxxxxxxy".unicodeScalars), from: 0) == 0..<29)
}

private let searches: [(String, String, Range<Int>?)] = [
    ("b+", "abbbc", 1..<4), ("b+?", "abbbc", 1..<2), ("a|ab", "xab", 1..<2), ("ab|a", "xab", 1..<3),
    ("x*", "abc", 0..<0), ("c$", "abcc", 3..<4), ("\\bfoo\\b", "a foo b", 2..<5), ("z", "abc", nil),
]

@Test("Leftmost-first search (split and replace)", arguments: searches)
func regexSearch(_ pattern: String, _ text: String, _ expected: Range<Int>?) throws {
    #expect(try RulesRegex(pattern).firstMatch(in: Array(text.unicodeScalars), from: 0) == expected)
}

@Test("Invalid patterns are reported", arguments: ["(", "a)", "[a", "*a", "a{3,1}", "\\q"])
func regexSyntaxErrors(_ pattern: String) {
    #expect(throws: RulesRegex.SyntaxError.self) { try RulesRegex(pattern) }
}
