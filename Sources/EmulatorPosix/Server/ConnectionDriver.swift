import CEmulatorLinux
import EmulatorHTTP
import EmulatorSupport
import Glibc
import Synchronization

/// Carries out what one connection's ``HTTP1Connection`` state machine asks for: reads, calls the
/// handler, writes (one `send` per batch of responses), streams, upgrades, deferred responses
/// (completed later from any thread through the loop's inbox), timeouts and closing.
final class ConnectionDriver: @unchecked Sendable {
    // @unchecked: a driver is confined to its event loop's thread. Other threads only reach it via
    // the loop's inbox (`EventLoop.execute`, or `scheduleFlush` for a ConnectionWriter); its writer
    // calls `sendDirect` only when running on this loop's thread.

    let fd: Int32
    let loop: EventLoop
    let server: ServerContext

    // The mutable state below is touched only on the loop's thread, and no access to it overlaps
    // another: the state machine's methods that take `connection` and `outbound` inout call
    // nothing outside it, and handlers run between accesses. So the dynamic exclusivity checks
    // a class's stored properties get (about ten a request, each a runtime call) are off.
    @exclusivity(unchecked) private var connection: HTTP1Connection
    @exclusivity(unchecked) private var outbound: [UInt8] = []
    @exclusivity(unchecked) private var outboundOffset = 0
    @exclusivity(unchecked) private var waitingForWritable = false
    @exclusivity(unchecked) private var closeAfterFlush = false
    @exclusivity(unchecked) private var closed = false
    @exclusivity(unchecked) private var lingerDeadline: Int64?
    @exclusivity(unchecked) private var lastActivity: Int64
    @exclusivity(unchecked) private var requestStart: Int64
    @exclusivity(unchecked) private var streamWriter: ConnectionWriter?
    @exclusivity(unchecked) private var takeoverWriter: ConnectionWriter?
    @exclusivity(unchecked) private var takeover: (any UpgradedConnectionHandler)?
    /// The deferred response the request in progress waits for; pipelined requests wait behind it.
    @exclusivity(unchecked) private var pendingDeferred: HTTPDeferredResponse?
    /// Set while pipelined requests wait because too many response bytes are unsent.
    @exclusivity(unchecked) private var pausedForOutput = false
    /// When the kernel last accepted bytes of this connection (monotonic nanoseconds).
    @exclusivity(unchecked) private var lastSendProgress: Int64
    /// A paced stream body waiting for room (``deferUntilRoom(pending:_:)``).
    @exclusivity(unchecked) private var roomWaiter: (@Sendable () -> Void)?
    /// The stream in progress is a paced (finite) body: a graceful shutdown lets it finish.
    @exclusivity(unchecked) private var streamIsPaced = false
    /// Set while this driver waits on its loop's list of connections to flush once the current
    /// batch of readiness events is handled (``flushAfterBatch()``).
    @exclusivity(unchecked) private var flushQueued = false

    private static let lingerNanos: Int64 = 500_000_000
    private static let maxBufferedWhileStreaming = 1 << 20
    /// Unsent response bytes past which no further pipelined request is handled until the peer
    /// reads: a client that pipelines requests and never reads cannot make the server hold all
    /// their responses (one response may still exceed it; the next waits).
    static let maxUnsentBeforeNextRequest = 1 << 20
    /// How long a connection past its stream backlog limit may go without the kernel taking any
    /// of its bytes before it counts as not reading.
    static let stalledNanos: Int64 = 1_000_000_000
    /// Unsent bytes (queued here and in the stream's writer) under which a paced body
    /// (``HTTPStreamBody/init(paced:)``) makes its next piece.
    static let pacedRoomBytes = 64 * 1024

    /// Response bytes queued on this connection and not yet accepted by the kernel.
    private var unsentCount: Int { outbound.count - outboundOffset }

    init(fd: Int32, loop: EventLoop, server: ServerContext, now: Int64) {
        self.fd = fd
        self.loop = loop
        self.server = server
        self.connection = HTTP1Connection(limits: server.configuration.limits)
        self.lastActivity = now
        self.requestStart = now
        self.lastSendProgress = now
        server.connectionCount.add(1, ordering: .relaxed)
    }

    // MARK: - Readiness

