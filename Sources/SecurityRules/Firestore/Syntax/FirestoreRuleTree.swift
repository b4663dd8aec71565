/// The operations an `allow` statement can name.
package enum FirestoreRulesMethod: String, Sendable, Hashable, CaseIterable {
    case get, list, create, update, delete
}

/// The methods an `allow` names, as bits (asked for every candidate rule of every request).
struct FirestoreMethodSet: OptionSet, Sendable {
    let rawValue: UInt8

    static let get = Self(.get)
    static let list = Self(.list)
    static let create = Self(.create)
    static let update = Self(.update)
    static let delete = Self(.delete)

    init(rawValue: UInt8) { self.rawValue = rawValue }

    init(_ method: FirestoreRulesMethod) {
        let bit: UInt8 =
            switch method {
            case .get: 1
            case .list: 2
            case .create: 4
            case .update: 8
            case .delete: 16
            }
        self.init(rawValue: bit)
    }

    func contains(_ method: FirestoreRulesMethod) -> Bool { contains(Self(method)) }
}

/// One `allow m1, m2: if condition;` statement.
struct FirestoreAllow: Sendable {
    var methods: FirestoreMethodSet
    /// nil: unconditional.
    var condition: FirestoreExpression?
    /// The line denials name: where the condition starts (the `allow` line when unconditional).
    var line: Int
    /// The column (UTF-8 bytes, 1-based) where the condition starts (of `allow` when unconditional).
    var column = 1
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
