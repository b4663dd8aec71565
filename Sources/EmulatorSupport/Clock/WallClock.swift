import Glibc

/// The real-time (wall) clock, `CLOCK_REALTIME`. Use it for timestamps users see
/// (commit times, server timestamps); use `MonotonicClock` for measuring durations.
///
/// ```swift
/// let (seconds, nanos) = WallClock.now()
/// let micros = WallClock.nowMicroseconds() // e.g. 1_763_784_000_123_456
/// ```
package enum WallClock {
    /// Microseconds since the Unix epoch.
    package static func nowMicroseconds() -> Int64 {
        let time = now()
        return time.seconds * 1_000_000 + Int64(time.nanos / 1_000)
    }

    /// Milliseconds since the Unix epoch (what RTDB's `{".sv": "timestamp"}` resolves to).
    package static func nowMilliseconds() -> Int64 {
        let time = now()
        return time.seconds * 1_000 + Int64(time.nanos / 1_000_000)
    }

    /// Seconds since the Unix epoch and the nanoseconds within that second (0 ..< 1e9).
    package static func now() -> (seconds: Int64, nanos: Int32) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return (Int64(spec.tv_sec), Int32(truncatingIfNeeded: spec.tv_nsec))
    }
}
