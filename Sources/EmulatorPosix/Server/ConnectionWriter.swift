import EmulatorHTTP
import Synchronization

/// The thread-safe writing end of a streamed body or a taken-over connection.
///
/// On the connection's own loop thread, `write` sends at once when nothing is queued ahead (no
/// queueing, no wake-up); a short send queues the rest. From other threads it frames the bytes
/// and queues them under a lock; the first write after a flush puts the writer on the loop's flush
/// list, so a burst of writes costs one wake-up per loop and one `send` per connection.
final class ConnectionWriter: HTTPStreamWriter, UpgradedConnectionWriter {
    private struct State {
        var pending: [UInt8] = []
        var finished = false
        var closeConnection = false
        var closed = false
        var scheduled = false
        var handlers: [@Sendable () -> Void] = []
    }

    /// What the loop takes from the writer when it flushes.
    struct Taken {
        var bytes: [UInt8]
        var finished: Bool
        var closeConnection: Bool
    }

    private let state = Mutex(State())
    private let framing: HTTP1ResponseEncoder.StreamFraming
    private let loop: EventLoop
    private let driver: ConnectionDriver

    init(framing: HTTP1ResponseEncoder.StreamFraming, loop: EventLoop, driver: ConnectionDriver) {
        self.framing = framing
        self.loop = loop
        self.driver = driver
    }

    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        if loop.isCurrentThread { return writeOnLoop(bytes) }
        let (accepted, schedule) = state.withLock { state -> (Bool, Bool) in
            guard !state.closed, !state.finished else { return (false, false) }
            HTTP1ResponseEncoder.appendBodyPiece(bytes, framing: framing, into: &state.pending)
            return (true, markScheduled(&state))
        }
        if schedule { scheduleFlush() }
        return accepted
    }

    /// `write` on the loop thread: send directly when nothing is pending here or in the driver.
    private func writeOnLoop(_ bytes: [UInt8]) -> Bool {
        let (accepted, schedule) = state.withLock { state -> (Bool, Bool) in
            guard !state.closed, !state.finished else { return (false, false) }
            if state.pending.isEmpty, !state.scheduled, !bytes.isEmpty {
                // Loop-confined scratch: only this thread touches it, and never re-entrantly here.
                loop.scratch.removeAll(keepingCapacity: true)
                HTTP1ResponseEncoder.appendBodyPiece(bytes, framing: framing, into: &loop.scratch)
                let framed = loop.scratch
                let sent = framed.withUnsafeBytes { driver.sendDirect($0) }
                if sent == framed.count { return (true, false) }
                state.pending.append(contentsOf: framed[sent...])
            } else {
                HTTP1ResponseEncoder.appendBodyPiece(bytes, framing: framing, into: &state.pending)
            }
            return (true, markScheduled(&state))
        }
        if schedule { loop.scheduleFlush(self) }
        return accepted
    }

    func finish() {
        let schedule = state.withLock { state -> Bool in
            guard !state.closed, !state.finished else { return false }
            state.finished = true
            return markScheduled(&state)
        }
        if schedule { scheduleFlush() }
    }

    func close() {
        let schedule = state.withLock { state -> Bool in
            guard !state.closed, !state.closeConnection else { return false }
            state.finished = true
            state.closeConnection = true
            return markScheduled(&state)
        }
        if schedule { scheduleFlush() }
    }

    var isOpen: Bool {
        state.withLock { !$0.closed && !$0.finished }
    }

    /// Runs `work` on the connection's loop thread through the loop's inbox (one wake-up), after
    /// what is already queued; dropped if the connection closed meanwhile.
    func execute(_ work: @escaping @Sendable () -> Void) {
        loop.execute { [self] _ in
            if !state.withLock({ $0.closed || $0.finished }) { work() }
        }
    }

    /// On the connection's own loop thread a write is sent at once; elsewhere it is queued for
    /// that loop (``HTTPStreamFanOut`` queues those first, so both loops send in parallel).
    var sendsOnCallingThread: Bool { loop.isCurrentThread }

    /// A paced body has room while what it wrote and the connection has not sent stays under
    /// ``ConnectionDriver/pacedRoomBytes``; the driver resumes it after a send (loop thread).
    func deferUntilRoom(_ resume: @escaping @Sendable () -> Void) -> Bool {
        guard loop.isCurrentThread else {
            loop.execute { [self] _ in
                if !deferOnLoop(resume) { resume() }
            }
            return true
        }
        return deferOnLoop(resume)
    }

    private func deferOnLoop(_ resume: @escaping @Sendable () -> Void) -> Bool {
        // A closed stream never resumes.
        guard let pending = state.withLock({ $0.closed || $0.finished ? nil : $0.pending.count }) else { return true }
        return driver.deferUntilRoom(pending: pending, resume)
    }

    /// Bytes written and not yet taken by the loop.
    var pendingCount: Int { state.withLock { $0.pending.count } }

    func onClose(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            guard !state.closed else { return true }
            state.handlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    // MARK: - Loop side

    /// Takes the queued bytes and the end flags (loop thread).
    func take() -> Taken {
        state.withLock { state in
            state.scheduled = false
            let taken = Taken(bytes: state.pending, finished: state.finished, closeConnection: state.closeConnection)
            state.pending = []
            return taken
        }
    }

    /// Marks the writer closed and runs the close handlers once (loop thread).
    func markClosed() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.closed else { return [] }
            state.closed = true
            state.pending = []
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler() }
    }

    private func markScheduled(_ state: inout State) -> Bool {
        if state.scheduled { return false }
        state.scheduled = true
        return true
    }

    private func scheduleFlush() {
        loop.scheduleFlush(self)
    }

    /// Runs the scheduled flush (loop thread, from the loop's flush list).
    func flushOnLoop() {
        driver.flushWriter(self)
    }
}
