#if canImport(Glibc)
import Glibc
#endif

/// Runs a closure on a new detached pthread (the clean shutdown, while the main thread watches signals).
enum PosixThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Returns false when the thread could not be created.
    @discardableResult
    static func detach(_ run: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Body(run)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        if status != 0 {
            Unmanaged<Body>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
