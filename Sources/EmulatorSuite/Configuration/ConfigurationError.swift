/// Why the suite cannot start with the configuration it was given. Always fatal: exit 1.
///
/// `description` names the file and, for syntax errors, the 1-based line and column:
/// `/app/firebase.json:4:17: expected ',' or '}' after object member`.
package struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    package struct Code: Sendable, Hashable, RawRepresentable {
        package var rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }

        /// The file is not valid JSON.
        package static let malformedJSON = Code(rawValue: "malformed-json")
        /// A key holds a value of the wrong type (`"port": {}`).
        package static let wrongType = Code(rawValue: "wrong-type")
        /// A value has the right type but is out of range or otherwise unusable.
        package static let invalidValue = Code(rawValue: "invalid-value")
        /// A file the user named does not exist or cannot be read.
        package static let unreadableFile = Code(rawValue: "unreadable-file")
        /// `--only` names something this suite cannot start.
        package static let invalidSelection = Code(rawValue: "invalid-selection")
        /// Nothing is left to start.
        package static let nothingToStart = Code(rawValue: "nothing-to-start")
        /// `--import` / `--export-on-exit` are inconsistent.
        package static let invalidDataDirectory = Code(rawValue: "invalid-data-directory")
    }

    package var code: Code
    package var message: String
    /// The file at fault, when there is one.
    package var file: String?
    /// 1-based position in `file` (syntax errors only).
    package var line: Int?
    package var column: Int?

    package init(_ code: Code, _ message: String, file: String? = nil, line: Int? = nil, column: Int? = nil) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        self.column = column
    }

    package var description: String {
        guard let file else { return message }
        if let line, let column { return "\(file):\(line):\(column): \(message)" }
        return "\(file): \(message)"
    }
}
