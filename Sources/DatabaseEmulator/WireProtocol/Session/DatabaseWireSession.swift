import EmulatorHTTP
import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import Synchronization

/// One client connection speaking the RTDB wire protocol v5, independent of sockets: feed it
/// whole text frames (`receive(frame:)`), tell it when the connection ends (`closed()`), and it
/// answers through `output` (one JSON message per call, before framing).
///
/// It decodes each request into a `DatabaseService` call and encodes the answer (a
/// `DatabaseFailure` as `{"s": status, "d": message}`), keeps the connection's state
/// (credentials, listens, queued onDisconnect operations) and follows the ordering clients rely
/// on: a listen's data goes out before its `ok`, and a write's pushes go out before the write's
/// `ok` (pushes come from the namespace's fan-out of the storage change feed, which runs on the
/// committing thread during the commit).
///
/// With a ``ReplyGate`` (live data directory), each request runs through the gate; a reply the
/// gate holds (a write not yet durable) and every later reply wait until it is released, so
/// replies keep request order. Pushes are not held: a listener (this client's included) may see a
/// write before its writer's `ok`.
///
/// ```swift
/// let session = DatabaseWireSession(service: service, namespace: ns, host: "127.0.0.1:9000",
///                                   sessionID: "s1", output: { bytes in socket.send(bytes) })
/// session.start()                                     // sends the hello
/// session.receive(frame: #"{"t":"d","d":{"r":1,"a":"q","b":{"p":"/a","h":""}}}"#)
/// session.closed()                                    // runs onDisconnect operations
/// ```
final class DatabaseWireSession: Sendable {
    struct State: Sendable {
        var auth = DatabaseAuth.unauthenticated
        var listens: [DatabaseWireListen] = []
        var onDisconnect: [DatabaseDeferredWrite] = []
        var assembler = DatabaseWireFrameAssembler()
        /// The namespace's observer token, while the session has had a listen.
        var observer: Int?
        var isClosed = false
        /// Replies waiting behind a held one, in request order (see `DatabaseWireSession+Holds`).
        var replies: [HeldReply] = []
        var nextHold: UInt64 = 0
    }

    /// One reply in the queue: `ready` once its gate released it.
    struct HeldReply: Sendable {
        var hold: UInt64
        var reply: DatabaseWireReply
        var ready: Bool
    }

    let service: DatabaseService
    let namespace: DatabaseNamespace
    let host: String
    let sessionID: String
    let output: @Sendable ([UInt8]) -> Void
    let gate: ReplyGate?
    let execute: @Sendable (@escaping @Sendable () -> Void) -> Void
    let state = Mutex(State())

    /// `gate` may hold replies; a release runs its sending through `execute`, which runs work on
    /// the connection's thread (the WebSocket's event loop).
    init(
        service: DatabaseService, namespace: DatabaseNamespace, host: String, sessionID: String, gate: ReplyGate? = nil,
        execute: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = { $0() },
        output: @escaping @Sendable ([UInt8]) -> Void
    ) {
        self.service = service
        self.namespace = namespace
        self.host = host
        self.sessionID = sessionID
        self.gate = gate
        self.execute = execute
        self.output = output
    }

    /// Sends the hello (`{"t":"c","d":{"t":"h",…}}`); call once, when the socket opens.
    func start() {
        send(.hello(timestamp: service.now(), host: host, session: sessionID))
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

    /// One whole message. Malformed messages are ignored (the SDKs never send them), except that
    /// a request whose id can still be read (its body nested past the parser's limit, say) is
    /// answered `invalid_data`, so the client does not wait for its ack forever.
    func receive(message text: String) {
        guard !state.withLock({ $0.isClosed }) else { return }
        guard let message = DatabaseWireMessage.decode(text) else {
            if let id = DatabaseWireMessage.salvageRequestID(text) {
                answer(Self.reply(id, .failure(.invalid(DatabaseFailure.invalidJSON))), release: nil)
            }
            return
        }
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

    /// The connection ended (cleanly or not): stop pushes, drop held replies, then run queued
    /// onDisconnect operations in order (through the gate, whose release is not awaited: nobody
    /// is left to acknowledge), then hand the namespace back to the store. Idempotent.
    func closed() {
        let ended = state.withLock { s -> (operations: [DatabaseDeferredWrite], observer: Int?)? in
            if s.isClosed { return nil }
            s.isClosed = true
            s.listens.removeAll()
            s.replies.removeAll()
            defer {
                s.onDisconnect.removeAll()
                s.observer = nil
            }
            return (s.onDisconnect, s.observer)
        }
        guard let (operations, observer) = ended else { return }
        if let observer { namespace.removeObserver(observer) }
        if !operations.isEmpty {
            // A refused operation has nobody left to tell.
            if let gate {
                _ = gate.run { for operation in operations { try? service.perform(operation, in: namespace) } }
            } else {
                for operation in operations { try? service.perform(operation, in: namespace) }
            }
        }
        // After the onDisconnect writes: a namespace they wrote to is kept.
        service.store.connectionEnded(namespace)
    }

    // MARK: Dispatch

    private func handle(action: String, body: JSONValue, id: Int64?) {
        guard let gate else {
            if let reply = Self.reply(id, dispatch(action: action, body: body)) { send(reply) }
            return
        }
        var result = Answer.success(.string(""))
        let release = gate.run { result = dispatch(action: action, body: body) }
        answer(Self.reply(id, result), release: release)
    }

    /// What a request is answered with: `{"s":"ok","d":data}`, or a failure's status and message.
    typealias Answer = Result<JSONValue, DatabaseFailure>

    /// The wire reply to request `id` (none for a notification).
    private static func reply(_ id: Int64?, _ answer: Answer) -> DatabaseWireReply? {
        guard let id else { return nil }
        switch answer {
        case .success(let data): return .ok(id, data)
        case .failure(let failure): return .response(id: id, status: failure.wireStatus, data: .string(failure.message))
        }
    }

    private func dispatch(action: String, body: JSONValue) -> Answer {
        switch action {
        case "q", "l": return listen(body)
        case "n", "u": return unlisten(body)
        case "p": return put(body)
        case "m": return merge(body)
        case "g": return get(body)
        case "o", "om": return queueOnDisconnect(body, merge: action == "om")
        case "oc": return cancelOnDisconnect(body)
        case "auth", "gauth": return authenticate(body)
        case "unauth": return unauthenticate()
        // Stats, App Check tokens (and the SDK's `unappeck` clear): accepted and ignored.
        case "s", "appcheck", "unappeck": return .success(.string(""))
        default: return .failure(.unsupported("Unknown action: \(action)"))
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
