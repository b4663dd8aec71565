import Dispatch
import EmulatorSupport
import Synchronization

/// Serves one WebChannel endpoint (closure's `goog.labs.net.webchannel`, protocol version 8, as
/// the Firebase JS SDK uses it): the opening POST, back channels (`GET`, `CI=0` streaming or
/// `CI=1` long-polling), forward channels (`POST` with `SID`) and `TYPE=terminate`. Every
/// session gets a ``WebChannelStream`` from `open`; this type only frames, numbers, buffers,
/// deduplicates and expires.
///
/// Answers: the session reply `[[0,["c","<SID>","",8,12,30000]]]`; back channels carry
/// `[[id,[message]],…]` frames; a forward channel gets `[<back channel open>,<last id>,<unsent
/// bytes>]`; an unknown or expired `SID` gets 400 `Unknown SID` (the client opens a new
/// session); a body that is not a WebChannel form gets 400 with a Google API error.
///
/// ```swift
/// let channel = WebChannelServer { opening, output in MyStream(output) }
/// router.add(nil, "/google.firestore.v1.Firestore/Listen/channel", handler: CORSPolicy().wrap(channel.respond(to:)))
/// ```
package final class WebChannelServer: Sendable {
    package struct Configuration: Sendable {
        /// A session with no back channel and no request for this long is closed.
        package var idleTimeout: Duration = .seconds(300)
        /// A streaming back channel ends (with a noop) after this long; the client opens another.
        package var backChannelLifetime: Duration = .seconds(60)
        /// A streaming back channel gets a noop this often.
        package var keepAliveInterval: Duration = .seconds(30)
        /// A long poll with nothing to carry ends with a noop after this long.
        package var pollTimeout: Duration = .seconds(25)
        /// At most this many sessions; opening one more closes the least recently active.
        package var maxSessions = 20_000
        /// Server messages a client may leave unacknowledged before its session fails.
        package var maxUnacknowledgedBytes = 32 << 20
        /// A streaming back channel ends after the write that takes it past this many bytes
        /// (``WebChannelSession/maxBackChannelBytes``).
        package var maxBackChannelBytes = 128 << 10

        package init() {}
    }

    package typealias Opener = @Sendable (WebChannelOpening, WebChannelOutput) -> any WebChannelStream

    let configuration: Configuration
    private let opener: Opener
    private let gate: ReplyGate?
    private let sessions = Mutex<Table>(Table())
    private let queue = DispatchQueue(label: "emulators.webchannel")
    private let now: @Sendable () -> UInt64

    private struct Table {
        var byID: [String: WebChannelSessionBox] = [:]
        var sweepScheduled = false
    }

    /// `gate` decides when the replies of a client message may go out (the suite holds them
    /// until the writes they made are durable); `now` is the monotonic clock in nanoseconds.
    package init(
        configuration: Configuration = Configuration(), gate: ReplyGate? = nil,
        now: @escaping @Sendable () -> UInt64 = { MonotonicClock.nanoseconds() }, open: @escaping Opener
    ) {
        self.configuration = configuration
        self.opener = open
        self.gate = gate
        self.now = now
    }

    /// The number of live sessions.
    package var sessionCount: Int { sessions.withLock { $0.byID.count } }

    /// The service stream of session `sid` (tests drive it directly).
    package func stream(forSession sid: String) -> (any WebChannelStream)? {
        sessions.withLock { $0.byID[sid] }?.stream
    }

    // MARK: Requests

    /// Answers one request to the channel path.
    package func respond(to request: HTTPRequest) -> HTTPResponse {
        var response = route(request)
        response.headers.add("Access-Control-Expose-Headers", "X-Client-Wire-Protocol, X-HTTP-Session-Id, X-HTTP-Initial-Response")
        response.headers.add("Cache-Control", "no-cache, no-store, max-age=0, must-revalidate")
        response.headers.add("X-Content-Type-Options", "nosniff")
        return response
    }

    private func route(_ request: HTTPRequest) -> HTTPResponse {
        let sid = request.query("SID")
        if request.query("TYPE") == "terminate" {
            guard let sid, let box = remove(sid) else { return Self.unknownSession() }
            box.close()
            return HTTPResponse(status: .ok)
        }
        guard let sid else {
            guard request.method == .post else { return Self.badRequest("A WebChannel session opens with a POST.") }
            return open(request)
        }
        guard let box = sessions.withLock({ $0.byID[sid] }), box.touch(now()) else { return Self.unknownSession() }
        let acknowledged = request.query("AID").flatMap { Int($0) }
        switch request.method {
        case .get:
            let mode: WebChannelSession.Mode = request.query("CI") == "1" ? .polling : .streaming
            let server = self
            return HTTPResponse(
                status: .ok, headers: Self.textHeaders,
                stream: HTTPStreamBody { writer in server.attach(writer, to: box, mode: mode, acknowledged: acknowledged ?? 0) })
        case .post:
            if let acknowledged { box.acknowledge(acknowledged) }
            let form: WebChannelForm
            do { form = try WebChannelForm(parsing: request.body) } catch {
                return Self.badRequest(error.message)
            }
            do {
                try deliver(form, to: box)
            } catch {
                if let box = remove(sid) { box.close() }
                return Self.badRequest(Self.text(error))
            }
            let (open, lastID, unsent) = box.forwardReply()
            return Self.framed("[\(open ? 1 : 0),\(lastID),\(unsent)]")
        default:
            return Self.badRequest("Method \(request.method.token) is not used by WebChannel.")
        }
    }

    private func open(_ request: HTTPRequest) -> HTTPResponse {
        let form: WebChannelForm
        do { form = try WebChannelForm(parsing: request.body) } catch {
            return Self.badRequest(error.message)
        }
        guard form.offset == 0 else { return Self.badRequest("A new session starts at ofs=0, not \(form.offset).") }
        let sid = Base64.randomToken()
        let box = WebChannelSessionBox(
            id: sid, session: WebChannelSession(
                maxUnacknowledgedBytes: configuration.maxUnacknowledgedBytes, maxBackChannelBytes: configuration.maxBackChannelBytes), now: now())
        let output = WebChannelOutput({ [weak box] messages in box?.enqueue(messages) }, isBackedUp: { [weak box] in box?.isBackedUp ?? false })
        box.setStream(opener(WebChannelOpening(request: request, headers: form.headers), output))
        let evicted = sessions.withLock { table -> WebChannelSessionBox? in
            var evicted: WebChannelSessionBox?
            if table.byID.count >= configuration.maxSessions {
                let oldest = table.byID.values.min { $0.lastActive < $1.lastActive }
                if let oldest { evicted = table.byID.removeValue(forKey: oldest.id) }
            }
            table.byID[sid] = box
            return evicted
        }
        evicted?.close()
        scheduleSweep()
        do { try deliver(form, to: box) } catch {
            if let box = remove(sid) { box.close() }
            return Self.badRequest(Self.text(error))
        }
        return Self.framed(#"[[0,["c","\#(sid)","",8,12,30000]]]"#)
    }

    /// Hands the new messages of `form` to the session's stream, in order, through the gate.
    private func deliver(_ form: WebChannelForm, to box: WebChannelSessionBox) throws(WebChannelSession.Failure) {
        try box.deliver(form) { work in
            guard let gate else {
                work()
                return
            }
            box.hold()
            if let release = gate.run(work) {
                release { box.release() }
            } else {
                box.release()
            }
        }
    }

    // MARK: Back channels

    private func attach(_ writer: any HTTPStreamWriter, to box: WebChannelSessionBox, mode: WebChannelSession.Mode, acknowledged: Int) {
        guard let generation = box.attach(writer, mode: mode, acknowledged: acknowledged) else { return }
        // Close handlers may run inside a write; the detach takes the session's lock, so it hops.
        let queue = self.queue
        let clock = now
        weak let weakBox = box
        writer.onClose { queue.async { weakBox?.detach(generation, now: clock()) } }
        switch mode {
        case .streaming: scheduleTick(box, generation, started: now())
        case .polling:
            queue.asyncAfter(deadline: .now() + configuration.pollTimeout.dispatchInterval) { [weak box] in
                _ = box?.tick(generation, final: true)
            }
        }
    }

    private func scheduleTick(_ box: WebChannelSessionBox, _ generation: Int, started: UInt64) {
        let interval = min(configuration.keepAliveInterval, configuration.backChannelLifetime)
        queue.asyncAfter(deadline: .now() + interval.dispatchInterval) { [weak self, weak box] in
            guard let self, let box else { return }
            let final = self.now() &- started >= self.configuration.backChannelLifetime.nanoseconds
            if box.tick(generation, final: final), !final { self.scheduleTick(box, generation, started: started) }
        }
    }

    // MARK: Expiry

    /// Closes sessions idle past the timeout (no back channel, no request). Runs by itself every
    /// few seconds while sessions exist.
    package func sweep() {
        let now = self.now()
        let timeout = configuration.idleTimeout.nanoseconds
        let expired = sessions.withLock { table -> [WebChannelSessionBox] in
            let idle = table.byID.values.filter { $0.isIdle(now: now, timeout: timeout) }
            for box in idle { table.byID[box.id] = nil }
            return idle
        }
        for box in expired { box.close() }
    }

    /// Closes every session now, as if each had expired, and waits for the work that queued
    /// (detached back channels). Not from the server's queue.
    package func closeAll() {
        let all = sessions.withLock { table -> [WebChannelSessionBox] in
            defer { table.byID = [:] }
            return Array(table.byID.values)
        }
        for box in all { box.close() }
        queue.sync {}
    }

    private func scheduleSweep() {
        let schedule = sessions.withLock { table -> Bool in
            guard !table.sweepScheduled else { return false }
            table.sweepScheduled = true
            return true
        }
        guard schedule else { return }
        let interval = min(configuration.idleTimeout / 4, .seconds(15))
        queue.asyncAfter(deadline: .now() + interval.dispatchInterval) { [weak self] in
            guard let self else { return }
            self.sessions.withLock { $0.sweepScheduled = false }
            self.sweep()
            if self.sessionCount > 0 { self.scheduleSweep() }
        }
    }

    private func remove(_ sid: String) -> WebChannelSessionBox? {
        sessions.withLock { $0.byID.removeValue(forKey: sid) }
    }

    // MARK: Encoding

    private static let textHeaders = HTTPHeaders([("Content-Type", "text/plain; charset=utf-8")])

    private static func framed(_ json: String) -> HTTPResponse {
        HTTPResponse(status: .ok, headers: textHeaders, body: WebChannelFrame.frame(Array(json.utf8)))
    }

    /// 400 saying `Unknown SID`: closure looks for those words in a 400 to report an unknown
    /// session (rather than a failed request); either way the SDK opens a new session.
    private static func unknownSession() -> HTTPResponse {
        HTTPResponse(status: .badRequest, headers: textHeaders, body: Array("Unknown SID".utf8))
    }

    private static func badRequest(_ message: String) -> HTTPResponse {
        var w = JSONWriter()
        w.beginObject()
        w.appendKey("error")
        w.beginObject()
        w.appendKey("code")
        w.appendInt(400)
        w.appendKey("message")
        w.appendString(message)
        w.appendKey("status")
        w.appendString("INVALID_ARGUMENT")
        w.endObject()
        w.endObject()
        return HTTPResponse.json(w.bytes, status: .badRequest)
    }

    private static func text(_ failure: WebChannelSession.Failure) -> String {
        switch failure {
        case .gap(let expected, let got): "ofs=\(got) skips client messages: the session expects ofs=\(expected)."
        case .overflow(let bytes): "The session holds \(bytes) unacknowledged bytes, more than allowed."
        }
    }
}

extension Duration {
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) &* 1_000_000_000 &+ UInt64(max(0, attoseconds / 1_000_000_000))
    }

    var dispatchInterval: DispatchTimeInterval { .nanoseconds(Int(clamping: nanoseconds)) }
}
