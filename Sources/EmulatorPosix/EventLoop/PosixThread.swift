import Glibc

/// Starts detached pthreads (no Foundation).
package enum PosixThread {
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Runs `body` on a new detached thread; false (and `body` dropped) when no thread could be
    /// created.
    @discardableResult
    package static func spawn(_ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
            box.body()
            return nil
        }, box)
        if result == 0 {
            pthread_detach(thread)
            return true
        }
        Unmanaged<Box>.fromOpaque(box).release()
        return false
    }
}
