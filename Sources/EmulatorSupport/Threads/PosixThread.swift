import Glibc

/// Threads of our own (no Foundation): event loops, file readers and writers, the journal's
/// syncer, checkpoints, the rules watcher. Detached with ``spawn(_:)``, or joinable with
/// ``start(_:)`` when the owner must wait for the thread's work (a file closed, a batch decoded).
///
/// ```swift
/// PosixThread.spawn { loop.run() }                 // runs until the loop stops
/// if let helper = PosixThread.start({ job.secondHalf() }) {
///     job.firstHalf()
///     helper.join()
/// }
/// ```
package enum PosixThread {
    /// A started thread that must be joined exactly once.
    package struct Joinable: Sendable {
        let thread: pthread_t

        /// Waits for the thread's body to return.
        package func join() {
            pthread_join(thread, nil)
        }
    }

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Runs `body` on a new detached thread; false (and `body` dropped) when no thread could be
    /// created.
    @discardableResult
    package static func spawn(_ body: @escaping @Sendable () -> Void) -> Bool {
        guard let thread = create(body) else { return false }
        pthread_detach(thread)
        return true
    }

    /// Runs `body` on a new thread the caller joins; nil (and `body` dropped) when no thread
    /// could be created, so the caller can do the work itself.
    package static func start(_ body: @escaping @Sendable () -> Void) -> Joinable? {
        create(body).map(Joinable.init)
    }

    private static func create(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
            box.body()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return nil
        }
        return thread
    }

}
