import EmulatorModel
import EmulatorSupport
import Foundation
import Synchronization

/// A Realtime Database reached over one WebSocket connection (the SDKs' wire protocol v5),
/// opened on first use: reads, writes, observers, transactions and onDisconnect operations all
/// travel on it. Writes show in this instance's observers at once (before the server answers)
/// and wait, in order, while the connection is down.
///
/// ```swift
/// FirebaseApp.configure(options: FirebaseOptions(projectID: "demo-books"))   // or GCLOUD_PROJECT
/// Database.database().useEmulator(withHost: "127.0.0.1", port: 9000)         // or FIREBASE_DATABASE_EMULATOR_HOST
/// let ref = Database.database().reference()
/// try await ref.child("users").child(uid).setValue(["username": name])
/// ```
public final class Database: Sendable {
    /// The database name (`?ns=` on every request).
    public let namespace: String
    private let endpoint: Mutex<(host: String, port: Int)>
    let pushIDs = PushIdGenerator()
    /// `.info/connected` observers: their connection watcher and stop flag, by handle.
    let infoObservers = Mutex<[UInt: (watcher: UInt, stopped: StopFlag)]>([:])
    let nextHandle = Atomic<UInt>(1)
    private let credential = Mutex("owner")
    /// The WebSocket connection that carries every operation.
    let connection: DatabaseConnection
    /// Why this instance cannot reach a database (no URL and no project); every call fails with it.
    let configurationError: DatabaseError?
    /// Runs transaction blocks, one at a time.
    let transactionQueue = DispatchQueue(label: "EmulatorClient.Database.transactions")
    /// Runs completion blocks and observers one at a time, like the Apple SDK's callback queue.
    let callbackQueue = CallbackQueue(label: "EmulatorClient.Database.callbacks")
    private let persistence = Mutex(false)

    /// A database from its URL: `http://host:port?ns=name`, `https://name.firebaseio.com`, … The
    /// namespace is `ns` when present, else the first label of the host. `FIREBASE_DATABASE_EMULATOR_HOST`
    /// (`host:port`) redirects requests to an emulator.
    public convenience init(url: String) {
        self.init(url: url, configurationError: nil)
    }

    init(url: String, configurationError: DatabaseError?) {
        self.configurationError = configurationError
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
        if let address = EmulatorEnvironment.databaseHost {
            host = address.host
            port = address.port
        }
        self.namespace = namespace
        self.endpoint = Mutex((host, port))
        self.connection = DatabaseConnection(namespace: namespace, host: host, port: port, credential: "owner")
    }

    /// A new instance; the same as `Database(url:)`.
    public static func database(url: String) -> Database { Database(url: url) }

    /// The default app's database: ``FirebaseOptions/databaseURL``, else the project's default
    /// instance `<project>-default-rtdb` (project from the options or `GCLOUD_PROJECT`) at
    /// `FIREBASE_DATABASE_EMULATOR_HOST` or `127.0.0.1:9000`. Every call returns the same
    /// instance. Without a URL or project the instance is made, and every operation on it fails
    /// with an error saying what is missing.
    public static func database() -> Database {
        if let app = FirebaseApp.app() { return database(app: app) }
        return defaultDatabase(appName: FirebaseApp.defaultName, url: nil, project: EmulatorEnvironment.projectID)
    }

    /// The database of `app`.
    public static func database(app: FirebaseApp) -> Database {
        defaultDatabase(
            appName: app.name, url: app.options.databaseURL, project: app.options.projectID ?? EmulatorEnvironment.projectID)
    }

    /// The database at `url` of `app`; the same instance for the same app and URL.
    public static func database(app: FirebaseApp, url: String) -> Database {
        DefaultInstances.database(app: app.name, url: url) { Database(url: url) }
    }

    private static func defaultDatabase(appName: String, url: String?, project: String?) -> Database {
        if let url { return DefaultInstances.database(app: appName, url: url) { Database(url: url) } }
        guard let project else {
            return DefaultInstances.database(app: appName, url: "") {
                Database(
                    url: "http://127.0.0.1:9000?ns=unconfigured",
                    configurationError: DatabaseError(
                        "Database.database() has no database URL: call FirebaseApp.configure(options:) with "
                            + "FirebaseOptions.databaseURL or projectID set, or set GCLOUD_PROJECT"))
            }
        }
        let url = "http://127.0.0.1:9000?ns=\(project)-default-rtdb"
        return DefaultInstances.database(app: appName, url: url) { Database(url: url) }
    }

    /// Kept for source compatibility: this client has no disk cache, so the value changes nothing.
    public var isPersistenceEnabled: Bool {
        get { persistence.withLock { $0 } }
        set { persistence.withLock { $0 = newValue } }
    }

    /// Sends every request to the emulator at `host:port` (the namespace stays).
    public func useEmulator(withHost host: String, port: Int) {
        endpoint.withLock { $0 = (host, port) }
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
        connection.setCredential(value)
    }

    /// The root of the database.
    public func reference() -> DatabaseReference { DatabaseReference(database: self, path: []) }

    /// The location at `path` (`"users/ada"`).
    public func reference(withPath path: String) -> DatabaseReference {
        DatabaseReference(database: self, path: DatabaseReference.split(path))
    }

    /// Closes the WebSocket connection (the server then runs this client's onDisconnect
    /// operations). Observers stay and see this instance's writes at once; writes and onDisconnect
    /// calls made while offline wait and are sent by ``goOnline()``; reads answer from the data
    /// observers hold, or fail "Client is offline.".
    public func goOffline() {
        connection.goOffline()
    }

    /// Reopens the WebSocket connection if it was in use: listens again for every observer, then
    /// sends what waited meanwhile, in order.
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

    /// Writes the server has not acknowledged yet. For tests.
    package var pendingWriteCount: Int { connection.pendingWriteCount }

    deinit {
        connection.shutdown()
    }

    // MARK: transport

    var address: (host: String, port: Int) { endpoint.withLock { $0 } }

}

/// The emulator's own endpoints (not part of the Realtime Database API), for test set-up.
extension Database {
    /// Replaces this namespace's rules (`PUT /.settings/rules.json`, as the admin credential).
    package func loadEmulatorRules(_ json: String) async throws {
        let target = "/.settings/rules.json?ns=" + PercentQuery.encode(namespace)
        let address = self.address
        let response = try await blocking {
            try HTTPClient(host: address.host, port: address.port, headers: [("Authorization", "Bearer owner")])
                .send(method: "PUT", target: target, headers: [], body: Array(json.utf8))
        }
        if !(200..<300).contains(response.status) { throw DatabaseError(response.text, status: response.status) }
    }

    /// Deletes everything in this namespace, bypassing the rules.
    package func clearEmulatorData() async throws {
        let target = "/.json?ns=" + PercentQuery.encode(namespace) + "&print=silent"
        let address = self.address
        let response = try await blocking {
            try HTTPClient(host: address.host, port: address.port, headers: [("Authorization", "Bearer owner")])
                .send(method: "DELETE", target: target, headers: [], body: [])
        }
        if !(200..<300).contains(response.status) { throw DatabaseError(response.text, status: response.status) }
    }
}