    func handle(events: UInt32) {
        if pendingDeferred != nil, closeAfterFlush, events & (CEMU_EPOLLHUP | CEMU_EPOLLERR) != 0 {
            // The peer is gone both ways while its response is pending: nobody is left to answer.
            close()
            return
        }
        if events & CEMU_EPOLLOUT != 0 {
            flush()
            if closed { return }
        }
        if events & (CEMU_EPOLLIN | CEMU_EPOLLHUP | CEMU_EPOLLRDHUP | CEMU_EPOLLERR) != 0 {
            readAvailable()
        }
    }

    private func readAvailable() {
        let buffer = loop.readScratch
        var peerClosed = false
        // At most four reads per wake-up, each followed by parsing, so a fast sender cannot make
        // the parser buffer without bound; level-triggered epoll reports the rest next time.
        for _ in 0..<4 {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n > 0 {
                lastActivity = EventLoop.now()
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
                if lingerDeadline != nil {
                    // Draining what the peer still sends after an error response; discard it.
                } else if let takeover {
                    takeover.received(Array(bytes))
                } else if !closeAfterFlush {
                    if connection.isIdle { requestStart = lastActivity }
                    connection.received(bytes)
                    process()
                    if streamWriter != nil || pendingDeferred != nil,
                        connection.bufferedCount > Self.maxBufferedWhileStreaming
                    {
                        // Requests pipelined behind a stream or a deferred response wait; a peer
                        // that keeps sending is abusive.
                        close()
                        return
                    }
                }
                if closed { return }
                if n < buffer.count { break }
            } else if n == 0 {
                peerClosed = true
                break
            } else {
                let error = cemu_errno()
                if error == EINTR { continue }
                if error == EAGAIN || error == EWOULDBLOCK { break }
                close()
                return
            }
        }
        if lingerDeadline != nil {
            if peerClosed { close() }
            return
        }
        if peerClosed, pendingDeferred != nil {
            // Half-closed after its request: answer once the deferred response arrives, then close.
            // Reading stops meanwhile (EOF would keep the level-triggered loop awake).
            closeAfterFlush = true
            updateInterest()
            return
        }
        if peerClosed {
            if outboundOffset < outbound.count, streamWriter == nil, takeover == nil {
                closeAfterFlush = true
                updateInterest()
            } else {
                close()
                return
            }
        }
        flushAfterBatch()
    }

    /// Sends what the requests just read produced once the loop has handled every connection of
    /// this readiness batch, rather than now. Each `send` on a loopback socket wakes the peer's
    /// waiting thread; sent between requests that each take tens of microseconds, every response
    /// finds its client asleep again and pays a full cross-CPU wake-up, while a run of sends
    /// back to back mostly finds it awake. Nothing waits longer than the rest of the batch.
    private func flushAfterBatch() {
        guard !closed, !flushQueued else { return }
        flushQueued = true
        loop.flushAfterBatch(self)
    }

    /// The loop's end-of-batch call (loop thread).
    func flushQueuedOutput() {
        flushQueued = false
        flush()
    }

    /// Pulls actions from the state machine until it needs more input.
    private func process() {
        while !closed {
            if unsentCount > Self.maxUnsentBeforeNextRequest {
                flush()
                if closed { return }
                if unsentCount > Self.maxUnsentBeforeNextRequest {
                    // Resumed by `flush` once the peer has read enough.
                    pausedForOutput = true
                    return
                }
            }
            guard let action = connection.nextAction(into: &outbound) else { return }
            switch action {
            case .handle(let request):
                if !apply(server.handler(request)) { return }
            case .close:
                beginClosing()
                return
            case .http2(let buffered):
                if let factory = server.configuration.http2Handler {
                    startTakeover(factory, buffered: buffered)
                } else {
                    beginClosing()
                }
                return
            }
        }
    }

    /// Encodes `response` for the request in progress; returns whether to keep pulling actions.
    private func apply(_ response: HTTPResponse) -> Bool {
        switch connection.respond(response, into: &outbound) {
        case .next:
            return true
        case .close:
            beginClosing()
            return false
        case .stream(let body, let framing):
            startStream(body, framing: framing)
            return false
        case .upgrade(let upgrade, let buffered):
            startTakeover(upgrade.makeHandler, buffered: buffered)
            return false
        case .deferred(let deferred):
            if let completed = deferred.takeIfCompleted() { return apply(completed) }
            pendingDeferred = deferred
            // The completing thread only queues a task; driver state is touched on the loop.
            deferred.onComplete { [self] response in
                loop.execute { _ in self.completeDeferred(deferred, with: response) }
            }
            return false
        }
    }

