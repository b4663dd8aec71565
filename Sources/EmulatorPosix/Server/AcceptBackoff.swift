import Glibc

/// What a listener does when `accept` runs out of descriptors (`EMFILE`, `ENFILE`) or kernel
/// memory (`ENOBUFS`, `ENOMEM`).
///
/// The listening socket is level-triggered: while its backlog holds a connection, epoll reports
/// it readable again at once, so retrying on every wake-up would spin a core and starve the
/// connections that could free descriptors. Instead the listener leaves epoll for a pause that
/// doubles while the shortage lasts (10 ms up to 1 s) and is tried again after it; the first
/// failure of a shortage is logged, and so is the first accept after it (a shortage starting
/// within a minute of the last logged one is not logged again, so a server hovering at its limit
/// does not flood the console). Clients wait in the
/// kernel's backlog meanwhile and are served once descriptors free up.
///
/// A value type fed `accept` outcomes and the clock; the event loop carries out what it returns.
struct AcceptBackoff: Sendable, Equatable {
    /// What the loop does after an `accept` outcome.
    enum Action: Equatable {
        /// Keep accepting (nothing changed).
        case proceed
        /// Stop polling the listener until `resumeAt` (monotonic nanoseconds); `log` is the line
        /// to write when this shortage is new, else nil.
        case pause(resumeAt: Int64, log: String?)
        /// Accepting works again after a shortage: write `log` and continue.
        case recovered(log: String)
    }

    static let firstPauseNanos: Int64 = 10_000_000
    static let longestPauseNanos: Int64 = 1_000_000_000

    /// The pause after the next failure; 0 while accepting works.
    private(set) var nextPauseNanos: Int64 = 0
    /// Failures since the shortage started.
    private(set) var failures = 0
    /// When a shortage was last logged (monotonic nanoseconds), and whether the current one was.
    private var loggedAt: Int64?
    private var currentLogged = false
    static let quietNanos: Int64 = 60_000_000_000

    /// Whether `errno` from `accept4` means the process or system is out of a resource (as
    /// opposed to a connection that went away before it was taken, which is harmless).
    static func isExhaustion(_ errno: Int32) -> Bool {
        errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM
    }

    /// An accept that failed with `errno` at `now`.
    mutating func failed(errno: Int32, now: Int64, port: Int) -> Action {
        guard Self.isExhaustion(errno) else { return .proceed }
        var shouldLog = false
        if failures == 0 {
            shouldLog = loggedAt.map { now - $0 >= Self.quietNanos } ?? true
            currentLogged = shouldLog
            if shouldLog { loggedAt = now }
        }
        failures += 1
        let pause = nextPauseNanos == 0 ? Self.firstPauseNanos : nextPauseNanos
        nextPauseNanos = min(pause * 2, Self.longestPauseNanos)
        let log: String? =
            shouldLog
            ? "port \(port): cannot accept connections: \(Self.reason(errno)); waiting for descriptors to free up "
                + "(raise the limit with `ulimit -n`)"
            : nil
        return .pause(resumeAt: now + pause, log: log)
    }

    /// An accept that returned a connection.
    mutating func accepted(port: Int) -> Action {
        guard failures > 0 else { return .proceed }
        let count = failures
        failures = 0
        nextPauseNanos = 0
        guard currentLogged else { return .proceed }
        currentLogged = false
        return .recovered(log: "port \(port): accepting connections again (\(count) pause\(count == 1 ? "" : "s") for descriptors)")
    }

    private static func reason(_ errno: Int32) -> String {
        switch errno {
        case EMFILE: "out of file descriptors (EMFILE)"
        case ENFILE: "the system is out of file descriptors (ENFILE)"
        default: "out of kernel memory (errno \(errno))"
        }
    }
}
