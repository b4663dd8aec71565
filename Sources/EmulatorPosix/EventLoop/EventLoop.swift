import CEmulatorLinux
import EmulatorSupport
import Glibc
import Synchronization

/// One epoll event loop on its own pthread.
///
/// Everything except the task inbox is confined to the loop's thread: listeners, connections and
/// the read buffer are only touched from `run()`. Other threads reach the loop with
/// ``execute(_:)``, which queues a closure and wakes the loop through an eventfd, or with
/// ``scheduleFlush(_:)``, which queues a stream writer to flush (no closure; one wake per batch).
final class EventLoop: @unchecked Sendable {
    // @unchecked: the mutable fields below are only read or written on the loop's own thread
    // (inside `run()` and the closures it runs); the cross-thread entries, `inbox` and `threadID`,
    // are a Mutex and an atomic.

    typealias Task = @Sendable (EventLoop) -> Void

    /// Work queued for the loop by other threads.
    private struct Inbox {
        var tasks: [Task] = []
        var flushes: [ConnectionWriter] = []
        var isEmpty: Bool { tasks.isEmpty && flushes.isEmpty }
    }

    private let epollFD: Int32
    private let wakeFD: Int32
    private let inbox = Mutex(Inbox())
    /// The loop thread's `pthread_self()` once `run()` started (0 before).
    private let threadID = Atomic<UInt>(0)
    let index: Int

    // Loop-confined state.
    private var connections: [ConnectionDriver?] = []
    private var listeners: [Int32: Listener] = [:]
    /// When the earliest paused listener polls again (monotonic nanoseconds; `Int64.max`: none).
    private var nextListenerResume = Int64.max
    private var connectionCount = 0
    private let readBuffer: UnsafeMutableRawBufferPointer
    private var sweepIntervalNanos: Int64 = 1_000_000_000
    private var nextSweep: Int64 = 0
    /// Outbound scratch shared by every connection on this loop (cleared after each use).
    var scratch: [UInt8] = []
    /// Connections whose responses go out once the current batch of events is handled.
    private var batchFlushes: [ConnectionDriver] = []

    /// A listening socket and how its accepting fares.
    private struct Listener {
        let server: ServerContext
        var backoff = AcceptBackoff()
        /// Set while the listener is out of epoll after a descriptor shortage.
        var resumeAt: Int64?
    }

    private static let wakeToken: UInt64 = 0
    private static let listenerFlag: UInt64 = 1 << 40

    init(index: Int) throws(ServerError) {
        self.index = index
        epollFD = cemu_epoll_create()
        guard epollFD >= 0 else { throw .system(operation: "epoll_create1", errno: cemu_errno()) }
        wakeFD = cemu_eventfd()
        guard wakeFD >= 0 else { throw .system(operation: "eventfd", errno: cemu_errno()) }
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        scratch.reserveCapacity(64 * 1024)
        _ = cemu_epoll_ctl(epollFD, CEMU_EPOLL_CTL_ADD, wakeFD, CEMU_EPOLLIN, Self.wakeToken)
    }

    /// Starts the loop's thread.
    func start() {
        PosixThread.spawn { [self] in run() }
    }

    /// Runs `task` on the loop's thread, soon. Safe from any thread, including the loop's own.
    func execute(_ task: @escaping Task) {
        let wasEmpty = inbox.withLock { inbox in
            let wasEmpty = inbox.isEmpty
            inbox.tasks.append(task)
            return wasEmpty
        }
        if wasEmpty { wake() }
    }

    /// Has the loop call `writer`'s driver to flush it, soon. Safe from any thread. A burst of
    /// writers (one event fanned out to many streams) costs one wake-up and no allocation each.
    func scheduleFlush(_ writer: ConnectionWriter) {
        let wasEmpty = inbox.withLock { inbox in
            let wasEmpty = inbox.isEmpty
            inbox.flushes.append(writer)
            return wasEmpty
        }
        if wasEmpty { wake() }
    }

