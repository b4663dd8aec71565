/// A parsed rules expression. The parser produces `identifier` and `call`; the resolver turns
/// them into `local` slots, user-function calls and built-ins so evaluation never looks up names.
indirect enum FirestoreExpression: Sendable {
    case literal(RulesValue)
    case identifier(String)
    /// A variable in the evaluation frame: request, resource, wildcards, parameters, lets.
    case local(Int)
    case member(FirestoreExpression, String)
    case index(FirestoreExpression, FirestoreExpression)
    case slice(FirestoreExpression, FirestoreExpression?, FirestoreExpression?)
    /// `name(args)` before resolution.
    case call(String, [FirestoreExpression])
    case userCall(Int, [FirestoreExpression])
    case builtin(RulesBuiltin, [FirestoreExpression])
    case method(FirestoreExpression, String, [FirestoreExpression])
    case not(FirestoreExpression)
    case negate(FirestoreExpression)
    case binary(RulesBinaryOperator, FirestoreExpression, FirestoreExpression)
    case and(FirestoreExpression, FirestoreExpression)
    case or(FirestoreExpression, FirestoreExpression)
    case conditional(FirestoreExpression, FirestoreExpression, FirestoreExpression)
    case isType(FirestoreExpression, String)
    case list([FirestoreExpression])
    case map([(FirestoreExpression, FirestoreExpression)])
    case path([FirestorePathPart])
    /// A name that resolves to nothing: evaluating it is an error.
    case unresolved(String)
    /// A sub-expression counted for coverage: evaluates its operand, and notes the result under
    /// index `Int` of the ruleset's ``FirestoreRuleset/expressionSpans`` when tracing. Not a
    /// step of the expression limit.
    case probe(Int, FirestoreExpression)
}

enum FirestorePathPart: Sendable {
    case literal(String)
    case interpolated(FirestoreExpression)
}

enum RulesBinaryOperator: String, Sendable {
    case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case `in` = "in"
}

/// Functions and namespace members built into the language.
enum RulesBuiltin: String, Sendable, CaseIterable {
    case get, exists, getAfter, existsAfter, debug
    case int, float, string, path
    case mathAbs = "math.abs", mathCeil = "math.ceil", mathFloor = "math.floor", mathRound = "math.round"
    case mathSqrt = "math.sqrt", mathPow = "math.pow", mathIsNaN = "math.isNaN", mathIsInfinite = "math.isInfinite"
    case timestampDate = "timestamp.date", timestampValue = "timestamp.value"
    case durationValue = "duration.value", durationTime = "duration.time", durationAbs = "duration.abs"
    case latlngValue = "latlng.value"
    case hashingCrc32 = "hashing.crc32", hashingCrc32c = "hashing.crc32c", hashingMd5 = "hashing.md5"
    case hashingSha256 = "hashing.sha256"

    static let namespaces: Set<String> = ["math", "timestamp", "duration", "latlng", "hashing"]
}
