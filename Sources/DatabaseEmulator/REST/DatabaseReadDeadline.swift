/// Enforces a read's `timeout` query parameter: production ends a read that has not finished
/// within the timeout with a 400. The read checks between its stages (fetching the data, applying
/// the query, converting and encoding it), so an expired read stops before it is sent; the clock
/// is injectable for tests.
///
/// Without a `timeout` parameter the limit is production's default of 15 minutes, which no read
/// here comes near: such a read passes no clock (`clock: nil`) and never reads the time.
///
/// ```swift
/// let deadline = DatabaseReadDeadline(timeoutNanos: 3_000_000, clock: config.monotonicNanos)
/// try deadline.check()   // throws .invalid(DatabaseFailure.readTimedOut) after 3 ms
/// ```
struct DatabaseReadDeadline {
    let clock: (@Sendable () -> Int64)?
    let deadline: Int64

    init(timeoutNanos: Int64, clock: (@Sendable () -> Int64)?) {
        self.clock = clock
        guard let clock else {
            deadline = .max
            return
        }
        let (end, overflow) = clock().addingReportingOverflow(timeoutNanos)
        deadline = overflow ? .max : end
    }

    /// Throws the timeout error once the deadline has passed.
    func check() throws(DatabaseFailure) {
        if let clock, clock() > deadline { throw .invalid(DatabaseFailure.readTimedOut) }
    }
}
