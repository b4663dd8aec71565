/// An error the rules engine reports to its callers (not an evaluation error, which only denies).
package struct RulesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Extensible error kinds.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        package var name: String
        package init(_ name: String) { self.name = name }
        package var description: String { name }

        /// An auth token that is not a decodable JWT.
        package static let invalidToken = Code("invalid-token")
    }

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code): \(message)" }
}
