#if canImport(Glibc)
import Glibc
#endif
import EmulatorModel
import EmulatorSupport
import Synchronization

/// The Database's persistent WebSocket connection (RTDB wire protocol v5), opened on first use.
///
/// After the server's hello it sends the credential (`gauth` for `owner`, `auth` for an ID token),
/// then every request not yet answered, in order. Each request completes when its reply arrives.
/// When the socket drops while online it reconnects with backoff (1 s, ×1.3 per attempt, random
/// jitter, at most 30 s) and sends the credential and the unanswered requests again. Requests made
/// while offline wait for ``goOnline()``.
///
/// ```swift
/// let reply = try await connection.request("o", ["p": "/presence/ada", "d": nil])
/// ```
final class DatabaseConnection: Sendable {
    private struct Request: Sendable {
        let action: String
        let body: JSONValue
        let complete: @Sendable (Result<JSONValue, any Error>) -> Void
        /// The `r` it was sent with on the current socket; nil while unsent.
        var wireID: Int?
    }

    private struct State: Sendable {
        var host: String
        var port: Int
        var credential: String
        /// Cleared by `goOffline()`.
        var online = true
        /// Set by the first request: a connection is wanted.
        var wanted = false
        /// A connection thread exists.
        var running = false
        /// Bumped by `goOffline()`, so a thread's old socket leaves the state alone.
        var generation = 0
        var socket: WebSocketClient?
        /// Hello received and the credential sent: requests go straight out.
        var ready = false
        var nextWireID = 1
        var authWireID: Int?
        /// Unanswered requests, oldest first.
        var requests: [Request] = []
        /// Sockets opened so far (one per successful handshake).
        var connections = 0
        /// Quiet time after which the keep-alive `0` goes out.
        var keepAliveSeconds = 45
        /// Keep-alives sent so far.
        var keepAlives = 0
        /// What `.info/connected` says: a socket is open and greeted.
        var connected = false
        /// `.info/connected` watchers by id.
        var watchers: [UInt: @Sendable (Bool) -> Void] = [:]
        var nextWatcher: UInt = 1
    }

    let namespace: String
    private let state: Mutex<State>

    init(namespace: String, host: String, port: Int, credential: String) {
        self.namespace = namespace
        self.state = Mutex(State(host: host, port: port, credential: credential))
    }

    // MARK: requests

    /// Sends `action` with `body` and returns the reply's `d` once the server answered `ok`;
    /// any other status throws ``DatabaseError``.
    func request(_ action: String, _ body: JSONValue) async throws -> JSONValue {
        try await withCheckedThrowingContinuation { continuation in
            request(action, body) { continuation.resume(with: $0) }
        }
    }

    /// As the async form; `complete` runs once, on the connection's thread, with the reply's `d`
    /// or the error.
    func request(_ action: String, _ body: JSONValue, complete: @escaping @Sendable (Result<JSONValue, any Error>) -> Void) {
        let spawn = state.withLock { s -> Bool in
            var request = Request(action: action, body: body, complete: complete)
            if s.ready, let socket = s.socket {
                request.wireID = Self.send(&s, socket, action, body)
            }
            s.requests.append(request)
            s.wanted = true
            return Self.claimThread(&s)
        }
        if spawn { startThread() }
    }

    /// Whether a new thread should run the connection (and marks it running).
    private static func claimThread(_ s: inout State) -> Bool {
        guard s.online, s.wanted, !s.running else { return false }
        s.running = true
        return true
    }

    private func startThread() {
        BackgroundThread.run(name: "EmulatorClient database connection") { [self] in self.run() }
    }

    /// Sends one request on `socket` with the next `r`; a failed send is left to the reader,
    /// which sees the socket close and sends the request again on the next connection.
    private static func send(_ s: inout State, _ socket: WebSocketClient, _ action: String, _ body: JSONValue) -> Int {
        let r = s.nextWireID
        s.nextWireID += 1
        let message = JSONValue.object([
            JSONMember("t", .string("d")),
            JSONMember("d", .object([JSONMember("r", .int(Int64(r))), JSONMember("a", .string(action)), JSONMember("b", body)])),
        ])
        do throws(ClientTransportError) {
            for frame in WireFraming.frames(for: JSONWriter.encodeToString(message)) { try socket.send(text: frame) }
        } catch {
            socket.abort()
        }
        return r
    }

    private static func authRequest(_ credential: String) -> (String, JSONValue) {
        let isOwner = credential.lowercased() == "owner"
        return (isOwner ? "gauth" : "auth", .object([JSONMember("cred", .string(credential))]))
    }

    // MARK: control

