import Dispatch
package import EmulatorHTTP
import EmulatorSupport
import Synchronization

/// Serves gRPC on one HTTP/2 connection: drives ``HTTP2Connection`` with the bytes the transport
/// hands over and dispatches calls to a ``GRPCRouter``. Handlers run on the transport's thread,
/// never while the connection's lock is held, so they may write to their call from anywhere.
///
/// With a ``ReplyGate``, each unary call and each message or half-close of a bidirectional call
/// runs through the gate; when it holds the reply, that stream's output (and everything written
/// to the stream after it) waits until the gate releases it, while other streams go on.
///
/// ```swift
/// configuration.http2Handler = GRPCServerConnection.factory(router: router)
/// ```
package final class GRPCServerConnection: UpgradedConnectionHandler {
    /// One call's state. A class, so that looking a call up under the lock costs one reference
    /// rather than a copy of every field (a dozen retains and releases, several times per call).
    /// Not Sendable: it lives in ``State`` and is touched only under the connection's lock.
    final class Call {
        let context: GRPCCallContext
        let method: GRPCMethod
        var deframer = GRPCMessageDeframer()
        var requests: [[UInt8]] = []
        var headersSent = false
        var streaming: (any GRPCStreamingCall)?
        /// Request messages or a half-close that arrived before the streaming call object existed.
        var started = false
        /// Output waiting behind a held reply, in order (see `gated(_:_:)` and `release(_:_:)`).
        var pending: [Pending] = []
        /// Run if the call is reset or the connection closes before it finished.
        var cancelHandlers: [@Sendable () -> Void] = []

        var isBidirectional: Bool {
            if case .bidirectional = method { return true }
            return false
        }
        /// A paced call's producer (see ``GRPCPacedWriter``), and whether a thread is running it.
        var producer: (@Sendable () -> GRPCProducerStep)?
        var producing = false
        /// Run once when the call's backlog falls to ``GRPCServerConnection/caughtUpBytes`` (see
        /// ``GRPCBacklogWriter``).
        var caughtUp: (@Sendable () -> Void)?

        init(context: GRPCCallContext, method: GRPCMethod) {
            self.context = context
            self.method = method
        }
    }

    /// An entry of a stream's output queue.
    enum Pending {
        /// A gate hold not yet released: nothing after it goes out.
        case hold(UInt64)
        /// Messages, or (`framed`) runs of messages already framed for the wire.
        case output(messages: [[UInt8]], framed: Bool, status: GRPCStatus?)
    }

    struct State {
        var connection = HTTP2Connection()
        var calls: [UInt32: Call] = [:]
        var closed = false
        /// Bytes produced under the lock, written in one piece when the lock is released.
        var outbound: [UInt8] = []
        var nextHold: UInt64 = 0
        /// Unary and server-streaming calls whose requests are complete, waiting to run (in
        /// arrival order) until the responses already queued fit the peer's windows.
        var waiting = FIFOQueue<@Sendable () -> Void>()

        /// Whether the responses queued behind the peer's windows leave room for more: at most
        /// ``GRPCServerConnection/maxQueuedBytesBeforeNextCall``, bidirectional calls' backlogs
        /// aside (they have their own bound).
        var responsesFit: Bool {
            connection.queuedBytes { calls[$0]?.isBidirectional != true } <= GRPCServerConnection.maxQueuedBytesBeforeNextCall
        }
        /// Streams with a producer that stopped for want of window room.
        var paced: Set<UInt32> = []
        /// Streams waiting for their backlog to fall (a ``Call/caughtUp`` handler is set).
        var behind: Set<UInt32> = []
        /// Set while the connection's thread handles received bytes: what the calls answer then
        /// (unary calls run right there) is written in runs of
        /// ``GRPCServerConnection/maxDeferredCalls`` calls (or ``GRPCServerConnection/maxDeferredBytes``),
        /// so 32 calls cost four `send`s, not 32.
        var deferringWrites = false
        /// Calls ended since the last write while writes are deferred.
        var deferredCalls = 0
        /// The header list of the last call opened, its request head and its method: a stream
        /// that opens with an equal list (the decoder hands back the very same array for a
        /// repeated header block, so the comparison is one identity check) is neither validated
        /// nor routed again.
        var lastOpened: (fields: [HeaderField], head: GRPCRequestHead, method: GRPCMethod)?
        /// How many calls opened through ``lastOpened`` (for tests).
        var reopenedHeads = 0
        /// How many answers went out whole through `writeWholeAnswer` (for tests).
        var wholeAnswers = 0
    }

    /// Output held while received bytes are handled before it is written anyway.
    static let maxDeferredBytes = 64 << 10
    /// Calls answered while received bytes are handled before their answers are written anyway.
    /// One write for everything one read brought makes client and server take turns: a client
    /// that sent 32 calls at once gets 32 answers at once and sends the next 32 at once, and the
    /// server idles while it does (a quarter of the time in the GetDocument benchmark). Written
    /// in runs of 8, the client makes the next calls while the server still answers the rest.
    static let maxDeferredCalls = 8

    /// Response bytes the connection may hold beyond what the peer's windows let out before
    /// further calls wait: a client that sends many calls and reads nothing cannot make the server
    /// produce every response (900 unread `GetDocument`s of 1 MiB each held 900 MiB before).
    package static let maxQueuedBytesBeforeNextCall = 4 << 20

    /// Response bytes one bidirectional call (Listen, Write) may hold behind its stream's window.
    /// Those calls live long and their clients read at their own pace, so their backlog does not
    /// hold up other calls; past this bound the stream is reset with ENHANCE_YOUR_CALM (gRPC
    /// clients see RESOURCE_EXHAUSTED, which the SDKs' Listen and Write streams retry).
    package static let maxStreamingBacklogBytes = 32 << 20
    /// Bytes one paced call may have queued behind the windows before its producer pauses.
    package static let maxQueuedBytesPerPacedCall = 256 << 10
    /// A call with more than this queued behind its windows is behind (``GRPCBacklogWriter``).
    package static let behindBytes = 1 << 20
    /// A call that was behind has caught up once its backlog is down to this.
    package static let caughtUpBytes = 256 << 10

    private let router: GRPCRouter
    let output: any UpgradedConnectionWriter
    let gate: ReplyGate?
    let state = Mutex(State())

    /// Serves `router` on the connection `output` writes to; `gate`, when set, decides for each
    /// handler call whether its reply goes out now or later.
    package init(router: GRPCRouter, output: any UpgradedConnectionWriter, gate: ReplyGate? = nil) {
        self.router = router
        self.output = output
        self.gate = gate
    }

    /// The transport hook: one ``GRPCServerConnection`` per HTTP/2 connection.
    package static func factory(router: GRPCRouter, gate: ReplyGate? = nil) -> HTTP2ConnectionHandlerFactory {
        { writer in GRPCServerConnection(router: router, output: writer, gate: gate) }
    }

    package func received(_ bytes: [UInt8]) {
        var work: [@Sendable () -> Void] = []
        locked { s in
            guard !s.closed else { return }
            s.deferringWrites = true
            let actions = s.connection.receive(bytes)
            perform(actions, &s, &work)
        }
        for w in work { w() }
        runWaitingCalls()
        resumeProducers()
        runCaughtUp()
        locked { s in s.deferringWrites = false }
    }

    /// Whether more than ``behindBytes`` of `stream`'s responses wait behind the windows.
    func isBehind(_ stream: UInt32) -> Bool {
        state.withLock { s in !s.closed && s.connection.queuedBytes(stream: stream) > Self.behindBytes }
    }

    /// Runs `handler` once `stream`'s backlog is down to ``caughtUpBytes`` (now, if it is),
    /// replacing a handler set before; a call that ends drops it.
    func whenCaughtUp(_ stream: UInt32, _ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            guard !s.closed, s.calls[stream] != nil else { return false }
            if s.connection.queuedBytes(stream: stream) <= Self.caughtUpBytes { return true }
            s.calls[stream]?.caughtUp = handler
            s.behind.insert(stream)
            return false
        }
        if now { handler() }
    }

    /// Runs the handlers of the calls that caught up, now that WINDOW_UPDATEs may have let their
    /// bytes out (outside the lock: they may send).
    private func runCaughtUp() {
        let handlers = state.withLock { s -> [@Sendable () -> Void] in
            guard !s.behind.isEmpty else { return [] }
            var ready: [@Sendable () -> Void] = []
            for stream in s.behind {
                guard let call = s.calls[stream], let handler = call.caughtUp else {
                    s.behind.remove(stream)
                    continue
                }
                guard s.connection.queuedBytes(stream: stream) <= Self.caughtUpBytes else { continue }
                s.calls[stream]?.caughtUp = nil
                s.behind.remove(stream)
                ready.append(handler)
            }
            return ready
        }
        for h in handlers { h() }
    }

    /// Runs the producers that paused, now that WINDOW_UPDATEs may have made room.
    private func resumeProducers() {
        let streams = state.withLock { s -> [UInt32] in
            guard !s.paced.isEmpty else { return [] }
            s.paced = s.paced.filter { s.calls[$0]?.producer != nil }
            return Array(s.paced)
        }
        for stream in streams { pump(stream) }
    }

    /// Whether `stream`'s paced call may produce more now: its queued bytes and the connection's
    /// (bidirectional calls' backlogs aside, as for the call gate) are under their bounds (lock held).
    private func hasRoom(_ stream: UInt32, _ s: State) -> Bool {
        s.connection.queuedBytes(stream: stream) < Self.maxQueuedBytesPerPacedCall && s.responsesFit
    }

    /// Installs `producer` on `stream` and runs it while there is room.
    func produce(_ stream: UInt32, _ producer: @escaping @Sendable () -> GRPCProducerStep) {
        let installed = state.withLock { s -> Bool in
            guard !s.closed, s.calls[stream] != nil else { return false }
            s.calls[stream]?.producer = producer
            return true
        }
        if installed { pump(stream) }
    }

    /// Asks `stream`'s producer for batches while there is room; when there is none, files the
    /// stream to be resumed by the next WINDOW_UPDATE. One thread pumps a stream at a time.
    func pump(_ stream: UInt32) {
        let claimed = state.withLock { s -> (@Sendable () -> GRPCProducerStep)? in
            guard !s.closed, let call = s.calls[stream], let producer = call.producer, !call.producing else { return nil }
            s.calls[stream]?.producing = true
            s.paced.remove(stream)
            return producer
        }
        guard let producer = claimed else { return }
        while true {
            let room = state.withLock { s -> Bool in
                guard !s.closed, s.calls[stream] != nil else { return false }
                if hasRoom(stream, s) { return true }
                s.calls[stream]?.producing = false
                s.paced.insert(stream)
                return false
            }
            guard room else { return }
            switch producer() {
            case .more(let messages):
                if !respond(stream, messages, status: nil) { return }
            case .end(let messages, let status):
                _ = respond(stream, messages, status: status)
                return
            }
        }
    }

    /// Runs waiting calls one at a time while what is queued fits the bound; the rest wait for
    /// the peer's WINDOW_UPDATEs (which arrive through `received`).
    private func runWaitingCalls() {
        while true {
            let next = state.withLock { s -> (@Sendable () -> Void)? in
                guard !s.closed, !s.waiting.isEmpty, s.responsesFit else { return nil }
                return s.waiting.popFirst()
            }
            guard let next else { return }
            next()
        }
    }

    package func closed() {
        let (calls, handlers) = state.withLock { s in
            s.closed = true
            let calls = s.calls.values.compactMap(\.streaming)
            let handlers = s.calls.values.flatMap(\.cancelHandlers)
            s.calls.removeAll()
            s.waiting.removeAll()
            return (calls, handlers)
        }
        for c in calls { c.cancelled() }
        for h in handlers { h() }
    }

    /// Registers `handler` to run if `stream`'s call is reset or the connection closes first.
    func onCancel(_ stream: UInt32, _ handler: @escaping @Sendable () -> Void) {
        let registered = state.withLock { s -> Bool in
            guard !s.closed, s.calls[stream] != nil else { return false }
            s.calls[stream]?.cancelHandlers.append(handler)
            return true
        }
        if !registered { handler() }
    }

    /// Runs `body` under the lock, then writes what it produced as one piece (still under the
    /// lock, so frames from different threads never interleave out of order).
    func locked<R>(_ body: (inout State) -> R) -> R {
        state.withLock { s in
            let r = body(&s)
            flush(&s)
            return r
        }
    }

    private func flush(_ s: inout State) {
        guard !s.outbound.isEmpty,
            !s.deferringWrites || s.outbound.count >= Self.maxDeferredBytes || s.deferredCalls >= Self.maxDeferredCalls
        else { return }
        s.deferredCalls = 0
        output.write(s.outbound)
        s.outbound.removeAll(keepingCapacity: true)
    }

    // MARK: Dispatch (lock held)

    func perform(_ actions: [HTTP2Connection.Action], _ s: inout State, _ work: inout [@Sendable () -> Void]) {
        for action in actions {
            switch action {
            case .write(let bytes):
                s.outbound += bytes
            case .close:
                s.closed = true
                s.deferringWrites = false
                flush(&s)
                output.close()
                for call in s.calls.values {
                    if let streaming = call.streaming { work.append { streaming.cancelled() } }
                    work += call.cancelHandlers
                }
                s.calls.removeAll()
            case .headers(let stream, let fields, let endStream):
                if let call = s.calls[stream] {
                    if endStream { endOfRequests(stream, call, &s, &work) }
                } else {
                    open(stream, fields, endStream: endStream, &s, &work)
                }
            case .data(let stream, let payload, let endStream):
                // The call is a class: found once, its deframer and requests changed in place.
                guard let call = s.calls[stream] else { continue }
                call.deframer.append(payload)
                var open = true
                while true {
                    let message: [UInt8]?
                    do { message = try call.deframer.next() } catch {
                        fail(stream, error, &s)
                        open = false
                        break
                    }
                    guard let message else { break }
                    deliver(stream, call, message, &s, &work)
                }
                if endStream, open { endOfRequests(stream, call, &s, &work) }
            case .reset(let stream, _):
                if let call = s.calls.removeValue(forKey: stream) {
                    if let streaming = call.streaming { work.append { streaming.cancelled() } }
                    work += call.cancelHandlers
                }
            }
        }
    }

    private func open(_ stream: UInt32, _ fields: [HeaderField], endStream: Bool, _ s: inout State, _ work: inout [@Sendable () -> Void]) {
        if let last = s.lastOpened, last.fields == fields {
            s.reopenedHeads &+= 1
            open(stream, last.head, last.method, endStream: endStream, &s, &work)
            return
        }
        let head: GRPCRequestHead
        do { head = try GRPCRequestHead(fields) } catch {
            var response = [HeaderField(":status", error.status)]
            if let status = error.grpc {
                response.append(HeaderField("content-type", "application/grpc"))
                response += status.trailers
            }
            perform(s.connection.sendHeaders(stream: stream, response, endStream: true), &s, &work)
            return
        }
        guard let method = router.method(for: head.path) else {
            let status = GRPCStatus(GRPCStatus.Code.unimplemented, "Method not found: \(head.path.dropFirst())")
            perform(s.connection.sendHeaders(stream: stream, Self.trailersOnly(status), endStream: true), &s, &work)
            return
        }
        s.lastOpened = (fields, head, method)
        open(stream, head, method, endStream: endStream, &s, &work)
    }

    private func open(
        _ stream: UInt32, _ head: GRPCRequestHead, _ method: GRPCMethod, endStream: Bool, _ s: inout State,
        _ work: inout [@Sendable () -> Void]
    ) {
        let context = GRPCCallContext(path: head.path, metadata: head.metadata, timeoutNanoseconds: head.timeoutNanoseconds)
        let call = Call(context: context, method: method)
        s.calls[stream] = call
        if case .bidirectional(let make) = method {
            let writer = CallWriter(connection: self, stream: stream)
            work.append { [self] in
                let call = make(context, writer)
                let keep = state.withLock { s -> Bool in
                    guard s.calls[stream] != nil else { return false }
                    s.calls[stream]?.streaming = call
                    return true
                }
                if !keep { call.cancelled() }
            }
        }
        if endStream { endOfRequests(stream, call, &s, &work) }
    }

    /// Hands `message` to `call`, the open call of `stream`.
    private func deliver(_ stream: UInt32, _ call: Call, _ message: [UInt8], _ s: inout State, _ work: inout [@Sendable () -> Void]) {
        if case .bidirectional = call.method {
            work.append { [self] in
                guard let streaming = state.withLock({ $0.calls[stream]?.streaming }) else { return }
                gated(stream) { streaming.received(message) }
            }
        } else {
            call.requests.append(message)
        }
    }

    /// The client half-closed `call`, the open call of `stream`.
    private func endOfRequests(_ stream: UInt32, _ call: Call, _ s: inout State, _ work: inout [@Sendable () -> Void]) {
        if call.deframer.hasPartialMessage {
            fail(stream, GRPCStatus(GRPCStatus.Code.internal, "Incomplete message at the end of the request stream"), &s)
            return
        }
        let writer = CallWriter(connection: self, stream: stream)
        switch call.method {
        case .bidirectional:
            work.append { [self] in
                guard let streaming = state.withLock({ $0.calls[stream]?.streaming }) else { return }
                gated(stream) { streaming.halfClosed() }
            }
        case .unary(let handler):
            guard call.requests.count == 1, let request = call.requests.first else {
                fail(stream, Self.requestCountStatus(call.requests.count), &s)
                return
            }
            let context = call.context
            s.waiting.append { [self] in
                gated(stream) {
                    switch handler(context, request) {
                    case .success(let response):
                        writer.respond(response)
                    case .failure(let status):
                        writer.finish(status)
                    }
                }
            }
        case .serverStreaming(let handler):
            guard call.requests.count == 1, let request = call.requests.first else {
                fail(stream, Self.requestCountStatus(call.requests.count), &s)
                return
            }
            let context = call.context
            let batching = BatchingWriter(connection: self, stream: stream)
            s.waiting.append { batching.finish(handler(context, request, batching)) }
        case .unaryLater(let handler):
            guard call.requests.count == 1, let request = call.requests.first else {
                fail(stream, Self.requestCountStatus(call.requests.count), &s)
                return
            }
            let context = call.context
            s.waiting.append { [self] in gated(stream) { handler(context, request, writer) } }
        case .serverStreamingLater(let handler):
            guard call.requests.count == 1, let request = call.requests.first else {
                fail(stream, Self.requestCountStatus(call.requests.count), &s)
                return
            }
            let context = call.context
            let batching = BatchingWriter(connection: self, stream: stream)
            s.waiting.append { handler(context, request, batching) }
        }
    }

    static func requestCountStatus(_ n: Int) -> GRPCStatus {
        n == 0
            ? GRPCStatus(GRPCStatus.Code.internal, "Half-closed without a request")
            : GRPCStatus(GRPCStatus.Code.internal, "Too many requests")
    }

    /// Ends the call with `status` and stops the client sending.
    private func fail(_ stream: UInt32, _ status: GRPCStatus, _ s: inout State) {
        var ignored: [@Sendable () -> Void] = []
        finish(stream, status, &s, &ignored)
    }

    static func trailersOnly(_ status: GRPCStatus) -> [HeaderField] {
        [HeaderField(":status", "200"), HeaderField("content-type", "application/grpc")] + status.trailers
    }

    static let responseHeaders = [HeaderField(":status", "200"), HeaderField("content-type", "application/grpc")]
    /// ``responseHeaders`` and the OK trailers as header blocks, encoded once: the connection's
    /// encoder never indexes, so a block is the same on every stream.
    static let responseHeaderBlock = encodedOnce(responseHeaders)
    static let okTrailerBlock = encodedOnce(GRPCStatus.ok.trailers)

    private static func encodedOnce(_ fields: [HeaderField]) -> [UInt8] {
        var encoder = HPACKEncoder()
        return encoder.encode(fields)
    }

    // MARK: Writing (from CallWriter)

    func send(_ stream: UInt32, _ message: [UInt8]) -> Bool {
        respond(stream, [message], status: nil)
    }

    func finish(_ stream: UInt32, _ status: GRPCStatus) {
        _ = respond(stream, [], status: status)
    }

    func finish(_ stream: UInt32, _ status: GRPCStatus, _ s: inout State, _ work: inout [@Sendable () -> Void]) {
        guard !s.closed, let call = s.calls.removeValue(forKey: stream) else { return }
        if s.deferringWrites { s.deferredCalls += 1 }
        if call.headersSent {
            let actions = status == .ok
                ? s.connection.sendTrailers(stream: stream, block: Self.okTrailerBlock)
                : s.connection.sendTrailers(stream: stream, status.trailers)
            perform(actions, &s, &work)
        } else {
            perform(s.connection.sendHeaders(stream: stream, Self.trailersOnly(status), endStream: true), &s, &work)
        }
    }

    /// A unary call's one message and OK trailers: written whole when nothing is held or queued
    /// (see `writeWholeAnswer`), else as ``respond(_:_:framed:status:)`` writes them.
    func respondOK(_ stream: UInt32, _ message: [UInt8]) {
        let written = locked { s -> Bool in
            guard !s.closed, let call = s.calls[stream] else { return true }  // gone: nothing to write
            guard call.pending.isEmpty, !call.headersSent, !call.isBidirectional else { return false }
            return writeWholeAnswer(stream, message, &s)
        }
        if !written { _ = respond(stream, [message], status: .ok) }
    }

    /// Messages, then trailers when `status` is set, written together (or queued behind a held
    /// reply of the stream).
    func respond(_ stream: UInt32, _ messages: [[UInt8]], framed: Bool = false, status: GRPCStatus?) -> Bool {
        var work: [@Sendable () -> Void] = []
        let open = locked { s -> Bool in
            guard !s.closed, let call = s.calls[stream] else { return false }
            if !call.pending.isEmpty {
                s.calls[stream]?.pending.append(.output(messages: messages, framed: framed, status: status))
                return true
            }
            emit(stream, messages, framed: framed, status: status, &s, &work)
            return true
        }
        for w in work { w() }
        return open
    }

    /// Writes messages, then trailers when `status` is set (lock held, nothing queued ahead).
    func emit(
        _ stream: UInt32, _ messages: [[UInt8]], framed: Bool = false, status: GRPCStatus?, _ s: inout State,
        _ work: inout [@Sendable () -> Void]
    ) {
        guard !s.closed, let call = s.calls[stream] else { return }
        if !call.headersSent, messages.count == 1, !framed, status == .ok, !call.isBidirectional,
            writeWholeAnswer(stream, messages[0], &s)
        {
            return
        }
        if !messages.isEmpty {
            if !call.headersSent {
                s.calls[stream]?.headersSent = true
                perform(s.connection.sendHeaders(stream: stream, block: Self.responseHeaderBlock), &s, &work)
            }
            var data: [UInt8]
            if framed, messages.count == 1 {
                data = messages[0]
            } else {
                var size = 0
                for m in messages { size += m.count + (framed ? 0 : 5) }
                data = []
                data.reserveCapacity(size)
                for m in messages {
                    if framed { data += m } else { GRPCMessageDeframer.appendFrame(m, to: &data) }
                }
            }
            perform(s.connection.sendData(stream: stream, data), &s, &work)
            if call.isBidirectional, s.connection.queuedBytes(stream: stream) > Self.maxStreamingBacklogBytes {
                var cancellation: [@Sendable () -> Void] = []
                perform(s.connection.resetStream(stream, .enhanceYourCalm), &s, &cancellation)
                // The sender may hold its own lock while it sends (a Listen stream sends as it
                // refreshes, and its cancellation takes that lock): the call hears of the reset
                // later, on another thread, never inside this send.
                if !cancellation.isEmpty {
                    let handlers = cancellation
                    DispatchQueue.global().async { for c in handlers { c() } }
                }
                return
            }
        }
        if let status { finish(stream, status, &s, &work) }
    }

    /// A unary answer (headers, one message, OK trailers) written in one piece when the windows
    /// take it whole, without queueing it on the stream: the same frames as headers, message and
    /// ``finish(_:_:_:_:)``. False, with nothing written, when it must go the general way.
    private func writeWholeAnswer(_ stream: UInt32, _ message: [UInt8], _ s: inout State) -> Bool {
        let written = s.connection.writeWholeAnswer(
            stream: stream, headerBlock: Self.responseHeaderBlock, dataCount: message.count + 5,
            trailerBlock: Self.okTrailerBlock, into: &s.outbound
        ) { out in GRPCMessageDeframer.appendFrame(message, to: &out) }
        guard written else { return false }
        s.calls.removeValue(forKey: stream)
        if s.deferringWrites { s.deferredCalls += 1 }
        s.wholeAnswers &+= 1
        return true
    }

    func isOpen(_ stream: UInt32) -> Bool {
        state.withLock { !$0.closed && $0.calls[stream] != nil }
    }
}
