import Dispatch

/// Runs one instance's writes one at a time, in the order they were made, off the caller's
/// thread; reads wait for the writes made before them, so a program reads its own writes even
/// when it did not wait for them (the guides' fire-and-forget `setData(from:)`).
final class OrderedWork: Sendable {
    private let queue: DispatchQueue

    init(label: String) { queue = DispatchQueue(label: label) }

    /// Queues `work` after every earlier piece.
    func enqueue(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }

    /// Queues `body` and waits for its result without blocking a cooperative thread.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Blocks until every piece queued so far has run. Never call it from a queued piece.
    func waitForEarlierWork() { queue.sync {} }
}
