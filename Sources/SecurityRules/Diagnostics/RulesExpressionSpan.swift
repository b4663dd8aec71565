/// A sub-expression of a rule that coverage counts (a clause of `&&` / `||`, the condition of
/// `?:`): where it starts (line, column) and its byte range in the rules file.
///
/// For the Realtime Database, whose expressions are JSON strings, `start` and `end` are first
/// offsets into the expression's decoded text and `rule` names the rule it belongs to; the
/// coverage report maps them into the file (``RulesCoverage``).
package struct RulesExpressionSpan: Sendable, Hashable {
    package var line: Int
    package var column: Int
    package var start: Int
    package var end: Int
    /// The rule (RTDB: `.read` / `.write` / `.validate` string) this span lies in; nil when the
    /// offsets are already file offsets (Firestore).
    package var rule: SourcePosition?

    package init(line: Int, column: Int, start: Int, end: Int, rule: SourcePosition? = nil) {
        self.line = line
        self.column = column
        self.start = start
        self.end = end
        self.rule = rule
    }
}

/// One evaluation of a counted sub-expression, as an evaluator notes it: the span's index
/// and how it came out, packed into one integer (`index << 2 | result`) so that noting costs an
/// append to a local array.
package enum RulesExpressionHit {
    package static let isTrue: UInt32 = 0
    package static let isFalse: UInt32 = 1
    package static let isError: UInt32 = 2
    /// A value that is not a boolean (a clause that is no condition, e.g. a map in `?:`).
    package static let isOther: UInt32 = 3

    @inline(__always)
    package static func make(_ index: Int, _ result: UInt32) -> UInt32 { UInt32(truncatingIfNeeded: index) << 2 | result }
}
