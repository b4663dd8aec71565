/// A parsed Realtime Database rule expression (the JavaScript-like language of
/// `database.rules.json`).
indirect enum DatabaseExpression: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case regex(RulesRegex, source: String)
    case array([DatabaseExpression])
    case variable(DatabaseVariable)
    /// `$name`: the key the wildcard matched.
    case wildcard(String)
    /// `x.name` or `x['name']`.
    case member(DatabaseExpression, String)
    /// `x[expr]` with a computed key.
    case computedMember(DatabaseExpression, DatabaseExpression)
    /// `receiver.name(arguments)`.
    case call(DatabaseExpression, String, [DatabaseExpression])
    case not(DatabaseExpression)
    case negate(DatabaseExpression)
    case binary(DatabaseBinaryOperator, DatabaseExpression, DatabaseExpression)
    case and(DatabaseExpression, DatabaseExpression)
    case or(DatabaseExpression, DatabaseExpression)
    case conditional(DatabaseExpression, DatabaseExpression, DatabaseExpression)
    /// A sub-expression counted for coverage: evaluates its operand and, when the check is
    /// traced, notes the result under index `Int` of the ruleset's ``DatabaseRuleset/expressionSpans``.
    case probe(Int, DatabaseExpression)
}

enum DatabaseVariable: String, Sendable {
    case auth, root, data, newData, now, query
}

enum DatabaseBinaryOperator: String, Sendable {
    case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"
    case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case equal = "==", notEqual = "!="
}

/// What kind of rule an expression is: decides which variables exist.
enum DatabaseRuleKind: String, Sendable {
    case read = ".read", write = ".write", validate = ".validate"
}
