#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import EmulatorModel
import EmulatorSupport
import Synchronization

/// The Database's one WebSocket connection (RTDB wire protocol v5), opened on first use: every
/// read, write, listen, transaction and onDisconnect operation of the instance travels on it.
///
/// After the server's hello it sends the credential (`gauth` for `owner`, `auth` for an ID
/// token), then a listen (`q`) for every active query, then every request not yet answered, in
/// the order they were made; each request completes when its reply arrives. Replies are matched
/// by their request id (`r`), which is unique on a connection, so nothing is sent twice on one
/// connection. When the socket drops while online it reconnects with backoff (1 s, ×1.3 per
/// attempt, random jitter, at most 30 s) and does the same again. Requests made while offline
/// wait for the connection, except reads (`g`), which fail with "Client is offline." when no
/// connection carries them within 3 s, as the SDKs' do, unless the cache can answer.
///
/// It also keeps the client's view of the data (``DatabaseSyncTree``): each listen's server data
/// from the pushes (`d`, `m`), the writes not yet acknowledged laid over it (latency
/// compensation: observers see a write at once, and see it taken back if the server refuses it),
/// and each observer's last view, from which its events are derived.
///
/// ```swift
/// let reply = try await connection.request("o", ["p": "/presence/ada", "d": nil])
/// ```
final class DatabaseConnection: Sendable {
    private struct Request: Sendable {
        let id: Int
        let action: String
        let body: JSONValue
        let complete: @Sendable (Result<JSONValue, any Error>) -> Void
        /// The `r` it was sent with on the current socket; nil while unsent.
        var wireID: Int?
        /// The local write it carries, taken out of the view when the reply arrives.
        var localWrite: Int?
        /// A read: fails when not sent by this time.
        var isRead = false
    }

    /// One server listen and the data it brought.
    private struct Listen: Sendable {
        /// The query's tag (filtered queries only), which the server's pushes carry.
        var tag: Int64?
        var server = DatabaseNode.empty
        /// The server answered the listen: `server` is the whole result.
        var complete = false
        /// The `r` of the `q` on the current socket.
        var wireID: Int?
        /// `keepSynced(true)` calls not yet undone.
        var keepSynced = 0
    }

    private struct ObserverEntry: Sendable {
        let observer: DatabaseObserver
        var last: DatabaseNode?
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
        var nextRequestID = 1
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
        var listens: [DatabaseListenKey: Listen] = [:]
        var nextTag: Int64 = 1
        var observers: [UInt: ObserverEntry] = [:]
        /// Unacknowledged writes, oldest first.
        var writes: [DatabaseLocalWrite] = []
        var nextWrite = 1
    }

