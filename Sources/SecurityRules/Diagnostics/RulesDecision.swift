/// The verdict of one rules check.
///
/// A denial carries the message the official emulator puts after `PERMISSION_DENIED:`, naming
/// the rule that decided it, e.g. `false for 'update' @ L5` or
/// `Null value error. for 'list' @ L7`. `debugOutput` holds one line per `debug()` call.
package struct RulesDecision: Sendable, Hashable {
    package var isAllowed: Bool
    /// Empty when allowed.
    package var message: String
    /// Lines written by `debug(x)` during the evaluation (Firestore) in evaluation order.
    package var debugOutput: [String]
    /// The rules that ran, in order, with how each came out; filled only when the caller asked
    /// for a trace (`tracing: true`), empty otherwise.
    package var evaluated: [RulesLineOutcome]
    /// The counted sub-expressions that ran, in order (``RulesExpressionHit``); filled only when
    /// tracing, like `evaluated`.
    package var expressions: [UInt32]

    package init(
        isAllowed: Bool, message: String, debugOutput: [String] = [], evaluated: [RulesLineOutcome] = [], expressions: [UInt32] = []
    ) {
        self.isAllowed = isAllowed
        self.message = message
        self.debugOutput = debugOutput
        self.evaluated = evaluated
        self.expressions = expressions
    }

    package static func allowed(debugOutput: [String] = []) -> RulesDecision {
        RulesDecision(isAllowed: true, message: "", debugOutput: debugOutput)
    }

    package static func denied(_ message: String, debugOutput: [String] = []) -> RulesDecision {
        RulesDecision(isAllowed: false, message: message, debugOutput: debugOutput)
    }

    /// The Firestore emulator's wire text for a denial: the REST error body carries
    /// `{"code": 403, "message": "\nfalse for 'update' @ L5", "status": "PERMISSION_DENIED"}`
    /// (a leading newline, firebase-tools#2217).
    package var firestoreWireMessage: String { "\n" + message }

    /// What the Realtime Database emulator sends for any denial (REST `{"error": "Permission denied"}`);
    /// `message` holds the detail for its log.
    package static let databaseWireMessage = "Permission denied"

    /// The message used when no rule matched the request at all.
    package static let noMatchingRuleMessage = "Missing or insufficient permissions."
}
