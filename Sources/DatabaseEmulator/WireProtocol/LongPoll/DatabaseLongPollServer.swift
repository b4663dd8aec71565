import Dispatch
import EmulatorHTTP
import EmulatorSupport
import Synchronization

/// How long-poll connections are kept.
package struct DatabaseLongPollConfiguration: Sendable {
    /// A held poll is answered (empty) after this long; the SDK replaces an unanswered poll after
    /// 25 seconds, so answering first keeps one poll per client.
    package var pollTimeout: Duration = .seconds(20)
    /// A connection with no held poll and no request for this long has gone: it ends and its
    /// onDisconnect operations run. The SDK always keeps a poll open or sends the next one.
    package var idleTimeout: Duration = .seconds(30)
    /// A connection whose held poll was dropped by the peer, with no request since, ends after
    /// this long.
    package var lostPollGrace: Duration = .seconds(5)
    /// How often held polls and idle connections are checked while there are connections.
    package var sweepInterval: Duration = .seconds(1)
    /// At most this many connections; opening one more ends the least recently active.
    package var maxConnections = 20_000
    /// Server messages waiting for a poll; past this the connection ends.
    package var maxQueuedBytes = 32 * 1024 * 1024
    /// Bounds on client segments waiting to be reassembled.
    var segmentLimits = DatabaseLongPollAssembler.Limits()

    package init() {}
}

/// The long-poll connections of one emulator (`/.lp`): starts them, routes polls by id and
/// password, holds polls, expires connections that went away and hands connections to a
/// WebSocket on the SDK's upgrade. Each connection is a ``DatabaseLongPollSession`` around the
/// same ``DatabaseWireSession`` the WebSocket endpoint uses.
///
/// Answers: JavaScript the SDK runs in its script iframe (see ``DatabaseLongPollScript``); the
/// disconnect iframe gets a small HTML page. A poll for an unknown or expired connection, or with
/// the wrong password, gets 404 (the script fails to load; the SDK closes the connection and
/// starts a new one); a request that is not a long poll gets 400; segments that cannot be
/// reassembled end the connection with an error message the SDK logs, then a close.
final class DatabaseLongPollServer: Sendable {
    /// Makes the wire session of a new connection, answering through `output`.
    typealias Opener = (_ output: @escaping @Sendable ([UInt8]) -> Void) throws(DatabaseFailure) -> DatabaseWireSession

    let configuration: DatabaseLongPollConfiguration
    private let registry: DatabaseWireRegistry
    private let now: @Sendable () -> Int64
    private let table = Mutex(Table())
    /// Where the sweep runs (tests hold it busy to show that nothing else waits for it).
    let queue = DispatchQueue(label: "emulators.database.long-poll")

    private struct Table {
        var byID: [String: DatabaseLongPollSession] = [:]
        /// By the wire session's id (the hello's `s`, which the upgrade's WebSocket names).
        var byWireID: [String: DatabaseLongPollSession] = [:]
        var sweepScheduled = false
    }

    /// `registry` is the emulator's set of wire sessions (rules changes reach them there); `now`
    /// is a monotonic clock in nanoseconds.
    init(configuration: DatabaseLongPollConfiguration, registry: DatabaseWireRegistry, now: @escaping @Sendable () -> Int64) {
        self.configuration = configuration
        self.registry = registry
        self.now = now
    }

    /// Open long-poll connections (an upgraded one counts until its long-poll side is done).
    var count: Int { table.withLock { $0.byID.count } }

    /// Connections whose held poll was dropped by the peer, with no request since.
    var lostCount: Int {
        table.withLock { Array($0.byID.values) }.filter { $0.outbox.liveness().lostAt != nil }.count
    }

    // MARK: Requests

