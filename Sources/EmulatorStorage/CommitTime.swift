import Glibc

/// Microseconds since the Unix epoch. Commit times strictly increase across commits.
package typealias CommitTime = Int64

/// The engine's time source: microseconds since the Unix epoch. Injectable for tests.
package struct StorageClock: Sendable {
    package let now: @Sendable () -> CommitTime
    package init(now: @escaping @Sendable () -> CommitTime) { self.now = now }

    /// The system wall clock (CLOCK_REALTIME).
    package static let system = StorageClock {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return CommitTime(spec.tv_sec) * 1_000_000 + CommitTime(spec.tv_nsec / 1_000)
    }
}
