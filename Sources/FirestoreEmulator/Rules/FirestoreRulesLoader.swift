/// A problem found while compiling a rules source, as `:securityRules` reports it.
package struct FirestoreRulesIssue: Sendable, Equatable {
    package var line: Int
    package var column: Int
    package var description: String
    /// `ERROR` or `WARNING`.
    package var severity: String

    package init(line: Int, column: Int, description: String, severity: String = "ERROR") {
        self.line = line
        self.column = column
        self.description = description
        self.severity = severity
    }
}

/// Compiles a rules source into a gate (nil when it has errors) plus the issues found. Supplied
/// by whoever links the rules engine (the suite), so this module does not depend on how rules work.
package typealias FirestoreRulesLoader = @Sendable (_ source: String) -> (gate: FirestoreRulesGate?, issues: [FirestoreRulesIssue])
