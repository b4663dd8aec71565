/// A point in time: seconds since the Unix epoch plus nanoseconds, as `google.protobuf.Timestamp`.
///
/// Valid range is 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999999Z; `nanos` is in 0..<1e9
/// (a time before the epoch with a fraction has negative seconds and positive nanos).
///
/// ```swift
/// let t = try Timestamp(rfc3339: "2024-01-02T03:04:05.123456Z")
/// t.rfc3339            // "2024-01-02T03:04:05.123456Z"
/// t.microseconds       // 1704164645123456
/// ```
package struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var seconds: Int64
    package var nanos: Int32

    /// Seconds of 0001-01-01T00:00:00Z.
    package static let minSeconds: Int64 = -62_135_596_800
    /// Seconds of 9999-12-31T23:59:59Z.
    package static let maxSeconds: Int64 = 253_402_300_799

    /// A timestamp; `nanos` must be in 0..<1_000_000_000 (not checked: see ``isValid``).
    package init(seconds: Int64, nanos: Int32 = 0) {
        self.seconds = seconds
        self.nanos = nanos
    }

    /// The timestamp `microseconds` after the epoch (negative for earlier).
    package init(microseconds: Int64) {
        let (q, r) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        if r < 0 {
            self.init(seconds: q - 1, nanos: Int32((r + 1_000_000) * 1000))
        } else {
            self.init(seconds: q, nanos: Int32(r * 1000))
        }
    }

    /// The timestamp `milliseconds` after the epoch.
    package init(milliseconds: Int64) {
        self.init(microseconds: milliseconds.multipliedReportingOverflow(by: 1000).partialValue)
    }

    /// Microseconds since the epoch, rounded down (toward the past). Saturates outside ±2^63 µs.
    package var microseconds: Int64 {
        let (m, o) = seconds.multipliedReportingOverflow(by: 1_000_000)
        if o { return seconds < 0 ? .min : .max }
        return m &+ Int64(nanos / 1000)
    }

    /// Milliseconds since the epoch, rounded down.
    package var milliseconds: Int64 {
        let (m, o) = seconds.multipliedReportingOverflow(by: 1000)
        if o { return seconds < 0 ? .min : .max }
        return m &+ Int64(nanos / 1_000_000)
    }

    /// This time with the sub-microsecond digits dropped (Firestore stores microseconds).
    package var truncatedToMicroseconds: Timestamp {
        Timestamp(seconds: seconds, nanos: nanos - nanos % 1000)
    }

    /// This time moved by `delta` microseconds (saturating at the ends of Int64 microseconds).
    package func adding(microseconds delta: Int64) -> Timestamp {
        let (sum, overflow) = microseconds.addingReportingOverflow(delta)
        if overflow { return Timestamp(microseconds: delta < 0 ? .min : .max) }
        return Timestamp(microseconds: sum).with(subMicroNanos: nanos % 1000)
    }

    private func with(subMicroNanos extra: Int32) -> Timestamp {
        Timestamp(seconds: seconds, nanos: nanos + extra)
    }

    /// True when nanos is in range and the time lies within years 1…9999.
    package var isValid: Bool {
        nanos >= 0 && nanos < 1_000_000_000 && seconds >= Self.minSeconds && seconds <= Self.maxSeconds
    }

    package static func < (a: Timestamp, b: Timestamp) -> Bool {
        a.seconds != b.seconds ? a.seconds < b.seconds : a.nanos < b.nanos
    }

    package var description: String { rfc3339 }
}
