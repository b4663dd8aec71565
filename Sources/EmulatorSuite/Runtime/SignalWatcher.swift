#if canImport(Glibc)
import Glibc
#endif

/// Receives the shutdown signals synchronously with `sigtimedwait(2)` instead of handlers.
///
/// `install()` blocks SIGINT, SIGTERM, SIGHUP and SIGQUIT in the calling thread; call it on the
/// main thread before any other thread starts, so every thread inherits the mask and the signals
/// stay pending until `wait` takes them.
package struct SignalWatcher: Sendable {
    package static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    package init() {}

    /// Blocks the handled signals for this thread and the threads it creates from now on.
    ///
    /// Dispositions are reset to the default first: a non-interactive shell starts background
    /// jobs with SIGINT and SIGQUIT ignored, and an ignored signal is discarded, not queued.
    package func install() {
        var set = Self.signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        for signal in Self.handled { Glibc.signal(signal, SIG_DFL) }
    }

    /// The next handled signal, or nil when `timeout` passes first (nil timeout: wait forever).
    package func wait(timeout: Duration?) -> Int32? {
        var set = Self.signalSet()
        while true {
            let result: Int32
            if let timeout {
                var spec = timespec(
                    tv_sec: Int(timeout.components.seconds),
                    tv_nsec: Int(timeout.components.attoseconds / 1_000_000_000))
                result = sigtimedwait(&set, nil, &spec)
            } else {
                result = sigwaitinfo(&set, nil)
            }
            if result > 0 { return result }
            if errno == EINTR { continue }
            return nil
        }
    }

    /// `SIGINT`, `SIGTERM`, …; `signal N` for others.
    package static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        case SIGQUIT: "SIGQUIT"
        case SIGKILL: "SIGKILL"
        case SIGSEGV: "SIGSEGV"
        case SIGABRT: "SIGABRT"
        case SIGPIPE: "SIGPIPE"
        case SIGBUS: "SIGBUS"
        case SIGUSR1: "SIGUSR1"
        case SIGUSR2: "SIGUSR2"
        default: "signal \(signal)"
        }
    }

    /// The name as the official CLI prints it on a first signal: `SIGINT (Ctrl-C)`.
    package static func describe(_ signal: Int32) -> String {
        signal == SIGINT ? "SIGINT (Ctrl-C)" : name(signal)
    }

    static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in handled { sigaddset(&set, signal) }
        return set
    }
}

/// How the shutdown signals count, as the official suite counts them: the first starts the
/// clean shutdown; one within 100 ms of the first is ignored (npm sends SIGINT twice); any
/// later one means exit at once (status 130).
///
/// ```swift
/// var counter = ShutdownSignals()
/// counter.receive(at: .now)   // .first
/// counter.receive(at: .now)   // .ignored (within 100 ms)
/// ```
package struct ShutdownSignals: Sendable {
    package enum Decision: Sendable, Equatable {
        /// Start (or, already under way, continue) the clean shutdown.
        case first
        /// Within the window after the first: not a second signal.
        case ignored
        /// A second signal: exit now.
        case exitNow
    }

    /// Signals this soon after the first are ignored.
    package static let window: Duration = .milliseconds(100)

    /// When the first signal came, if one did.
    package private(set) var firstAt: ContinuousClock.Instant?

    package init() {}

    @discardableResult
    package mutating func receive(at now: ContinuousClock.Instant) -> Decision {
        guard let firstAt else {
            firstAt = now
            return .first
        }
        return now - firstAt < Self.window ? .ignored : .exitNow
    }
}
