import EmulatorModel
import EmulatorSupport
import Foundation
import Synchronization

/// A Realtime Database reached over the emulator's REST and Server-Sent Events API, plus one
/// WebSocket connection (opened on first use) that carries the onDisconnect operations.
///
/// ```swift
/// let db = Database.database(url: "http://127.0.0.1:9000?ns=demo-default-rtdb")
/// let ref = db.reference()
/// try await ref.child("users").child(uid).setValue(["username": name])
/// ```
public final class Database: Sendable {
    /// The database name (`?ns=` on every request).
    public let namespace: String
    private let endpoint: Mutex<(host: String, port: Int)>
    private let clientCache = Mutex<HTTPClient?>(nil)
    let pushIDs = PushIdGenerator()
    let observers = Mutex<[UInt: DatabaseObserver]>([:])
    let nextHandle = Atomic<UInt>(1)
    private let credential = Mutex("owner")
    /// The WebSocket connection that carries the onDisconnect operations.
    let connection: DatabaseConnection

    /// A database from its URL: `http://host:port?ns=name`, `https://name.firebaseio.com`, … The
    /// namespace is `ns` when present, else the first label of the host. `FIREBASE_DATABASE_EMULATOR_HOST`
    /// (`host:port`) redirects requests to an emulator.
    public init(url: String) {
        var host = "127.0.0.1"
        var port = 9000
        var namespace = "localhost"
        if let components = URLComponents(string: url) {
            if let h = components.host, !h.isEmpty {
                host = h
                namespace = String(h.split(separator: ".").first ?? Substring(h))
            }
            if let p = components.port { port = p } else if components.scheme == "https" { port = 443 }
            if let ns = components.queryItems?.first(where: { $0.name == "ns" })?.value, !ns.isEmpty { namespace = ns }
        }
        if let env = ProcessInfo.processInfo.environment["FIREBASE_DATABASE_EMULATOR_HOST"],
            let colon = env.lastIndex(of: ":"), let p = Int(env[env.index(after: colon)...])
        {
            host = String(env[..<colon])
            port = p
        }
        self.namespace = namespace
        self.endpoint = Mutex((host, port))
        self.connection = DatabaseConnection(namespace: namespace, host: host, port: port, credential: "owner")
    }

    /// The same as `Database(url:)`.
    public static func database(url: String) -> Database { Database(url: url) }

    /// Sends every request to the emulator at `host:port` (the namespace stays).
    public func useEmulator(withHost host: String, port: Int) {
        endpoint.withLock { $0 = (host, port) }
        clientCache.withLock { $0 = nil }
        connection.setAddress(host: host, port: port)
    }

    /// The credential of every later request (an emulator extension; the SDK takes it from
    /// Firebase Auth): an ID token (a JWT, signed or not, as the Auth emulator issues) whose claims
    /// become the rules' `auth`, or nil for the admin credential `owner` (the default), which
    /// bypasses the rules. An open connection re-authenticates at once.
    ///
    /// ```swift
    /// db.setAuthToken(idToken)   // rules now see auth.uid
    /// ```
    public func setAuthToken(_ token: String?) {
        let value = token.flatMap { $0.isEmpty ? nil : $0 } ?? "owner"
        credential.withLock { $0 = value }
        clientCache.withLock { $0 = nil }
        connection.setCredential(value)
    }

    /// `Authorization` for REST and event-stream requests.
    var authorization: (String, String) { ("Authorization", "Bearer " + credential.withLock { $0 }) }

    /// The root of the database.
    public func reference() -> DatabaseReference { DatabaseReference(database: self, path: []) }

    /// The location at `path` (`"users/ada"`).
    public func reference(withPath path: String) -> DatabaseReference {
        DatabaseReference(database: self, path: DatabaseReference.split(path))
    }

    /// Closes the WebSocket connection (the server then runs this client's onDisconnect
    /// operations) and stops every observer. onDisconnect calls made while offline wait and are
    /// sent by ``goOnline()``; REST reads and writes keep working.
    public func goOffline() {
        connection.goOffline()
        let all = observers.withLock { o in
            defer { o.removeAll() }
            return Array(o.values)
        }
        for o in all { o.stop() }
    }

    /// Reopens the WebSocket connection if it was in use, sending what waited meanwhile.
    public func goOnline() {
        connection.goOnline()
    }

    /// Drops the WebSocket without a close frame, as a crash or a network loss would; the
    /// connection reconnects with backoff. For tests.
    package func simulateConnectionLoss() {
        connection.dropSocket()
    }

    /// WebSocket connections opened so far. For tests.
    package var webSocketConnectionCount: Int { connection.connectionCount }

    deinit {
        connection.shutdown()
        for o in observers.withLock({ Array($0.values) }) { o.stop() }
    }

    // MARK: transport

    var address: (host: String, port: Int) { endpoint.withLock { $0 } }

    private var client: HTTPClient {
        clientCache.withLock { c in
            if let c { return c }
            let e = endpoint.withLock { $0 }
            let made = HTTPClient(host: e.host, port: e.port, headers: [authorization])
            c = made
            return made
        }
    }

    /// `/<path>.json?ns=…&<query>`.
    func target(_ path: [String], query: [(String, String)] = []) -> String {
        var t = "/" + path.map { PercentQuery.encode($0) }.joined(separator: "/") + ".json?ns=" + PercentQuery.encode(namespace)
        for (k, v) in query { t += "&" + k + "=" + PercentQuery.encode(v) }
        return t
    }

    /// One REST call; non-2xx answers throw with the server's `error` text.
    func send(
        _ method: String, path: [String], query: [(String, String)] = [], body: JSONValue? = nil,
        headers: [(String, String)] = [], accept: Set<Int> = []
    ) throws(DatabaseError) -> HTTPClientResponse {
        let response: HTTPClientResponse
        do {
            response = try client.send(
                method: method, target: target(path, query: query), headers: headers,
                body: body.map { JSONWriter.encode($0) } ?? [])
        } catch {
            throw DatabaseError("Could not reach the Realtime Database emulator: \(error.description)")
        }
        if (200..<300).contains(response.status) || accept.contains(response.status) { return response }
        var message = response.text
        if let json = try? JSONReader.parse(response.body), case .string(let e)? = json[member: "error"] { message = e }
        throw DatabaseError(message, status: response.status)
    }
}
