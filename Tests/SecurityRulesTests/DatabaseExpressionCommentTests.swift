import EmulatorSupport
import Testing

@testable import SecurityRules

/// Comments (`//` to the end of the line, `/* */`) and line breaks inside a Realtime Database rule
/// expression are whitespace, wherever whitespace may stand.
@Suite struct DatabaseExpressionCommentTests {
    /// An expression written as its tokens; joined by single spaces it is the reference.
    static let tokens = [
        "auth", "!==", "null", "&&", "(", "!", "data", ".", "exists", "(", ")", "||", "newData", ".", "child", "(", "'a'",
        ")", ".", "val", "(", ")", ">", "1.5", "/", "2", ")", "&&", "newData", ".", "child", "(", "$uid", ")", ".", "val",
        "(", ")", ".", "matches", "(", #"/^a\/\/b.*/i"#, ")", "?", "[", "1", ",", "2", "]", ".", "length", "==", "2", ":",
        "false",
    ]
    static let comments = ["/* note */", "/**/", "/* a // b * / c */", "// note\n", "//\n", "// /* x\r\n", "\n", "\r\n\t"]

    static func parsed(_ text: String) -> String? {
        switch DatabaseExpressionParser.parse(text) {
        case .success(let expression): String(describing: expression)
        case .failure: nil
        }
    }

    @Test(arguments: comments)
    func aCommentInEveryGapChangesNothing(_ comment: String) throws {
        let reference = try #require(Self.parsed(Self.tokens.joined(separator: " ")))
        for gap in 0...Self.tokens.count {
            var pieces = Self.tokens
            pieces.insert(comment, at: gap)
            let text = pieces.joined(separator: " ")
            #expect(Self.parsed(text) == reference, "comment in gap \(gap): \(text)")
            // Without the spaces around it too (not right after the division slash: `//*` and
            // `///` start a line comment, as in JavaScript).
            if gap > 0, Self.tokens[gap - 1] == "/" { continue }
            let tight = Self.tokens[..<gap].joined(separator: " ") + comment + Self.tokens[gap...].joined(separator: " ")
            #expect(Self.parsed(tight) == reference, "comment in gap \(gap): \(tight)")
        }
    }

    @Test func divisionStaysDivision() throws {
        #expect(Self.parsed("1/2 == 0.5") == Self.parsed("1 / 2 == 0.5"))
        #expect(Self.parsed("1 /* half */ / 2 == 0.5") == Self.parsed("1 / 2 == 0.5"))
        let value = DatabaseRuleset.evaluateReadRule("4 / /* two */ 2 == 2 // yes", wildcards: [], auth: nil, root: nil, query: DatabaseRulesQuery())
        guard case .value(true) = value else {
            Issue.record("\(value)")
            return
        }
    }

    @Test(arguments: ["true /* open", "true /", "/* */", "// only a comment", "true && /* x */"])
    func incompleteInputIsAFailure(_ text: String) {
        #expect(Self.parsed(text) == nil)
    }

    /// The shape projects ship: a multi-line write rule with comments, in a rules file.
    @Test func aRulesFileWithCommentedMultiLineExpressionsLoads() throws {
        let file = """
            {
              "rules": {
                "items": {
                  "$id": {
                    ".write": "auth !== null && (
                      // CREATION
                      (!data.exists() && newData.exists() && newData.child('owner').val() === auth.uid) ||
                      /* UPDATE by the owner */
                      (data.exists() && data.child('owner').val() === auth.uid)
                    )"
                  }
                }
              }
            }
            """
        guard case .success = DatabaseRuleset.parse(file, fileName: "database.rules.json") else {
            Issue.record("the rules file did not load")
            return
        }
    }
}