    /// The deferred response arrived (loop thread): send it, then serve what was pipelined behind
    /// it. Dropped when the connection closed meanwhile.
    private func completeDeferred(_ deferred: HTTPDeferredResponse, with response: HTTPResponse) {
        guard !closed, pendingDeferred === deferred else { return }
        pendingDeferred = nil
        lastActivity = EventLoop.now()
        if apply(response), !closeAfterFlush { process() }
        if closed { return }
        flush()
    }

    // MARK: - Streams and take-overs

    private func startStream(_ body: HTTPStreamBody, framing: HTTP1ResponseEncoder.StreamFraming) {
        let writer = ConnectionWriter(framing: framing, loop: loop, driver: self)
        streamWriter = writer
        flush()
        if closed { return }
        body.start(writer)
    }

    private func startTakeover(_ factory: UpgradedConnectionFactory, buffered: [UInt8]) {
        let writer = ConnectionWriter(framing: .closeDelimited, loop: loop, driver: self)
        takeoverWriter = writer
        flush()
        if closed { return }
        let handler = factory(writer)
        takeover = handler
        if !buffered.isEmpty { handler.received(buffered) }
    }

    /// Moves what `writer` queued into the outbound buffer and sends it (loop thread).
    func flushWriter(_ writer: ConnectionWriter) {
        guard !closed else { return }
        let taken = writer.take()
        outbound.append(contentsOf: taken.bytes)
        if writer === streamWriter {
            if taken.finished {
                streamWriter = nil
                streamIsPaced = false
                writer.markClosed()
                if taken.closeConnection {
                    beginClosing()
                } else if connection.streamEnded(into: &outbound) {
                    lastActivity = EventLoop.now()
                    process()
                } else {
                    beginClosing()
                }
            }
        } else if writer === takeoverWriter {
            if taken.finished { beginClosing() }
        } else {
            return
        }
        flush()
        let limit = server.configuration.maxStreamBacklogBytes
        if !closed, unsentCount > limit,
            unsentCount > 8 * limit || EventLoop.now() - lastSendProgress > Self.stalledNanos
        {
            // A subscriber that does not read (an SSE stream, a WebSocket) would make the server
            // keep every event for it. Drop it; the SDKs reconnect and resync. (One that reads,
            // however slowly, keeps a large first snapshot: only eight times the limit ends it.)
            server.configuration.logger.warning(
                "port \(server.port): closing a connection that is not reading: \(unsentCount / 1024) KiB unsent "
                    + "(limit \(server.configuration.maxStreamBacklogBytes / 1024) KiB)")
            close()
        }
    }

    /// Whether the paced body writing through this connection's stream must wait for room: then
    /// `resume` runs on the loop once a send brings the unsent bytes down (loop thread).
    func deferUntilRoom(pending: Int, _ resume: @escaping @Sendable () -> Void) -> Bool {
        guard !closed else { return true }
        streamIsPaced = true
        if unsentCount + pending <= Self.pacedRoomBytes { return false }
        roomWaiter = resume
        return true
    }

    /// Resumes a paced body waiting for room once there is (after a send; through the loop's
    /// inbox, so it never runs inside `flush`).
    private func resumePacedBodyIfRoom() {
        guard let resume = roomWaiter, unsentCount + (streamWriter?.pendingCount ?? 0) <= Self.pacedRoomBytes else { return }
        roomWaiter = nil
        loop.execute { _ in resume() }
    }

    // MARK: - Writing

    /// Sends stream bytes at once when nothing is queued ahead of them (loop thread, called by this
    /// connection's writer); returns how many bytes went out. The writer queues the rest, so a
    /// would-block or an error takes the usual path (wait for room, or close).
    func sendDirect(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard !closed, !closeAfterFlush, lingerDeadline == nil, outboundOffset >= outbound.count,
            let base = bytes.baseAddress
        else { return 0 }
        var sent = 0
        while sent < bytes.count {
            let n = cemu_send(fd, base + sent, UInt(bytes.count - sent))
            if n > 0 {
                sent += n
                lastSendProgress = EventLoop.now()
            } else if n < 0, cemu_errno() == EINTR {
                continue
            } else {
                break
            }
        }
        return sent
    }

