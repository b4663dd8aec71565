import Glibc

/// A clock that never goes backwards (`CLOCK_MONOTONIC`), for timeouts and durations.
///
/// ```swift
/// let start = MonotonicClock.nanoseconds()
/// // … work …
/// let elapsed = MonotonicClock.nanoseconds() - start
/// ```
package enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (boot).
    package static func nanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }
}