    /// Whether the caller runs on this loop's thread (where loop-confined state may be touched).
    var isCurrentThread: Bool {
        let id = threadID.load(ordering: .acquiring)
        return id != 0 && pthread_equal(pthread_t(id), pthread_self()) != 0
    }

    private func wake() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { Glibc.write(wakeFD, $0.baseAddress, 8) }
    }

    // MARK: - Registration (loop thread only)

    func addListener(_ fd: Int32, server: ServerContext) {
        listeners[fd] = Listener(server: server)
        _ = cemu_epoll_ctl(epollFD, CEMU_EPOLL_CTL_ADD, fd, CEMU_EPOLLIN, Self.listenerFlag | UInt64(fd))
        adjustSweep(for: server)
    }

    func removeListener(_ fd: Int32) {
        guard listeners.removeValue(forKey: fd) != nil else { return }
        _ = cemu_epoll_ctl(epollFD, CEMU_EPOLL_CTL_DEL, fd, 0, 0)
        Glibc.close(fd)
    }

    /// Takes ownership of an accepted socket.
    func adopt(_ fd: Int32, server: ServerContext) {
        let driver = ConnectionDriver(fd: fd, loop: self, server: server, now: Self.now())
        let slot = Int(fd)
        if slot >= connections.count {
            connections.append(contentsOf: repeatElement(nil, count: slot - connections.count + 1))
        }
        connections[slot] = driver
        connectionCount += 1
        adjustSweep(for: server)
        if cemu_epoll_ctl(epollFD, CEMU_EPOLL_CTL_ADD, fd, CEMU_EPOLLIN | CEMU_EPOLLRDHUP, UInt64(fd)) != 0
            || server.draining.load(ordering: .acquiring)
        {
            driver.close()
        }
    }

    /// Changes the readiness a connection waits for.
    func setInterest(_ fd: Int32, read: Bool, write: Bool) {
        // Peer half-close is only interesting while reading; otherwise level-triggered RDHUP would
        // wake the loop again and again while a write waits for room.
        var events: UInt32 = 0
        if read { events |= CEMU_EPOLLIN | CEMU_EPOLLRDHUP }
        if write { events |= CEMU_EPOLLOUT }
        _ = cemu_epoll_ctl(epollFD, CEMU_EPOLL_CTL_MOD, fd, events, UInt64(fd))
    }

    /// Forgets a closed connection; the driver closes the descriptor itself afterwards.
    func forget(_ fd: Int32) {
        let slot = Int(fd)
        guard slot < connections.count, connections[slot] != nil else { return }
        connections[slot] = nil
        connectionCount -= 1
        _ = cemu_epoll_ctl(epollFD, CEMU_EPOLL_CTL_DEL, fd, 0, 0)
    }

    /// Every connection of `server` on this loop.
    func connections(of server: ServerContext) -> [ConnectionDriver] {
        connections.compactMap { driver in
            guard let driver, driver.server === server else { return nil }
            return driver
        }
    }

    var readScratch: UnsafeMutableRawBufferPointer { readBuffer }

    // MARK: - The loop

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        let capacity = 256
        let events = UnsafeMutablePointer<cemu_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        nextSweep = Self.now() + sweepIntervalNanos
        while true {
            let now = Self.now()
            let timeout = max(0, Int32(clamping: (nextSweep - now + 999_999) / 1_000_000))
            var wait: Int32 = connectionCount > 0 ? timeout : -1
            if nextListenerResume != .max {
                let resume = max(0, Int32(clamping: (nextListenerResume - now + 999_999) / 1_000_000))
                wait = wait < 0 ? resume : min(wait, resume)
            }
            let count = cemu_epoll_wait(epollFD, events, Int32(capacity), wait)
            if count < 0 {
                if cemu_errno() == EINTR { continue }
                return
            }
            for i in 0..<Int(count) {
                let event = events[i]
                if event.token == Self.wakeToken {
                    drainInbox()
                } else if event.token & Self.listenerFlag != 0 {
                    accept(on: Int32(truncatingIfNeeded: event.token & 0xFFFF_FFFF))
                } else {
                    let slot = Int(event.token)
                    guard slot < connections.count, let driver = connections[slot] else { continue }
                    driver.handle(events: event.events)
                }
            }
            flushBatch()
            let after = Self.now()
            if after >= nextListenerResume { resumeListeners(now: after) }
            if after >= nextSweep {
                sweep(now: after)
                nextSweep = after + sweepIntervalNanos
            }
        }
    }

    /// Has `driver` flush its output after the current batch of events (loop thread).
    func flushAfterBatch(_ driver: ConnectionDriver) {
        batchFlushes.append(driver)
    }

    private func flushBatch() {
        var index = 0
        while index < batchFlushes.count {
            batchFlushes[index].flushQueuedOutput()
            index += 1
        }
        batchFlushes.removeAll(keepingCapacity: true)
    }

    private func drainInbox() {
        var value: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &value) { Glibc.read(wakeFD, $0.baseAddress, 8) }
        var taken = Inbox()
        while true {
            inbox.withLock { inbox in swap(&inbox, &taken) }
            if taken.isEmpty { return }
            for task in taken.tasks { task(self) }
            for writer in taken.flushes { writer.flushOnLoop() }
            taken.tasks.removeAll(keepingCapacity: true)
            taken.flushes.removeAll(keepingCapacity: true)
        }
    }

    private func accept(on listenerFD: Int32) {
        guard var listener = listeners[listenerFD], listener.resumeAt == nil else { return }
        let server = listener.server
        defer { listeners[listenerFD] = listener }
        for _ in 0..<64 {
            let (fd, error) = server.acceptConnection(listenerFD)
            if fd < 0 {
                let action = listener.backoff.failed(errno: error, now: Self.now(), port: server.port)
                if case .pause(let resumeAt, let log) = action {
                    // Level-triggered: left in epoll, a listener with a waiting connection would
                    // wake the loop again at once and spin until a descriptor frees up.
                    _ = cemu_epoll_ctl(epollFD, CEMU_EPOLL_CTL_MOD, listenerFD, 0, Self.listenerFlag | UInt64(listenerFD))
                    listener.resumeAt = resumeAt
                    nextListenerResume = min(nextListenerResume, resumeAt)
                    if let log { server.configuration.logger.warning(log) }
                }
                return
            }
            if case .recovered(let log) = listener.backoff.accepted(port: server.port) {
                server.configuration.logger.info(log)
            }
            _ = cemu_set_nodelay(fd)
            let target = server.group.next()
            if target === self {
                adopt(fd, server: server)
            } else {
                target.execute { loop in loop.adopt(fd, server: server) }
            }
        }
    }

    /// Puts listeners whose pause is over back into epoll (a connection waiting in the backlog
    /// reports them readable at once, which tries `accept` again).
    private func resumeListeners(now: Int64) {
        nextListenerResume = .max
        for (fd, listener) in listeners {
            guard let resumeAt = listener.resumeAt else { continue }
            if resumeAt <= now {
                listeners[fd]?.resumeAt = nil
                _ = cemu_epoll_ctl(epollFD, CEMU_EPOLL_CTL_MOD, fd, CEMU_EPOLLIN, Self.listenerFlag | UInt64(fd))
            } else {
                nextListenerResume = min(nextListenerResume, resumeAt)
            }
        }
    }

    private func sweep(now: Int64) {
        for case let driver? in connections {
            driver.checkTimeouts(now: now)
        }
    }

    private func adjustSweep(for server: ServerContext) {
        let shortest = min(server.configuration.headerReadTimeout, server.configuration.idleTimeout)
        let nanos = Self.nanoseconds(shortest) / 4
        let interval = min(max(nanos, 2_000_000), 1_000_000_000)
        if interval < sweepIntervalNanos {
            sweepIntervalNanos = interval
            nextSweep = min(nextSweep, Self.now() + interval)
        }
    }

    // MARK: - Time

    /// Monotonic time in nanoseconds.
    static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