    /// The credential for this and later connections; sent at once on an open connection.
    func setCredential(_ credential: String) {
        state.withLock { s in
            s.credential = credential
            if s.ready, let socket = s.socket {
                let (action, body) = Self.authRequest(credential)
                s.authWireID = Self.send(&s, socket, action, body)
            }
        }
    }

    /// The emulator to connect to from the next connection on.
    func setAddress(host: String, port: Int) {
        state.withLock { s in
            s.host = host
            s.port = port
        }
    }

    /// Closes the socket (the server then runs the onDisconnect operations) and stays closed.
    /// Unanswered requests wait for ``goOnline()``.
    func goOffline() {
        let (socket, generation) = state.withLock { s -> (WebSocketClient?, Int) in
            s.online = false
            return (Self.detach(&s), s.generation)
        }
        socket?.close()
        setConnected(false, generation: generation)
    }

    /// Reconnects if a connection was in use.
    func goOnline() {
        let spawn = state.withLock { s -> Bool in
            s.online = true
            return Self.claimThread(&s)
        }
        if spawn { startThread() }
    }

    /// Drops the socket without a close frame, as a crash or a network loss would; the connection
    /// then reconnects (tests use this).
    func dropSocket() {
        state.withLock { $0.socket }?.abort()
    }

    /// The keep-alive interval of later sockets (45 s unless a test shortens it).
    func setKeepAlive(seconds: Int) {
        state.withLock { $0.keepAliveSeconds = max(1, seconds) }
    }

    /// Keep-alives sent so far.
    var keepAliveCount: Int { state.withLock { $0.keepAlives } }

    /// Sockets opened so far.
    var connectionCount: Int { state.withLock { $0.connections } }

    /// Forgets the current socket: requests in flight are sent again on the next one.
    private static func detach(_ s: inout State) -> WebSocketClient? {
        s.generation += 1
        s.ready = false
        s.authWireID = nil
        for i in s.requests.indices { s.requests[i].wireID = nil }
        defer { s.socket = nil }
        return s.socket
    }

    // MARK: connection thread

    private func run() {
        var delay = 1.0
        var lastAttempt = ContinuousClock.now
        while true {
            let target = state.withLock { s -> (host: String, port: Int, generation: Int, keepAlive: Int)? in
                guard s.online, s.wanted else {
                    s.running = false
                    return nil
                }
                return (s.host, s.port, s.generation, s.keepAliveSeconds)
            }
            guard let target else { return }
            lastAttempt = ContinuousClock.now
            if let socket = try? WebSocketClient(
                host: target.host, port: target.port, target: "/.ws?v=5&ns=" + PercentQuery.encode(namespace),
                receiveTimeoutSeconds: target.keepAlive)
            {
                serve(socket, generation: target.generation)
                if ContinuousClock.now - lastAttempt > .seconds(30) { delay = 1.0 }
            }
            // Backoff: a random part of the delay not yet spent since the last attempt.
            let spent = ContinuousClock.now - lastAttempt
            let remaining = max(0, delay - Double(spent.components.seconds) - Double(spent.components.attoseconds) / 1e18)
            delay = min(delay * 1.3, 30)
            wait(seconds: Double.random(in: 0...1) * remaining)
        }
    }

    /// Sleeps in short steps, returning early once offline or no longer wanted.
    private func wait(seconds: Double) {
        var left = seconds
        while left > 0 {
            if state.withLock({ !$0.online || !$0.wanted }) { return }
            let step = min(left, 0.05)
            usleep(UInt32(step * 1_000_000))
            left -= step
        }
    }

    /// One socket's life: hello, credential, pending requests, then replies until it closes.
    private func serve(_ socket: WebSocketClient, generation: Int) {
        var joiner = WireFrameJoiner()
        var greeted = false
        while true {
            switch socket.receive() {
            case .timeout:
                if (try? socket.send(text: WireFraming.keepAlive)) != nil { state.withLock { $0.keepAlives += 1 } }
            case .closed:
                let current = state.withLock { s -> Int? in
                    guard s.generation == generation else { return nil }
                    _ = Self.detach(&s)
                    return s.generation
                }
                if let current { setConnected(false, generation: current) }
                return
            case .text(let frame):
                guard let text = joiner.add(frame), let message = try? JSONReader.parse(text) else { continue }
                if !greeted {
                    guard Self.isHello(message) else { continue }
                    greeted = true
                    let current = state.withLock { s -> Bool in
                        guard s.generation == generation, s.online else { return false }
                        s.socket = socket
                        s.connections += 1
                        let (action, body) = Self.authRequest(s.credential)
                        s.authWireID = Self.send(&s, socket, action, body)
                        for i in s.requests.indices {
                            s.requests[i].wireID = Self.send(&s, socket, s.requests[i].action, s.requests[i].body)
                        }
                        s.ready = true
                        return true
                    }
                    if current { setConnected(true, generation: generation) }
                    if !current {
                        socket.close()
                        return
                    }
                } else {
                    handle(message, socket: socket, generation: generation)
                }
            }
        }
    }