    /// Answers one request to `/.lp`; `open` makes the wire session of a `start`.
    func respond(to request: HTTPRequest, open: Opener) -> HTTPResponse {
        guard request.method == .get || request.method == .post || request.method == .head else {
            return Self.script(status: .methodNotAllowed, "/* Long polls are GET requests. */")
        }
        let parsed: DatabaseLongPollRequest
        do { parsed = try DatabaseLongPollRequest.parse(request.queryItems) } catch {
            return Self.script(status: .badRequest, "/* \(error.message) */")
        }
        switch parsed {
        case .start(let callback): return start(callback: callback, open: open)
        case .poll(let id, let password, let segments):
            guard let session = lookup(id, password) else { return Self.unknown() }
            return poll(session, segments)
        case .disconnectFrame(let id, let password):
            guard let session = lookup(id, password) else { return Self.html(status: .notFound, []) }
            return Self.html(status: .ok, DatabaseLongPollScript.disconnectFrame(id: session.id, password: session.password))
        case .disconnect(let id, let password):
            if let session = lookup(id, password) { end(session) }
            return Self.script(status: .ok, "")
        }
    }

    private func start(callback: String, open: Opener) -> HTTPResponse {
        let id = Base64.randomToken()
        let password = Base64.randomToken()
        let outbox = DatabaseLongPollOutbox(callback: callback, maxQueuedBytes: configuration.maxQueuedBytes, now: now())
        let wire: DatabaseWireSession
        do { wire = try open { message in outbox.deliver(message) } } catch {
            // The SDK logs the error, closes and tries again later.
            outbox.close(error: error.message)
            var body = DatabaseLongPollScript.start(callback: callback, id: id, password: password)
            body.append(contentsOf: outbox.answer(now: now()) ?? [])
            return Self.script(status: .ok, body)
        }
        let session = DatabaseLongPollSession(
            id: id, password: password, outbox: outbox, limits: configuration.segmentLimits, wire: wire)
        let evicted = table.withLock { t -> DatabaseLongPollSession? in
            var evicted: DatabaseLongPollSession?
            if t.byID.count >= configuration.maxConnections {
                let oldest = t.byID.values.map { ($0, $0.outbox.liveness().lastActive) }.min { $0.1 < $1.1 }
                if let (oldest, _) = oldest { evicted = remove(oldest, from: &t) }
            }
            t.byID[id] = session
            t.byWireID[wire.sessionID] = session
            return evicted
        }
        if let evicted { finish(evicted) }
        registry.add(wire)
        wire.start()  // the hello, packet 0
        var body = DatabaseLongPollScript.start(callback: callback, id: id, password: password)
        body.append(contentsOf: outbox.answer(now: now()) ?? [])
        scheduleSweep()
        return Self.script(status: .ok, body)
    }

    private func poll(_ session: DatabaseLongPollSession, _ segments: [DatabaseLongPollSegment]) -> HTTPResponse {
        let outbox = session.outbox
        outbox.releaseHeld()  // the client sent another poll: the older one ends
        let healthy = session.receive(segments)
        if let body = outbox.answer(now: now()) {
            if !healthy || outbox.closeState.finished { settle(session) }
            return Self.script(status: .ok, body)
        }
        let server = self
        return HTTPResponse(
            status: .ok, headers: Self.scriptHeaders,
            stream: HTTPStreamBody { writer in server.hold(writer, for: session) })
    }

    private func hold(_ writer: any HTTPStreamWriter, for session: DatabaseLongPollSession) {
        guard let generation = session.outbox.hold(writer, now: now()) else {
            if session.outbox.closeState.finished { settle(session) }
            return
        }
        // Close handlers may run inside a write made under the outbox's lock: the loss is only
        // noted (`LostPolls`, its own leaf lock) and the outbox applies it under its lock. The
        // handler holds the note, not the outbox, which holds the writer while the poll is held.
        let lost = session.outbox.lostPolls
        let clock = now
        writer.onClose { lost.note(generation, at: clock()) }
    }

    // MARK: Upgrade

    /// The connection whose wire session is `wireID`, if it is still on long-polling and no
    /// upgrade is under way.
    func upgradeCandidate(wireID: String) -> DatabaseLongPollSession? {
        guard let session = table.withLock({ $0.byWireID[wireID] }), !session.outbox.closeState.closing else { return nil }
        return session
    }

