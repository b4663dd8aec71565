package import EmulatorHTTP
package import EmulatorSupport
package import SecurityRules

/// How a `DatabaseEmulator` behaves.
///
/// ```swift
/// let config = DatabaseEmulatorConfiguration(defaultNamespace: "demo-project-default-rtdb")
/// ```
package struct DatabaseEmulatorConfiguration: Sendable {
    /// The namespace of requests with no `?ns=` whose host is an IP address (or absent).
    package var defaultNamespace: String
    /// Where rules denials are logged at debug verbosity, naming the rule that decided (nil: nowhere).
    package var rulesLogger: Logger?
    /// Where every rules decision goes for the Emulator UI's Requests view (nil: nowhere).
    package var requestLog: RulesRequestLog?
    /// Server time in milliseconds since the epoch (timestamps, push ids).
    package var now: @Sendable () -> Int64
    /// Seconds between `keep-alive` events on open streams; nil sends none. Short, because a
    /// client thread blocked reading a stream it was asked to close (firebase_admin's
    /// `listen(...).close()`) returns only when the next event arrives.
    package var keepAliveSeconds: Int?
    package var logger: Logger
    /// A monotonic clock in nanoseconds (read `timeout`s are measured with it).
    package var monotonicNanos: @Sendable () -> Int64
    /// Decides when WebSocket replies may go out (the suite holds writes' `ok` until they are
    /// durable with a live data directory); nil answers at once.
    package var replyGate: ReplyGate?
    /// Long-poll (`/.lp`) timeouts and bounds.
    package var longPoll = DatabaseLongPollConfiguration()
    /// How many namespaces reads and connections alone make known for good (past it, only
    /// names holding data, written to or with rules set are kept).
    package var namespacesKeptForReads = 10_000

    package init(
        defaultNamespace: String = "default",
        rulesLogger: Logger? = nil,
        now: @escaping @Sendable () -> Int64 = { WallClock.nowMilliseconds() },
        keepAliveSeconds: Int? = 2,
        logger: Logger = Logger(label: "database"),
        monotonicNanos: @escaping @Sendable () -> Int64 = DatabaseEmulatorConfiguration.continuousNanos,
        replyGate: ReplyGate? = nil
    ) {
        self.replyGate = replyGate
        self.defaultNamespace = defaultNamespace
        self.rulesLogger = rulesLogger
        self.now = now
        self.keepAliveSeconds = keepAliveSeconds
        self.logger = logger
        self.monotonicNanos = monotonicNanos
    }

    private static let origin = ContinuousClock.now

    /// Nanoseconds since the first use, from `ContinuousClock`.
    package static func continuousNanos() -> Int64 {
        let (seconds, attoseconds) = origin.duration(to: .now).components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