    private static func isHello(_ message: JSONValue) -> Bool {
        message[member: "t"] == .string("c") && message[member: "d"]?[member: "t"] == .string("h")
    }

    /// A reply completes its request; a failed credential fails every request and closes; a
    /// server shutdown (`s`) fails every request and stops reconnecting.
    private func handle(_ message: JSONValue, socket: WebSocketClient, generation: Int) {
        var finished: [(Request, Result<JSONValue, any Error>)] = []
        var close = false
        state.withLock { s in
            guard s.generation == generation else { return }
            if message[member: "t"] == .string("c") {
                guard message[member: "d"]?[member: "t"] == .string("s") else { return }
                let reason: String
                if case .string(let text)? = message[member: "d"]?[member: "d"] { reason = text } else { reason = "shutdown" }
                let failure = DatabaseError("The server shut the connection down: \(reason)")
                finished = s.requests.map { ($0, .failure(failure)) }
                s.requests.removeAll()
                s.wanted = false
                close = true
                return
            }
            guard message[member: "t"] == .string("d"), let data = message[member: "d"],
                case .int(let r)? = data[member: "r"], let reply = data[member: "b"]
            else { return }
            let status: String
            if case .string(let text)? = reply[member: "s"] { status = text } else { status = "" }
            let payload = reply[member: "d"] ?? .null
            if Int(r) == s.authWireID {
                s.authWireID = nil
                guard status != "ok" else { return }
                let failure = DatabaseError.wire(status: status, data: payload)
                finished = s.requests.map { ($0, .failure(failure)) }
                s.requests.removeAll()
                s.wanted = false
                close = true
                return
            }
            guard let index = s.requests.firstIndex(where: { $0.wireID == Int(r) }) else { return }
            let request = s.requests.remove(at: index)
            let result: Result<JSONValue, any Error> =
                status == "ok" ? .success(payload) : .failure(DatabaseError.wire(status: status, data: payload))
            finished = [(request, result)]
        }
        if close { socket.close() }
        for (request, result) in finished { request.complete(result) }
    }

    /// Closes for good (the Database is going away): the server runs the onDisconnect operations.
    func shutdown() {
        let socket = state.withLock { s -> WebSocketClient? in
            s.online = false
            s.wanted = false
            s.watchers.removeAll()
            return Self.detach(&s)
        }
        socket?.close()
    }

    // MARK: .info/connected

    /// Whether a socket is open and greeted now.
    var isConnected: Bool { state.withLock { $0.connected } }

    /// Calls `handler` (under the connection's lock: it must only queue work) with the current
    /// state, then on every change, until ``unwatch(_:)``; opens
    /// the connection if none is wanted yet (as the SDKs connect when `.info/connected` is observed).
    func watchConnected(_ handler: @escaping @Sendable (Bool) -> Void) -> UInt {
        let (id, spawn) = state.withLock { s -> (UInt, Bool) in
            let id = s.nextWatcher
            s.nextWatcher += 1
            s.watchers[id] = handler
            s.wanted = true
            handler(s.connected)
            return (id, Self.claimThread(&s))
        }
        if spawn { startThread() }
        return id
    }

    func unwatch(_ id: UInt) {
        state.withLock { _ = $0.watchers.removeValue(forKey: id) }
    }

    /// Records the state and tells the watchers when it changed; a socket generation that is no
    /// longer current changes nothing.
    private func setConnected(_ value: Bool, generation: Int) {
        // Watchers only queue a callback, so they run under the lock: changes reach them in order.
        state.withLock { s in
            guard s.generation == generation, s.connected != value else { return }
            s.connected = value
            for (_, watcher) in s.watchers.sorted(by: { $0.key < $1.key }) { watcher(value) }
        }
    }
}

extension DatabaseError {
    /// The error for a wire reply status, shaped like the REST errors: `permission_denied`,
    /// `invalid_token` and `expired_token` carry 401, `too_big` 413, anything else 400.
    static func wire(status: String, data: JSONValue) -> DatabaseError {
        var message: String
        switch status {
        case "permission_denied": message = "Permission denied"
        case "invalid_token", "expired_token": message = "Invalid or expired auth token"
        default: message = status
        }
        if case .string(let text) = data, !text.isEmpty { message = text }
        let code: Int
        switch status {
        case "permission_denied", "invalid_token", "expired_token": code = 401
        case "too_big": code = 413
        default: code = 400
        }
        return DatabaseError(message, status: code)
    }
}
