/// A labelled logger that filters by `LogVerbosity` and forwards to a `LogHandler`.
///
/// Messages are autoclosures: a filtered-out `debug` message is never built.
///
/// ```swift
/// let log = Logger(label: "firestore", verbosity: .info)
/// log.info("listening on 127.0.0.1:8080")
/// log.debug("not built unless verbosity is DEBUG: \(expensive())")
/// ```
package struct Logger: Sendable {
    package var label: String
    package var verbosity: LogVerbosity
    package var handler: any LogHandler

    package init(label: String, verbosity: LogVerbosity = .info, handler: any LogHandler = StandardErrorLogHandler()) {
        self.label = label
        self.verbosity = verbosity
        self.handler = handler
    }

    /// The same handler and verbosity under another label.
    package func withLabel(_ label: String) -> Logger {
        var copy = self
        copy.label = label
        return copy
    }

    package func isEnabled(_ level: LogLevel) -> Bool {
        verbosity.allows(level)
    }

    package func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard verbosity.allows(level) else { return }
        handler.log(
            LogRecord(level: level, label: label, message: message(), timestampMicroseconds: WallClock.nowMicroseconds()))
    }

    package func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    package func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    package func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    package func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}