    /// The upgrade's socket closed: the wire session ends when it had moved there.
    func socketClosed(_ socket: DatabaseLongPollUpgradeSocket, of session: DatabaseLongPollSession) {
        guard session.socketClosed(socket) else { return }
        registry.remove(session.wire)
        session.wire.closed()
        _ = table.withLock { remove(session, from: &$0) }
    }

    // MARK: Ending

    /// Ends `session` now: a close to a held poll, onDisconnect operations run (unless the wire
    /// session moved to a WebSocket, which now owns it).
    func end(_ session: DatabaseLongPollSession) {
        _ = table.withLock { remove(session, from: &$0) }
        finish(session)
    }

    /// Ends every connection now, as `end` does.
    func endAll() {
        let sessions = table.withLock { Array($0.byID.values) }
        for session in sessions { end(session) }
    }

    /// Ends the connections past their time and answers polls held too long. Runs by itself every
    /// `sweepInterval` while there are connections.
    func sweep() {
        let now = self.now()
        let idle = configuration.idleTimeout.nanos
        let grace = configuration.lostPollGrace.nanos
        let cutoff = now &- configuration.pollTimeout.nanos
        let sessions = table.withLock { Array($0.byID.values) }
        var gone: [DatabaseLongPollSession] = []
        for session in sessions {
            let outbox = session.outbox
            outbox.releaseHeld(heldBefore: cutoff)
            let (closing, finished) = outbox.closeState
            let (lastActive, lostAt, holding) = outbox.liveness()
            if finished || (closing && !outbox.isUpgraded && now &- lastActive > grace) {
                gone.append(session)
            } else if !holding, now &- lastActive > idle || (lostAt.map { now &- $0 > grace } ?? false) {
                gone.append(session)
            }
        }
        for session in gone { end(session) }
    }

    private func settle(_ session: DatabaseLongPollSession) {
        if session.outbox.isUpgraded {
            _ = table.withLock { remove(session, from: &$0) }
        } else {
            end(session)
        }
    }

    /// Closes the long-poll side and, unless it moved to a WebSocket, the wire session.
    private func finish(_ session: DatabaseLongPollSession) {
        session.outbox.close()
        session.end()?.close()
        guard !session.isSwitched else { return }
        registry.remove(session.wire)
        session.wire.closed()
    }

    private func remove(_ session: DatabaseLongPollSession, from t: inout Table) -> DatabaseLongPollSession? {
        guard t.byID[session.id] === session else { return nil }
        t.byID[session.id] = nil
        if t.byWireID[session.wire.sessionID] === session { t.byWireID[session.wire.sessionID] = nil }
        return session
    }

    private func lookup(_ id: String, _ password: String) -> DatabaseLongPollSession? {
        guard let session = table.withLock({ $0.byID[id] }), session.password == password else { return nil }
        return session
    }

    private func scheduleSweep() {
        let schedule = table.withLock { t -> Bool in
            guard !t.sweepScheduled else { return false }
            t.sweepScheduled = true
            return true
        }
        guard schedule else { return }
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: configuration.sweepInterval.nanos))) { [weak self] in
            guard let self else { return }
            self.table.withLock { $0.sweepScheduled = false }
            self.sweep()
            if self.count > 0 { self.scheduleSweep() }
        }
    }

    // MARK: Answers

    static let scriptHeaders = HTTPHeaders([
        ("Content-Type", "application/javascript; charset=utf-8"), ("Cache-Control", "no-cache, no-store"),
        ("X-Content-Type-Options", "nosniff"),
    ])

    private static func script(status: HTTPStatus, _ text: String) -> HTTPResponse {
        script(status: status, Array(text.utf8))
    }

    private static func script(status: HTTPStatus, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: scriptHeaders, body: body)
    }

    private static func html(status: HTTPStatus, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: HTTPHeaders([("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-cache, no-store")]),
            body: body)
    }

    private static func unknown() -> HTTPResponse {
        script(status: .notFound, "/* Unknown or expired long-poll connection. */")
    }
}

extension Duration {
    /// Whole nanoseconds (negative durations count as zero).
    fileprivate var nanos: Int64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }
}
