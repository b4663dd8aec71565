package import EmulatorModel

/// A compiled rules file for one namespace: the questions the emulator asks before a read or a
/// write. Admin requests never reach it.
package protocol DatabaseRules: Sendable {
    /// May `auth` read `path` with `query` given the current `data`? `now` is server time (ms).
    func canRead(
        _ path: DatabasePath, query: DatabaseQuery, auth: DatabaseAuth, now: Int64, data: any DatabaseDataSource
    ) -> Bool
    /// May `auth` replace each of `locations`, turning `data` into `newData`?
    func canWrite(
        _ locations: [DatabasePath], auth: DatabaseAuth, now: Int64, data: any DatabaseDataSource,
        newData: any DatabaseDataSource
    ) -> Bool
}

/// Turns a rules file (`{"rules": {…}}`, comments allowed) into `DatabaseRules`. The seam where the
/// SecurityRules evaluator plugs in; `LiteralDatabaseRulesGate` is the built-in default.
package protocol DatabaseRulesGate: Sendable {
    /// The compiled rules, or a message describing the first problem (returned in `{"error": …}`).
    func compile(_ source: [UInt8]) -> Result<any DatabaseRules, DatabaseRulesCompileError>
}

package struct DatabaseRulesCompileError: Error, Sendable, Equatable {
    package var message: String
    package init(_ message: String) { self.message = message }
}

/// Rules that allow everything (the meaning of the default rules file).
struct OpenDatabaseRules: DatabaseRules {
    func canRead(
        _ path: DatabasePath, query: DatabaseQuery, auth: DatabaseAuth, now: Int64, data: any DatabaseDataSource
    ) -> Bool { true }

    func canWrite(
        _ locations: [DatabasePath], auth: DatabaseAuth, now: Int64, data: any DatabaseDataSource,
        newData: any DatabaseDataSource
    ) -> Bool { true }
}

/// The rules every namespace starts with: open reads and writes, as the emulator defaults.
package enum DatabaseDefaultRules {
    package static let source = "{\n  \"rules\": {\n    \".read\": true,\n    \".write\": true\n  }\n}"
}
