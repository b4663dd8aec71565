import Glibc
import Synchronization

/// A server that is accepting connections. Keep it to stop it with ``shutdown(gracePeriod:)``.
package final class RunningServer: Sendable {
    private let context: ServerContext
    private let listenerFDs: [Int32]
    private let listenerLoop: EventLoop
    private let stopped = Atomic<Bool>(false)
    /// The host it listens on, as configured.
    package let host: String
    /// The bound port (the ephemeral one when the configuration said 0).
    package let port: Int
    /// The addresses it listens on, in bind order: the configured host, or for `localhost`
    /// `127.0.0.1` and (when it could be bound) `::1`.
    package let addresses: [String]

    init(context: ServerContext, listenerFDs: [Int32], addresses: [String], listenerLoop: EventLoop, port: Int) {
        self.context = context
        self.listenerFDs = listenerFDs
        self.addresses = addresses
        self.listenerLoop = listenerLoop
        self.host = context.configuration.host
        self.port = port
    }

    /// Open connections right now.
    package var connectionCount: Int { context.connectionCount.load(ordering: .relaxed) }

    /// Stops accepting, lets requests in progress finish (their responses carry
    /// `Connection: close`), ends streams and closes idle connections; whatever is still open when
    /// `gracePeriod` ends is closed. Blocks until done, at most about `gracePeriod`. Safe to call
    /// twice (the second call returns at once).
    package func shutdown(gracePeriod: Duration = .seconds(1)) {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let deadline = EventLoop.now() + EventLoop.nanoseconds(gracePeriod)
        let context = self.context
        let fds = listenerFDs
        let listenerClosed = Atomic<Bool>(false)
        listenerLoop.execute { loop in
            for fd in fds { loop.removeListener(fd) }
            listenerClosed.store(true, ordering: .releasing)
        }
        context.draining.store(true, ordering: .releasing)
        for loop in context.group.loops {
            loop.execute { loop in
                for driver in loop.connections(of: context) { driver.drain() }
            }
        }
        while EventLoop.now() < deadline,
            context.connectionCount.load(ordering: .acquiring) > 0 || !listenerClosed.load(ordering: .acquiring)
        {
            usleep(500)
        }
        let forced = Atomic<Int>(0)
        for loop in context.group.loops {
            loop.execute { loop in
                for driver in loop.connections(of: context) { driver.close() }
                forced.add(1, ordering: .releasing)
            }
        }
        // Wait (briefly) for the loops to run the forced close, so the port is free on return.
        let hardDeadline = EventLoop.now() + 100_000_000
        while forced.load(ordering: .acquiring) < context.group.loops.count, EventLoop.now() < hardDeadline {
            usleep(200)
        }
    }
}
