import Glibc

/// The process's open-file limit (`RLIMIT_NOFILE`).
package enum DescriptorLimit {
    /// Raises the soft limit to the hard limit, so that the many connections of a test run do not
    /// hit a distribution's default of 1,024 when the system allows more (Node.js, which runs the
    /// official emulators' CLI, does the same at start). Returns the soft limit in force after
    /// the call; a failure leaves the limit as it was.
    @discardableResult
    package static func raiseSoftLimitToHard() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(limit.rlim_cur)
    }

    /// The current soft and hard limits.
    package static var current: (soft: UInt64, hard: UInt64) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (0, 0) }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }
}
