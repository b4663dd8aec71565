/// The operations an `allow` statement can name.
package enum FirestoreRulesMethod: String, Sendable, Hashable, CaseIterable {
    case get, list, create, update, delete
}

/// One `allow m1, m2: if condition;` statement.
struct FirestoreAllow: Sendable {
    var methods: Set<FirestoreRulesMethod>
    /// nil: unconditional.
    var condition: FirestoreExpression?
    /// The line denials name: where the condition starts (the `allow` line when unconditional).
    var line: Int
}

/// One segment of a `match` pattern.
enum FirestorePatternSegment: Sendable {
    case literal(String)
    case single(String)
    case recursive(String)
}

/// One `match /pattern { ... }` block.
struct FirestoreMatch: Sendable {
    var pattern: [FirestorePatternSegment]
    var allows: [FirestoreAllow] = []
    var children: [FirestoreMatch] = []
    var functions: [Int] = []
    /// The frame slot of this block's first wildcard.
    var firstSlot = 0
    var line: Int
}

/// One `function name(params) { let ...; return ...; }`.
struct FirestoreFunction: Sendable {
    var name: String
    var parameters: [String]
    var lets: [(String, FirestoreExpression)]
    var body: FirestoreExpression
    /// How many frame slots of the declaring scope the function sees.
    var capturedSlots = 2
    var position: SourcePosition
}
