/// Why the suite did not start. The CLI prints `description` and exits 1.
package struct SuiteStartError: Error, Sendable, Equatable, CustomStringConvertible {
    package struct Code: Sendable, Hashable, RawRepresentable {
        package var rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }
        /// A fixed port is held by another process.
        package static let portTaken = Code(rawValue: "port-taken")
        /// Any other bind failure (unknown host, permissions).
        package static let listenFailed = Code(rawValue: "listen-failed")
        /// `--import` failed.
        package static let importFailed = Code(rawValue: "import-failed")
        /// A database rules file from firebase.json does not compile.
        package static let rulesFailed = Code(rawValue: "rules-failed")
    }

    package var code: Code
    package var message: String
    package var kind: EmulatorKind?
    package var port: Int?

    package init(_ code: Code, _ message: String, kind: EmulatorKind? = nil, port: Int? = nil) {
        self.code = code
        self.message = message
        self.kind = kind
        self.port = port
    }

    package var description: String { message }

    /// The official first line, then which port and what to do about it.
    static func portTaken(_ kind: EmulatorKind, _ address: ListenAddress) -> SuiteStartError {
        let hint =
            address.port == kind.defaultPort
            ? "Stop the process that holds it, or set \"emulators.\(kind.rawValue).port\" in firebase.json to a free port."
            : "Stop the process that holds it, or change \"emulators.\(kind.rawValue).port\" in firebase.json."
        return SuiteStartError(
            .portTaken,
            "Could not start \(kind.description), port taken.\nPort \(address.port) on \(address.host) is already in use. \(hint)",
            kind: kind, port: address.port)
    }
}