    private func flush() {
        guard !closed else { return }
        while outboundOffset < outbound.count {
            let n = outbound.withUnsafeBytes { raw in
                cemu_send(fd, raw.baseAddress.map { $0 + outboundOffset }, UInt(raw.count - outboundOffset))
            }
            if n > 0 {
                outboundOffset += n
                lastSendProgress = EventLoop.now()
            } else {
                let error = cemu_errno()
                if n < 0, error == EINTR { continue }
                if n < 0, error == EAGAIN || error == EWOULDBLOCK {
                    if !waitingForWritable {
                        waitingForWritable = true
                        updateInterest()
                    }
                    resumePacedBodyIfRoom()
                    return
                }
                close()
                return
            }
        }
        if outbound.capacity > 1 << 20 {
            outbound = []
        } else {
            outbound.removeAll(keepingCapacity: true)
        }
        outboundOffset = 0
        if waitingForWritable {
            waitingForWritable = false
            updateInterest()
        }
        resumePacedBodyIfRoom()
        if pausedForOutput {
            // Everything went out: serve the requests pipelined behind (their responses are sent
            // by the flush below, or wait for room again).
            pausedForOutput = false
            process()
            if closed { return }
            if outboundOffset < outbound.count {
                flush()
                return
            }
        }
        if closeAfterFlush, server.draining.load(ordering: .relaxed) {
            close()
        } else if closeAfterFlush, lingerDeadline == nil {
            // Half-close and drain what the peer still sends, so our last response is not lost to
            // a reset caused by unread input.
            shutdown(fd, Int32(SHUT_WR))
            lingerDeadline = EventLoop.now() + Self.lingerNanos
            updateInterest()
        }
    }

    private func beginClosing() {
        closeAfterFlush = true
        updateInterest()
    }

    private func updateInterest() {
        guard !closed else { return }
        let read = (!waitingForWritable || takeover != nil || streamWriter != nil)
            && !(pendingDeferred != nil && closeAfterFlush)
        loop.setInterest(fd, read: read || lingerDeadline != nil, write: waitingForWritable)
    }

    // MARK: - Timeouts and shutdown

    func checkTimeouts(now: Int64) {
        if closed { return }
        if let lingerDeadline {
            if now >= lingerDeadline { close() }
            return
        }
        if takeover != nil || streamWriter != nil || pendingDeferred != nil || closeAfterFlush { return }
        let configuration = server.configuration
        if connection.isReadingRequest,
            now - requestStart >= EventLoop.nanoseconds(configuration.headerReadTimeout)
        {
            HTTP1ResponseEncoder.errorResponse(.requestTimeout, into: &outbound)
            closeAfterFlush = true
            flush()
            return
        }
        if connection.isIdle, outboundOffset >= outbound.count,
            now - lastActivity >= EventLoop.nanoseconds(configuration.idleTimeout)
        {
            close()
        }
    }

    /// Graceful shutdown: idle connections close now, a request in progress gets its response with
    /// `Connection: close`, streams end (last chunk; a paced body is finished first) and take-overs
    /// close.
    func drain() {
        guard !closed else { return }
        connection.drain()
        if let streamWriter {
            // A paced body is finite: cut short, its client would take a truncated answer as whole.
            if !streamIsPaced { streamWriter.finish() }
        } else if let takeoverWriter {
            takeoverWriter.close()
        } else if connection.isIdle, outboundOffset >= outbound.count {
            close()
        } else {
            process()
            flush()
        }
    }

    /// Closes the socket now and tells whoever holds a writer.
    func close() {
        guard !closed else { return }
        closed = true
        loop.forget(fd)
        Glibc.close(fd)
        server.connectionCount.subtract(1, ordering: .relaxed)
        let stream = streamWriter
        let writer = takeoverWriter
        let handler = takeover
        let deferred = pendingDeferred
        pendingDeferred = nil
        roomWaiter = nil
        streamWriter = nil
        takeoverWriter = nil
        takeover = nil
        outbound = []
        stream?.markClosed()
        writer?.markClosed()
        handler?.closed()
        deferred?.cancel()
    }
}
