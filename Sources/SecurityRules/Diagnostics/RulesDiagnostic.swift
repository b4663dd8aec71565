/// One problem found while loading a rules file, located at a 1-based line and column.
///
/// `description` reads like a compiler message:
/// ```
/// firestore.rules:4:23: expected ';' after allow statement
/// ```
package struct RulesDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// A stable identifier for the kind of problem, e.g. `syntax.expected-token`.
    package var id: String
    /// The file the problem is in, as given to `parse(_:fileName:)`.
    package var fileName: String
    /// 1-based line.
    package var line: Int
    /// 1-based column, counted in UTF-8 bytes from the start of the line.
    package var column: Int
    package var message: String

    package init(id: String, fileName: String, line: Int, column: Int, message: String) {
        self.id = id
        self.fileName = fileName
        self.line = line
        self.column = column
        self.message = message
    }

    package var description: String { "\(fileName):\(line):\(column): \(message)" }
}

/// The diagnostics that stopped a rules file from loading. Emulators keep their previous rules
/// when they receive this and print `description` (one diagnostic per line).
package struct RulesDiagnostics: Error, Sendable, Hashable, CustomStringConvertible {
    package var diagnostics: [RulesDiagnostic]

    package init(_ diagnostics: [RulesDiagnostic]) {
        self.diagnostics = diagnostics
    }

    package var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
