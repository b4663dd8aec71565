public import EmulatorClient
import EmulatorSuite
import Foundation

/// The emulators a test environment starts.
public struct EmulatorServices: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let firestore = EmulatorServices(rawValue: 1)
    public static let database = EmulatorServices(rawValue: 2)
    public static let all: EmulatorServices = [.firestore, .database]
}

/// A running in-process emulator suite for a package's own tests: free ports, rules, seed data,
/// configured client instances, and clearing between tests — without spawning the binary.
///
/// ```swift
/// import EmulatorTesting
/// import Testing
///
/// @Test func booksAreStored() async throws {
///     try await withEmulators(firestoreRules: "rules_version = '2'; service cloud.firestore { … }") { env in
///         let db = env.firestore()
///         try await env.seed(firestore: ["books/hitchhiker": ["title": "The Hitchhiker's Guide to the Galaxy"]])
///         let book = try await db.document("books/hitchhiker").getDocument()
///         #expect(book.get("title") as? String == "The Hitchhiker's Guide to the Galaxy")
///     }
/// }
/// ```
public final class EmulatorTestEnvironment: Sendable {
    public let projectID: String
    /// The Firestore emulator's port (nil when not started).
    public let firestorePort: Int?
    /// The Realtime Database emulator's port (nil when not started).
    public let databasePort: Int?
    /// The default Realtime Database namespace, `<projectID>-default-rtdb`.
    public var databaseNamespace: String { projectID + "-default-rtdb" }
    /// `http://127.0.0.1:<port>?ns=<namespace>` (nil without the database emulator).
    public var databaseURL: String? { databasePort.map { "http://127.0.0.1:\($0)?ns=\(databaseNamespace)" } }

    /// Firestore instances made here (admin), used for seeding and clearing.
    private let admin: Firestore?
    private let adminDatabase: Database?

    init(projectID: String, firestorePort: Int?, databasePort: Int?) {
        self.projectID = projectID
        self.firestorePort = firestorePort
        self.databasePort = databasePort
        admin = firestorePort.map { port in
            let db = Firestore(projectID: projectID)
            db.useEmulator(withHost: "127.0.0.1", port: port)
            return db
        }
        adminDatabase = databasePort.map { port in Database(url: "http://127.0.0.1:\(port)?ns=\(projectID)-default-rtdb") }
    }

    /// A new Firestore instance pointed at this suite; with `authToken` (an ID token, signed or
    /// not) the rules see that user, without it the instance is the admin and bypasses the rules.
    public func firestore(authToken: String? = nil) -> Firestore {
        let db = Firestore(projectID: projectID)
        if let firestorePort { db.useEmulator(withHost: "127.0.0.1", port: firestorePort) }
        db.setAuthToken(authToken)
        return db
    }

    /// A new Realtime Database instance for the default namespace (see ``firestore(authToken:)``).
    public func database(authToken: String? = nil) -> Database {
        let db = Database(url: databaseURL ?? "http://127.0.0.1:9000?ns=\(databaseNamespace)")
        db.setAuthToken(authToken)
        return db
    }

    /// Points the default instances (`Firestore.firestore()`, `Database.database()`) at this
    /// suite, for code under test that uses them. Configures the default app with this project
    /// when none is configured yet.
    public func connectDefaultInstances() {
        FirebaseApp.configure(options: FirebaseOptions(projectID: projectID, databaseURL: databaseURL))
        if let firestorePort { Firestore.firestore().useEmulator(withHost: "127.0.0.1", port: firestorePort) }
        if let databasePort { Database.database().useEmulator(withHost: "127.0.0.1", port: databasePort) }
    }

    /// Replaces the Firestore rules (the `firestore.rules` language).
    public func loadFirestoreRules(_ source: String) async throws {
        try await requireFirestore().loadEmulatorRules(source)
    }

    /// Replaces the Realtime Database rules of the default namespace (`{"rules": {…}}`).
    public func loadDatabaseRules(_ json: String) async throws {
        try await requireDatabase().loadEmulatorRules(json)
    }

    /// Writes documents (path → fields) as the admin, bypassing the rules, in one batch.
    public func seed(firestore documents: [String: [String: Any]]) async throws {
        let db = try requireFirestore()
        let batch = db.batch()
        for (path, fields) in documents { batch.setData(fields, forDocument: db.document(path)) }
        try await batch.commit()
    }

    /// Writes `value` at `path` of the default namespace as the admin, bypassing the rules.
    public func seed(database value: Any, at path: String = "/") async throws {
        try await requireDatabase().reference(withPath: path).setValue(value)
    }

    /// Deletes every Firestore document of the project.
    public func clearFirestore() async throws { try await requireFirestore().clearEmulatorData() }

    /// Deletes everything in the default Realtime Database namespace.
    public func clearDatabase() async throws { try await requireDatabase().clearEmulatorData() }

    /// Clears every emulator this environment started.
    public func clearAll() async throws {
        if admin != nil { try await clearFirestore() }
        if adminDatabase != nil { try await clearDatabase() }
    }

    private func requireFirestore() throws -> Firestore {
        guard let admin else { throw EmulatorTestError("this environment did not start the Firestore emulator") }
        return admin
    }

    private func requireDatabase() throws -> Database {
        guard let adminDatabase else { throw EmulatorTestError("this environment did not start the Realtime Database emulator") }
        return adminDatabase
    }
}

/// A test environment used for something it was not started with.
public struct EmulatorTestError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Starts the emulators in this process on free ports, loads the rules, runs `body`, and stops
/// them however `body` ends. Environments are independent, so tests may run in parallel.
public func withEmulators<Result>(
    projectID: String = "demo-test", services: EmulatorServices = .all,
    firestoreRules: String? = nil, databaseRules: String? = nil,
    _ body: (EmulatorTestEnvironment) async throws -> Result
) async throws -> Result {
    var kinds: Set<EmulatorKind> = []
    if services.contains(.firestore) { kinds.insert(.firestore) }
    if services.contains(.database) { kinds.insert(.database) }
    return try await withSuite(.ephemeral(projectId: projectID, kinds: kinds)) { suite in
        let environment = EmulatorTestEnvironment(
            projectID: projectID, firestorePort: suite.port(of: .firestore), databasePort: suite.port(of: .database))
        if let firestoreRules { try await environment.loadFirestoreRules(firestoreRules) }
        if let databaseRules { try await environment.loadDatabaseRules(databaseRules) }
        return try await body(environment)
    }
}
