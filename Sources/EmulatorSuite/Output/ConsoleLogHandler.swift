import EmulatorSupport

/// Sends an emulator's log records to the suite console as `i  firestore: …` lines, so that
/// rules `debug()` output and denials appear where the rest of the suite prints (filtered by
/// `--log-verbosity`).
///
/// ```swift
/// let logger = ConsoleLogHandler.logger("firestore", console: context.console)
/// ```
struct ConsoleLogHandler: LogHandler {
    let console: Console

    func log(_ record: LogRecord) {
        let level: SuiteNotice.Level =
            switch record.level {
            case .debug: .debug
            case .info: .info
            case .warning: .warning
            case .error: .error
            }
        console.emit(SuiteNotice(level, record.label, record.message))
    }

    /// A logger labelled `label` that lets every record through to the console, which filters.
    static func logger(_ label: String, console: Console) -> Logger {
        Logger(label: label, verbosity: LogVerbosity.debug, handler: ConsoleLogHandler(console: console))
    }
}
