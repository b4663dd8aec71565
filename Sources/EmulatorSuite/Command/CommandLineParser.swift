import EmulatorSupport

/// Parses `emulators` arguments by hand: subcommands, `--flag value`, `--flag=value`, short flags.
///
/// ```swift
/// try CommandLineParser.parse(["start", "--only=firestore", "-P", "demo-app"])
/// // .start(StartOptions(only: ["firestore"], project: "demo-app"))
/// ```
///
/// Unknown flags, flags that the command does not take, missing values and extra arguments are
/// ``UsageError``s (exit 2, as argument parsers do). Global flags may come before the command.
package enum CommandLineParser {
    private enum Arity { case none, required, optional }

    private struct Flag {
        var names: [String]
        var arity: Arity
        /// Commands that accept it; nil: every command.
        var commands: Set<CommandName>?
    }

    private static let flags: [Flag] = [
        Flag(names: ["-P", "--project"], arity: .required, commands: nil),
        Flag(names: ["-c", "--config"], arity: .required, commands: nil),
        Flag(names: ["--only"], arity: .required, commands: [.start, .exec, .export]),
        Flag(names: ["--log-verbosity"], arity: .required, commands: [.start, .exec]),
        Flag(names: ["--import"], arity: .required, commands: [.start, .exec]),
        Flag(names: ["--export-on-exit"], arity: .optional, commands: [.start, .exec]),
        Flag(names: ["--data-dir"], arity: .required, commands: [.start, .exec]),
        Flag(names: ["--data-dir-no-fsync"], arity: .none, commands: [.start, .exec]),
        Flag(names: ["--force"], arity: .none, commands: [.export]),
        Flag(names: ["--ui"], arity: .none, commands: [.exec]),
        Flag(names: ["--non-interactive"], arity: .none, commands: nil),
        Flag(names: ["--debug"], arity: .none, commands: nil),
        Flag(names: ["-h", "--help"], arity: .none, commands: nil),
        Flag(names: ["-V", "--version"], arity: .none, commands: nil),
    ]

    package static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        var positionals: [String] = []
        var values: [(flag: String, value: String?)] = []
        var index = 0
        var afterDoubleDash = false
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            if afterDoubleDash || !token.hasPrefix("-") || token == "-" {
                positionals.append(token)
                continue
            }
            if token == "--" {
                afterDoubleDash = true
                continue
            }
            var name = token
            var inline: String?
            if token.hasPrefix("--"), let equals = token.firstIndex(of: "=") {
                name = String(token[..<equals])
                inline = String(token[token.index(after: equals)...])
            }
            guard let flag = flags.first(where: { $0.names.contains(name) }) else {
                let command = positionals.first.flatMap(CommandName.init(spelling:))
                let candidates = flags.filter { $0.commands.map { command.map($0.contains) ?? true } ?? true }
                    .flatMap(\.names).filter { $0.hasPrefix("--") }
                throw UsageError(
                    "unknown option '\(name)'", command: command, suggestion: Suggestion.nearest(to: name, in: candidates))
            }
            let canonical = flag.names.last ?? name
            switch flag.arity {
            case .none:
                if inline != nil { throw UsageError("option '\(canonical)' does not take a value") }
                values.append((canonical, nil))
            case .required:
                if let inline {
                    values.append((canonical, inline))
                } else if index < arguments.count {
                    values.append((canonical, arguments[index]))
                    index += 1
                } else {
                    throw UsageError(
                        "option '\(canonical)' needs a value", command: positionals.first.flatMap(CommandName.init(spelling:)))
                }
            case .optional:
                if let inline {
                    values.append((canonical, inline))
                } else if index < arguments.count, !arguments[index].hasPrefix("-") {
                    values.append((canonical, arguments[index]))
                    index += 1
                } else {
                    values.append((canonical, nil))
                }
            }
        }

        let wantsHelp = values.contains { $0.flag == "--help" }
        guard let first = positionals.first else {
            if values.contains(where: { $0.flag == "--version" }) { return .version }
            return .help(nil)
        }
        if first == "help" {
            guard positionals.count <= 2 else { throw UsageError("help takes at most one command name") }
            guard let topic = positionals.dropFirst().first else { return .help(nil) }
            guard let name = CommandName(spelling: topic) else { throw unknownCommand(topic) }
            return .help(name)
        }
        if first == "version" { return .version }
        guard let command = CommandName(spelling: first) else { throw unknownCommand(first) }
        if wantsHelp { return .help(command) }
        if values.contains(where: { $0.flag == "--version" }) { return .version }

        for (flag, _) in values {
            guard let spec = flags.first(where: { $0.names.contains(flag) }) else { continue }
            if let commands = spec.commands, !commands.contains(command) {
                throw UsageError("'\(command.rawValue)' does not take option '\(flag)'", command: command)
            }
        }
        let operands = Array(positionals.dropFirst())
        switch command {
        case .start:
            guard operands.isEmpty else { throw UsageError("unexpected argument '\(operands[0])'", command: command) }
            return .start(try startOptions(values, command: command))
        case .exec:
            guard let script = operands.first else { throw UsageError("missing the script to run", command: command) }
            guard operands.count == 1 else {
                throw UsageError("unexpected argument '\(operands[1])' (quote the whole script)", command: command)
            }
            return .exec(script: script, options: try startOptions(values, command: command))
        case .export:
            guard let path = operands.first else { throw UsageError("missing the export directory", command: command) }
            guard operands.count == 1 else { throw UsageError("unexpected argument '\(operands[1])'", command: command) }
            var options = ExportOptions(path: path)
            for (flag, value) in values {
                switch flag {
                case "--only": options.only = value.map(splitList)
                case "--force": options.force = true
                case "--project": options.project = value
                case "--config": options.configPath = value
                default: break
                }
            }
            return .export(options)
        }
    }

    private static func unknownCommand(_ spelling: String) -> UsageError {
        let prefix = spelling.hasPrefix("emulators:") ? "emulators:" : ""
        let names = CommandName.allCases.map { prefix + $0.rawValue } + (prefix.isEmpty ? ["help", "version"] : [])
        return UsageError("unknown command '\(spelling)'", suggestion: Suggestion.nearest(to: spelling, in: names))
    }

    private static func startOptions(
        _ values: [(flag: String, value: String?)], command: CommandName
    ) throws(UsageError) -> StartOptions {
        var options = StartOptions()
        if command == .exec {
            options.requiresUI = values.contains { $0.flag == "--ui" }
            options.showUI = options.requiresUI
        }
        for (flag, value) in values {
            switch flag {
            case "--only": options.only = value.map(splitList)
            case "--project": options.project = value
            case "--config": options.configPath = value
            case "--import": options.importDirectory = value
            case "--export-on-exit": options.exportOnExit = .some(value)
            case "--data-dir": options.dataDirectory = value
            case "--data-dir-no-fsync": options.dataDirectoryFsync = false
            case "--debug": options.verbosity = .debug
            case "--log-verbosity":
                guard let value, let verbosity = LogVerbosity(value) else {
                    throw UsageError(
                        "option '--log-verbosity' must be one of DEBUG, INFO, QUIET, SILENT (got '\(value ?? "")')",
                        command: command)
                }
                options.verbosity = verbosity
            default: break
            }
        }
        if !options.dataDirectoryFsync && options.dataDirectory == nil {
            // Without a data directory nothing is journaled: the flag would be silently ignored.
            throw UsageError("option '--data-dir-no-fsync' needs '--data-dir <dir>'", command: command)
        }
        return options
    }

    private static func splitList(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0.trimmingSpaces) }.filter { !$0.isEmpty }
    }
}
