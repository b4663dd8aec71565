/// A parsed `emulators` command line.
package enum Command: Sendable, Equatable {
    /// `emulators start` / `emulators emulators:start`.
    case start(StartOptions)
    /// `emulators exec "<script>"`: start, run the script, stop, exit with its code.
    case exec(script: String, options: StartOptions)
    /// `emulators export <dir>`: ask a running suite to export its data.
    case export(ExportOptions)
    /// `emulators help [command]`, `-h`, `--help`.
    case help(CommandName?)
    /// `emulators --version`.
    case version
}

/// The subcommands, as `help` names them.
package enum CommandName: String, Sendable, CaseIterable {
    case start, exec, export

    /// Accepts both spellings: `start` and `emulators:start`.
    package init?(spelling: String) {
        let name = spelling.hasPrefix("emulators:") ? String(spelling.dropFirst("emulators:".count)) : spelling
        self.init(rawValue: name)
    }
}

/// `emulators export` options.
package struct ExportOptions: Sendable, Equatable {
    package var path: String
    package var only: [String]?
    package var force = false
    package var project: String?
    package var configPath: String?

    package init(path: String) {
        self.path = path
    }
}

/// A command line that does not parse. The CLI prints the message and the usage, and exits 2.
package struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    /// The command whose usage to print (nil: the general usage).
    package var command: CommandName?
    /// The valid spelling closest to a mistyped command or option: printed as "did you mean …?"
    /// instead of the whole usage.
    package var suggestion: String?

    package init(_ message: String, command: CommandName? = nil, suggestion: String? = nil) {
        self.message = message
        self.command = command
        self.suggestion = suggestion
    }

    package var description: String { message }
}