    let namespace: String
    private let state: Mutex<State>
    /// How long an unsent read waits for a connection.
    private let readTimeout: Duration = .seconds(3)

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
            Self.enqueue(&s, action, body, complete: complete)
            return Self.claimThread(&s)
        }
        if spawn { startThread() }
    }

    @discardableResult
    private static func enqueue(
        _ s: inout State, _ action: String, _ body: JSONValue, localWrite: Int? = nil, isRead: Bool = false,
        complete: @escaping @Sendable (Result<JSONValue, any Error>) -> Void
    ) -> Int {
        var request = Request(id: s.nextRequestID, action: action, body: body, complete: complete, localWrite: localWrite, isRead: isRead)
        s.nextRequestID += 1
        if s.ready, let socket = s.socket {
            request.wireID = send(&s, socket, action, body)
        }
        s.requests.append(request)
        s.wanted = true
        return request.id
    }

    /// A write (`p` set, `m` merge) at `path`: observers see it at once; `complete` runs when the
    /// server applied or refused it (a refused write is taken back out of the views). A `hash`
    /// makes it a transaction's compare-and-set (`h`), refused with `datastale` when the server's
    /// value differs.
    func write(
        _ action: String, path: [String], data: JSONValue, hash: String? = nil,
        complete: @escaping @Sendable (Result<JSONValue, any Error>) -> Void
    ) {
        let spawn = state.withLock { s -> Bool in
            let sets: [(path: [String], value: JSONValue)]
            if action == "m", case .object(let members) = data {
                sets = members.map { (path + DatabaseReference.split($0.name), $0.value) }
            } else {
                sets = [(path, data)]
            }
            let id = s.nextWrite
            s.nextWrite += 1
            s.writes.append(DatabaseLocalWrite(id: id, sets: sets))
            Self.refresh(&s, touching: path)
            var members = [JSONMember("p", .string("/" + path.joined(separator: "/"))), JSONMember("d", data)]
            if let hash { members.append(JSONMember("h", .string(hash))) }
            Self.enqueue(&s, action, .object(members), localWrite: id, complete: complete)
            return Self.claimThread(&s)
        }
        if spawn { startThread() }
    }

    /// Reads a query: from the cache when a complete listen (or a local write) knows the
    /// location, else with `g` on the connection; unsent after 3 s, it fails "Client is offline.".
    /// `serverOnly` skips the cache and the local writes (transactions compare against the server).
    func read(
        path: [String], params: DatabaseQueryParams, serverOnly: Bool = false,
        complete: @escaping @Sendable (Result<DatabaseNode, DatabaseError>) -> Void
    ) {
        let (cached, spawn, id) = state.withLock { s -> (DatabaseNode?, Bool, Int?) in
            if !serverOnly, !s.connected, let node = Self.cachedView(s, path: path, params: params) { return (node, false, nil) }
            var body = [JSONMember("p", .string("/" + path.joined(separator: "/")))]
            if let q = params.wire { body.append(JSONMember("q", q)) }
            let id = Self.enqueue(&s, "g", .object(body), isRead: true) { result in
                complete(result.mapError(Self.databaseError).flatMap { json in
                    Result { () throws(DatabaseError) in try DatabaseQuery.node(json) }
                })
            }
            return (nil, Self.claimThread(&s), id)
        }
        if let cached { return complete(.success(cached)) }
        if spawn { startThread() }
        guard let id else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(readTimeout.components.seconds * 1000))) { [self] in
            let expired = state.withLock { s -> Request? in
                guard let i = s.requests.firstIndex(where: { $0.id == id && $0.wireID == nil }) else { return nil }
                return s.requests.remove(at: i)
            }
            expired?.complete(.failure(DatabaseError("Client is offline.")))
        }
    }

    /// The server's value at `path` (no local writes) when a complete default listen at or above
    /// it holds it.
    func cachedServerValue(path: [String]) -> DatabaseNode? {
        state.withLock { s in
            for (key, listen) in s.listens where listen.complete && key.params.isDefault && DatabaseSyncTree.isPrefix(key.path, of: path) {
                return listen.server.child(at: DatabasePath(keys: Array(path.dropFirst(key.path.count))))
            }
            return nil
        }
    }

    private static func databaseError(_ error: any Error) -> DatabaseError {
        (error as? DatabaseError) ?? DatabaseError("\(error)")
    }

    /// The query's data from a complete listen at or above it, or from local writes that replace it.
    private static func cachedView(_ s: State, path: [String], params: DatabaseQueryParams) -> DatabaseNode? {
        if let exact = s.listens[DatabaseListenKey(path: path, params: params.listenParams)], exact.complete {
            return params.apply(DatabaseSyncTree.overlay(exact.server, base: path, writes: s.writes))
        }
        for (key, listen) in s.listens where listen.complete && key.params.isDefault && DatabaseSyncTree.isPrefix(key.path, of: path) {
            let whole = DatabaseSyncTree.overlay(listen.server, base: key.path, writes: s.writes)
            return params.apply(whole.child(at: DatabasePath(keys: Array(path.dropFirst(key.path.count)))))
        }
        if DatabaseSyncTree.covers(s.writes, path) {
            return params.apply(DatabaseSyncTree.overlay(.empty, base: path, writes: s.writes))
        }
        return nil
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

    // MARK: listens and observers

    private static func listenBody(_ key: DatabaseListenKey, _ listen: Listen, hash: Bool) -> JSONValue {
        var body = [JSONMember("p", .string("/" + key.path.joined(separator: "/")))]
        if let q = key.params.wire { body.append(JSONMember("q", q)) }
        if let tag = listen.tag { body.append(JSONMember("t", .int(tag))) }
        if hash { body.append(JSONMember("h", .string(""))) }
        return .object(body)
    }

    /// Starts the listen for `key` unless it runs already; sends its `q` on a ready socket.
    private static func ensureListen(_ s: inout State, _ key: DatabaseListenKey) {
        guard s.listens[key] == nil else { return }
        var listen = Listen()
        if !key.params.isDefault {
            listen.tag = s.nextTag
            s.nextTag += 1
        }
        if s.ready, let socket = s.socket { listen.wireID = send(&s, socket, "q", listenBody(key, listen, hash: true)) }
        s.listens[key] = listen
        s.wanted = true
    }

    /// Stops the listen for `key` when nothing uses it any more.
    private static func releaseListen(_ s: inout State, _ key: DatabaseListenKey) {
        guard let listen = s.listens[key], listen.keepSynced == 0, !s.observers.values.contains(where: { $0.observer.key == key })
        else { return }
        s.listens[key] = nil
        if s.ready, let socket = s.socket { _ = send(&s, socket, "n", listenBody(key, listen, hash: false)) }
    }

    /// Registers an observer; its first events come as soon as the query's data is known.
    func addObserver(_ handle: UInt, _ observer: DatabaseObserver) {
        let spawn = state.withLock { s -> Bool in
            s.observers[handle] = ObserverEntry(observer: observer, last: nil)
            Self.ensureListen(&s, observer.key)
            Self.refresh(&s, touching: observer.query.path)
            return Self.claimThread(&s)
        }
        if spawn { startThread() }
    }

    /// Removes observers (by handle, or every observer at exactly `path`); their listens stop
    /// when nothing else uses them.
    func removeObservers(handle: UInt? = nil, path: [String]? = nil) {
        let removed = state.withLock { s -> [DatabaseObserver] in
            let handles = s.observers.filter { entry in
                if let handle { return entry.key == handle }
                return entry.value.observer.query.path == path
            }.map(\.key)
            let gone = handles.compactMap { s.observers.removeValue(forKey: $0)?.observer }
            for key in Set(gone.map(\.key)) { Self.releaseListen(&s, key) }
            return gone
        }
        for o in removed { o.stop() }
    }

    /// `keepSynced(true)` keeps the query listened (its data cached) without an observer.
    func keepSynced(_ key: DatabaseListenKey, _ on: Bool) {
        let spawn = state.withLock { s -> Bool in
            if on {
                Self.ensureListen(&s, key)
                s.listens[key]?.keepSynced += 1
                return Self.claimThread(&s)
            }
            if let n = s.listens[key]?.keepSynced, n > 0 { s.listens[key]?.keepSynced = n - 1 }
            Self.releaseListen(&s, key)
            return false
        }
        if spawn { startThread() }
    }

    /// Recomputes the view of every observer whose location is related to `path` (all when nil)
    /// and queues the events of those that changed. Runs under the lock.
    private static func refresh(_ s: inout State, touching path: [String]?) {
        for (handle, entry) in s.observers.sorted(by: { $0.key < $1.key }) {
            let key = entry.observer.key
            if let path, !DatabaseSyncTree.related(path, key.path) { continue }
            guard let listen = s.listens[key] else { continue }
            guard listen.complete || DatabaseSyncTree.covers(s.writes, key.path) else { continue }
            let view = entry.observer.query.params.apply(DatabaseSyncTree.overlay(listen.server, base: key.path, writes: s.writes))
            if let last = entry.last, last == view { continue }
            entry.observer.emit(old: entry.last, new: view)
            s.observers[handle]?.last = view
        }
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
    /// Unanswered requests wait for ``goOnline()``; observers stay and see local writes.
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

    /// Writes not yet acknowledged.
    var pendingWriteCount: Int { state.withLock { $0.writes.count } }

    /// Forgets the current socket: requests and listens in flight are sent again on the next one.
    private static func detach(_ s: inout State) -> WebSocketClient? {
        s.generation += 1
        s.ready = false
        s.authWireID = nil
        for i in s.requests.indices { s.requests[i].wireID = nil }
        for key in s.listens.keys { s.listens[key]?.wireID = nil }
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

    /// One socket's life: hello, credential, listens, pending requests, then replies and pushes
    /// until it closes.
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
                        // Listens first, so the data of every query is back before the replayed writes' answers.
                        for key in s.listens.keys.sorted(by: { $0.path.count < $1.path.count }) {
                            guard let listen = s.listens[key] else { continue }
                            let r = Self.send(&s, socket, "q", Self.listenBody(key, listen, hash: true))
                            s.listens[key]?.wireID = r
                        }
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

    /// A reply completes its request (or its listen); a push updates the listens' data; a failed
    /// credential fails every request and closes; a server shutdown (`s`) fails every request and
    /// stops reconnecting.
    private func handle(_ message: JSONValue, socket: WebSocketClient, generation: Int) {
        var finished: [(Request, Result<JSONValue, any Error>)] = []
        var cancelled: [DatabaseObserver] = []
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
                s.writes.removeAll()
                Self.refresh(&s, touching: nil)
                s.wanted = false
                close = true
                return
            }
            guard message[member: "t"] == .string("d"), let data = message[member: "d"] else { return }
            if case .string(let action)? = data[member: "a"], let body = data[member: "b"] {
                cancelled = Self.push(&s, action: action, body: body)
                return
            }
            guard case .int(let r)? = data[member: "r"], let reply = data[member: "b"] else { return }
            let status: String
            if case .string(let text)? = reply[member: "s"] { status = text } else { status = "" }
            let payload = reply[member: "d"] ?? .null
            if Int(r) == s.authWireID {
                s.authWireID = nil
                guard status != "ok" else { return }
                let failure = DatabaseError.wire(status: status, data: payload)
                finished = s.requests.map { ($0, .failure(failure)) }
                s.requests.removeAll()
                s.writes.removeAll()
                Self.refresh(&s, touching: nil)
                s.wanted = false
                close = true
                return
            }
            if let key = s.listens.first(where: { $0.value.wireID == Int(r) })?.key {
                s.listens[key]?.wireID = nil
                if status == "ok" {
                    s.listens[key]?.complete = true
                    Self.refresh(&s, touching: key.path)
                } else {
                    cancelled = Self.cancelListen(&s, key, DatabaseError.wire(status: status, data: payload))
                }
                return
            }
            guard let index = s.requests.firstIndex(where: { $0.wireID == Int(r) }) else { return }
            let request = s.requests.remove(at: index)
            if let id = request.localWrite, let w = s.writes.firstIndex(where: { $0.id == id }) {
                let path = s.writes[w].sets.first?.path ?? []
                s.writes.remove(at: w)
                // A merge's paths share the request's location as prefix; refresh all its locations.
                Self.refresh(&s, touching: request.action == "m" ? Self.location(request.body) : path)
            }
            let result: Result<JSONValue, any Error> =
                status == "ok" ? .success(payload) : .failure(DatabaseError.wire(status: status, data: payload))
            finished = [(request, result)]
        }
        if close { socket.close() }
        for o in cancelled { o.stop() }
        for (request, result) in finished { request.complete(result) }
    }

    private static func location(_ body: JSONValue) -> [String] {
        if case .string(let p)? = body[member: "p"] { return DatabaseReference.split(p) }
        return []
    }

    /// A push: `d` (overwrite) or `m` (merge) data for the listens it concerns (by tag, or every
    /// default listen at a related location), `c` a listen the rules no longer allow. Returns the
    /// observers it cancelled.
    private static func push(_ s: inout State, action: String, body: JSONValue) -> [DatabaseObserver] {
        let path = Self.location(body)
        var tag: Int64?
        if case .int(let t)? = body[member: "t"] { tag = t }
        switch action {
        case "d", "m":
            let data = body[member: "d"] ?? .null
            let sets: [(path: [String], value: JSONValue)]
            if action == "m", case .object(let members) = data {
                sets = members.map { (path + DatabaseReference.split($0.name), $0.value) }
            } else {
                sets = [(path, data)]
            }
            for key in Array(s.listens.keys) {
                guard let listen = s.listens[key], listen.tag == tag, tag != nil || DatabaseSyncTree.related(key.path, path) else {
                    continue
                }
                var node = listen.server
                DatabaseSyncTree.apply(sets, to: &node, base: key.path, now: nil)
                s.listens[key]?.server = node
            }
            Self.refresh(&s, touching: path)
            return []
        case "c":
            let key = s.listens.first { entry in
                if let tag { return entry.value.tag == tag }
                return entry.value.tag == nil && entry.key.path == path
            }?.key
            guard let key else { return [] }
            return Self.cancelListen(&s, key, DatabaseError("Permission denied", status: 401))
        default:
            return []
        }
    }

    /// Ends a listen the server refused or revoked: its observers get the error and are removed.
    private static func cancelListen(_ s: inout State, _ key: DatabaseListenKey, _ error: DatabaseError) -> [DatabaseObserver] {
        s.listens[key] = nil
        let handles = s.observers.filter { $0.value.observer.key == key }.map(\.key).sorted()
        let gone = handles.compactMap { s.observers.removeValue(forKey: $0)?.observer }
        for o in gone { o.fail(error) }
        return gone
    }

    /// Closes for good (the Database is going away): the server runs the onDisconnect operations.
    func shutdown() {
        let (socket, observers) = state.withLock { s -> (WebSocketClient?, [DatabaseObserver]) in
            s.online = false
            s.wanted = false
            s.watchers.removeAll()
            defer { s.observers.removeAll() }
            return (Self.detach(&s), s.observers.values.map(\.observer))
        }
        socket?.close()
        for o in observers { o.stop() }
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
        var error = DatabaseError(message, status: code)
        error.wireStatus = status
        return error
    }
}
