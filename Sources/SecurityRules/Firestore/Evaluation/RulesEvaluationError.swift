/// Why an expression failed to produce a value. An error is a third truth value: `&&` and `||`
/// absorb it commutatively, anything else propagates it, and an allow that ends in an error
/// does not grant.
struct RulesEvaluationError: Error, Sendable {
    var message: String

    init(_ message: String) {
        self.message = message
    }

    static let nullValue = RulesEvaluationError("Null value error.")

    static func undefinedProperty(_ name: String) -> RulesEvaluationError {
        RulesEvaluationError("Property \(name) is undefined on object.")
    }

    static func functionNotFound(_ name: String) -> RulesEvaluationError {
        RulesEvaluationError("Function not found error: Name: [\(name)].")
    }

    static func invalidArguments(_ name: String) -> RulesEvaluationError {
        RulesEvaluationError("Invalid argument provided to call. Function: [\(name)]")
    }

    static func unsupported(_ op: String, _ a: RulesValue, _ b: RulesValue) -> RulesEvaluationError {
        RulesEvaluationError("Unsupported operation error. Received: \(a.typeName) \(op) \(b.typeName).")
    }
}
