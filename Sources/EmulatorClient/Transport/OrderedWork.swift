import Dispatch
import Foundation
import Synchronization

/// Runs one instance's writes one at a time, in the order they were made, off the caller's
/// thread; reads wait for the writes made before them, so a program reads its own writes even
/// when it did not wait for them (the guides' fire-and-forget `setData(from:)`).
///
/// It is also the offline queue: a write that finds the emulator unreachable is retried with
/// backoff (0.1 s doubling to 5 s) until it gets an answer, and the writes after it wait their
/// turn. Meanwhile the queue counts as offline and reads stop waiting for it (they fail, or
/// succeed once the emulator is back, without the queued writes).
final class OrderedWork: Sendable {
    private let queue: DispatchQueue
    private let offline = Atomic<Bool>(false)

    init(label: String) { queue = DispatchQueue(label: label) }

    /// Whether a queued write is waiting for the emulator to come back.
    var isOffline: Bool { offline.load(ordering: .acquiring) }

    /// Queues `work` after every earlier piece.
    func enqueue(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }

    /// Queues `body` and waits for its result without blocking a cooperative thread.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Blocks until every piece queued so far has run, or the queue is offline. Never call it
    /// from a queued piece.
    func waitForEarlierWork() {
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        while done.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            if isOffline { return }
        }
    }

    /// Runs `body` (on the queue) until it succeeds or fails for a reason other than an
    /// unreachable emulator.
    func untilReachable<T, E: Error>(_ unreachable: (E) -> Bool, _ body: () throws(E) -> T) throws(E) -> T {
        var delay = 0.1
        while true {
            do {
                let result = try body()
                offline.store(false, ordering: .releasing)
                return result
            } catch where unreachable(error) {
                offline.store(true, ordering: .releasing)
                usleep(useconds_t(delay * 1_000_000))
                delay = min(delay * 2, 5)
            } catch {
                offline.store(false, ordering: .releasing)
                throw error
            }
        }
    }
}
