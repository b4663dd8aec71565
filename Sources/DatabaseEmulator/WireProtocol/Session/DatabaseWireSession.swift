import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import Synchronization

/// One client connection speaking the RTDB wire protocol v5, independent of sockets: feed it
/// whole text frames (`receive(frame:)`), tell it when the connection ends (`closed()`), and it
/// answers through `output` (one JSON message per call, before framing).
///
/// It keeps the connection's state (credentials, listens, queued onDisconnect operations) and
/// follows the ordering clients rely on: a listen's data goes out before its `ok`, and a write's
/// pushes go out before the write's `ok` (pushes come from the storage change feed, which runs on
/// the committing thread during the commit).
///
/// ```swift
/// let session = DatabaseWireSession(namespace: ns, engine: engine, host: "127.0.0.1:9000",
///                                   sessionID: "s1", now: now, output: { bytes in socket.send(bytes) })
/// session.start()                                     // sends the hello
/// session.receive(frame: #"{"t":"d","d":{"r":1,"a":"q","b":{"p":"/a","h":""}}}"#)
/// session.closed()                                    // runs onDisconnect operations
/// ```
final class DatabaseWireSession: Sendable {
    struct State: Sendable {
        var auth = DatabaseAuth.unauthenticated
        var listens: [DatabaseWireListen] = []
        var onDisconnect: [DatabaseWireOnDisconnect] = []
        var assembler = DatabaseWireFrameAssembler()
        var subscription: Subscription?
        var isClosed = false
    }

    let namespace: DatabaseNamespace
    let engine: StorageEngine
    let host: String
    let sessionID: String
    let now: @Sendable () -> Int64
    let output: @Sendable ([UInt8]) -> Void
    let state = Mutex(State())

    init(
        namespace: DatabaseNamespace, engine: StorageEngine, host: String, sessionID: String,
        now: @escaping @Sendable () -> Int64, output: @escaping @Sendable ([UInt8]) -> Void
    ) {
        self.namespace = namespace
        self.engine = engine
        self.host = host
        self.sessionID = sessionID
        self.now = now
        self.output = output
    }

    /// Sends the hello (`{"t":"c","d":{"t":"h",…}}`); call once, when the socket opens.
    func start() {
        send(.hello(timestamp: now(), host: host, session: sessionID))
    }

    /// The credentials requests currently run with.
    var auth: DatabaseAuth { state.withLock { $0.auth } }

    /// Number of active listens.
    var listenCount: Int { state.withLock { $0.listens.count } }

    /// One text frame from the client (a message, a piece of one, or the `0` keep-alive).
    func receive(frame: String) {
        let assembled = state.withLock { $0.assembler.add(frame) }
        switch assembled {
        case .message(let text): receive(message: text)
        case .incomplete, .keepAlive, .tooLarge: return
        }
    }

    /// One whole message. Malformed messages are ignored (the SDKs never send them).
    func receive(message text: String) {
        guard !state.withLock({ $0.isClosed }), let message = DatabaseWireMessage.decode(text) else { return }
        switch message {
        case .control(let type, _):
            // Ping gets a pong (clients count it towards connection health); the rest is
            // long-poll upgrade traffic that a WebSocket-only server does not need.
            if type == "p" { send(.pong) }
        case .request(let id, let action, let body):
            handle(action: action, body: body, id: id)
        case .notification(let action, let body):
            handle(action: action, body: body, id: nil)
        }
    }

    /// The connection ended (cleanly or not): stop pushes, then run queued onDisconnect operations
    /// in order. Idempotent.
    func closed() {
        let (operations, subscription) = state.withLock { s -> ([DatabaseWireOnDisconnect], Subscription?) in
            if s.isClosed { return ([], nil) }
            s.isClosed = true
            s.listens.removeAll()
            defer {
                s.onDisconnect.removeAll()
                s.subscription = nil
            }
            return (s.onDisconnect, s.subscription)
        }
        subscription?.cancel()
        for operation in operations { _ = run(operation) }
    }

    // MARK: Dispatch

    private func handle(action: String, body: JSONValue, id: Int64?) {
        let reply: DatabaseWireResult
        switch action {
        case "q", "l": reply = listen(body)
        case "n", "u": reply = unlisten(body)
        case "p": reply = put(body)
        case "m": reply = merge(body)
        case "g": reply = get(body)
        case "o", "om": reply = queueOnDisconnect(body, merge: action == "om")
        case "oc": reply = cancelOnDisconnect(body)
        case "auth", "gauth": reply = authenticate(body)
        case "unauth": reply = unauthenticate()
        // Stats, App Check tokens (and the SDK's `unappeck` clear): accepted and ignored.
        case "s", "appcheck", "unappeck": reply = .ok(.string(""))
        default: reply = .failure("failed", "Unknown action: \(action)")
        }
        guard let id else { return }
        switch reply {
        case .ok(let data): send(.ok(id, data))
        case .failure(let status, let message): send(.response(id: id, status: status, data: .string(message)))
        }
    }

    func send(_ reply: DatabaseWireReply) {
        output(reply.bytes)
    }

    /// `rooms/r1` for `/rooms/r1`; the root is the empty string.
    static func wirePath(_ path: DatabasePath) -> String { path.keys.joined(separator: "/") }

    /// The location a request's `p` names: slashes at either end and doubled slashes are
    /// tolerated; every key must be valid. With `allowPriority`, a last key `.priority` is allowed
    /// and reported.
    static func location(_ json: JSONValue?, allowPriority: Bool = false) -> (path: DatabasePath, isPriority: Bool)? {
        guard case .string(let text)? = json else { return nil }
        var keys: [String] = []
        var isPriority = false
        let parts = text.utf8.split(separator: UInt8(ascii: "/"))
        for (i, part) in parts.enumerated() {
            let key = String(decoding: part, as: UTF8.self)
            if allowPriority && i == parts.count - 1 && i > 0 && key == ".priority" {
                isPriority = true
                continue
            }
            guard DatabaseInputValidator.isValidKey(key), key.utf8.count <= DatabasePath.maxKeyBytes else { return nil }
            keys.append(key)
        }
        guard keys.count <= DatabasePath.maxDepth else { return nil }
        return (DatabasePath(keys: keys), isPriority)
    }
}
