package import EmulatorSupport

/// One line for the console, in the official CLI's style: `i  firestore: …`, `⚠  …`, `✔  …`.
package struct SuiteNotice: Sendable, Hashable {
    package enum Level: Sendable, Hashable {
        case debug, info, success, warning, error
    }

    package var level: Level
    /// The prefix before the colon: `emulators`, `firestore`, `database`, `hub`; nil prints none.
    package var scope: String?
    package var text: String

    package init(_ level: Level, _ scope: String?, _ text: String) {
        self.level = level
        self.scope = scope
        self.text = text
    }

    /// The level's name in the UI's Logs view: `debug`, `info`, `success`, `warning`, `error`.
    package var levelName: String {
        switch level {
        case .debug: "debug"
        case .info: "info"
        case .success: "success"
        case .warning: "warning"
        case .error: "error"
        }
    }

    /// The line as printed, without a trailing newline: `⚠  firestore: Did not find …`.
    package var rendered: String {
        let mark: String
        switch level {
        case .debug: mark = "[debug]"
        case .info: mark = "i"
        case .success: mark = "✔"
        case .warning: mark = "⚠"
        case .error: mark = "!!"
        }
        let prefix = level == .debug ? "\(mark) " : "\(mark)  "
        guard let scope else { return prefix + text }
        return "\(prefix)\(scope): \(text)"
    }

    /// Whether `verbosity` lets this line through.
    package func isShown(at verbosity: LogVerbosity) -> Bool {
        switch level {
        case .debug: verbosity == .debug
        case .info, .success: verbosity <= .info
        case .warning: verbosity <= .quiet
        case .error: true
        }
    }
}
