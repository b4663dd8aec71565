import EmulatorModel
import EmulatorSupport
import Foundation
import Synchronization

/// A Firestore database reached over the emulator's REST API.
///
/// ```swift
/// FirebaseApp.configure(options: FirebaseOptions(projectID: "demo-books"))   // or GCLOUD_PROJECT
/// let db = Firestore.firestore()
/// db.useEmulator(withHost: "127.0.0.1", port: 8080)                          // or FIRESTORE_EMULATOR_HOST
/// try db.collection("books").document("hitchhiker").setData(from: book)
/// ```
public final class Firestore: Sendable, Hashable {
    public let projectID: String
    public let databaseID: String
    private let endpoint: Mutex<(host: String, port: Int)>
    private let clients = Mutex<HTTPClient?>(nil)
    private let credential = Mutex("owner")
    /// Why this instance cannot talk to a database (nothing names the project); every call throws it.
    let configurationError: FirestoreError?
    /// Runs writes one at a time in the order they were made; reads wait for the writes made before them.
    let writeQueue = OrderedWork(label: "EmulatorClient.Firestore.writes")
    /// Writes shown to this instance's listeners before the server confirms them.
    let localWrites = LocalWriteTable()
    /// Runs completion blocks and listener callbacks one at a time, like the Apple SDK's callback queue.
    let callbackQueue = CallbackQueue(label: "EmulatorClient.Firestore.callbacks")
    /// Commits whose answer is to be lost after the server applied them (``loseAnswers(ofNextCommits:)``).
    private let answersToLose = Atomic<Int>(0)

    /// A database; the emulator address comes from `FIRESTORE_EMULATOR_HOST` (`host:port`) when set,
    /// else `127.0.0.1:8080`, until ``useEmulator(withHost:port:)`` changes it.
    public init(projectID: String, database: String = "(default)") {
        self.projectID = projectID
        self.databaseID = database
        self.configurationError = nil
        let address = EmulatorEnvironment.firestoreHost ?? ("127.0.0.1", 8080)
        endpoint = Mutex((address.host, address.port))
    }

    private init(unconfigured error: FirestoreError, database: String) {
        self.projectID = ""
        self.databaseID = database
        self.configurationError = error
        let address = EmulatorEnvironment.firestoreHost ?? ("127.0.0.1", 8080)
        endpoint = Mutex((address.host, address.port))
    }

    /// A new instance; the same as `Firestore(projectID:database:)`.
    public static func firestore(projectID: String, database: String = "(default)") -> Firestore {
        Firestore(projectID: projectID, database: database)
    }

    /// The default app's database: the project of ``FirebaseApp/configure(options:)``, else of
    /// `GCLOUD_PROJECT`. Every call returns the same instance. Without a project the instance
    /// is made, and every operation on it fails with a `failedPrecondition` error saying what is missing.
    public static func firestore() -> Firestore { firestore(database: "(default)") }

    /// A named database of the default app.
    public static func firestore(database: String) -> Firestore {
        if let app = FirebaseApp.app() { return firestore(app: app, database: database) }
        return DefaultInstances.firestore(app: FirebaseApp.defaultName, database: database) {
            if let project = EmulatorEnvironment.projectID { return Firestore(projectID: project, database: database) }
            return Firestore(
                unconfigured: FirestoreError(
                    .failedPrecondition,
                    "Firestore.firestore() has no project ID: call FirebaseApp.configure(options:) with "
                        + "FirebaseOptions.projectID set, or set GCLOUD_PROJECT"),
                database: database)
        }
    }

    /// The database of `app` (its `options.projectID`).
    public static func firestore(app: FirebaseApp, database: String = "(default)") -> Firestore {
        DefaultInstances.firestore(app: app.name, database: database) {
            if let project = app.options.projectID ?? EmulatorEnvironment.projectID {
                return Firestore(projectID: project, database: database)
            }
            return Firestore(
                unconfigured: FirestoreError(
                    .failedPrecondition,
                    "Firestore.firestore(app:) has no project ID: the app \"\(app.name)\" has no "
                        + "FirebaseOptions.projectID and GCLOUD_PROJECT is not set"),
                database: database)
        }
    }

    /// Points this instance at an emulator.
    public func useEmulator(withHost host: String, port: Int) {
        endpoint.withLock { $0 = (host, port) }
        clients.withLock { $0 = nil }
    }

    /// The credential of every later request (an emulator extension; the SDK takes it from
    /// Firebase Auth): an ID token whose claims become the rules' `request.auth`, or nil for the
    /// admin credential `owner` (the default), which bypasses the rules.
    public func setAuthToken(_ token: String?) {
        let value = token.flatMap { $0.isEmpty ? nil : $0 } ?? "owner"
        credential.withLock { $0 = value }
        clients.withLock { $0 = nil }
    }

    public static func == (a: Firestore, b: Firestore) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// `projects/{p}/databases/{d}`.
    var databaseName: String { "projects/\(projectID)/databases/\(databaseID)" }
    var documentsName: String { databaseName + "/documents" }

    public func collection(_ path: String) -> CollectionReference {
        CollectionReference(firestore: self, path: Firestore.normalize(path))
    }

    public func document(_ path: String) -> DocumentReference {
        DocumentReference(firestore: self, path: Firestore.normalize(path))
    }

    /// Every collection named `collectionID`, at any depth.
    public func collectionGroup(_ collectionID: String) -> Query {
        Query(firestore: self, description: QueryDescription(parentPath: "", collectionID: collectionID, allDescendants: true))
    }

    public func batch() -> WriteBatch { WriteBatch(firestore: self) }

    static func normalize(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }

    // MARK: transport

    /// Where requests go now.
    var address: (host: String, port: Int) { endpoint.withLock { $0 } }

    /// `Bearer <credential>`, as REST and gRPC calls send it.
    var authorizationHeader: String { "Bearer " + credential.withLock { $0 } }

    private var client: HTTPClient {
        clients.withLock { c in
            if let c { return c }
            let e = endpoint.withLock { $0 }
            let token = credential.withLock { $0 }
            let made = HTTPClient(host: e.host, port: e.port, headers: [("Authorization", "Bearer " + token)])
            c = made
            return made
        }
    }

    /// Percent-encodes a resource path for a URL (segments keep their slashes).
    static func urlPath(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"), UInt8(ascii: "/"), UInt8(ascii: "("), UInt8(ascii: ")"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }

    /// Calls the REST API; returns the parsed JSON body or throws the mapped error.
    func call(_ method: String, _ target: String, body: JSONValue? = nil) throws(FirestoreError) -> JSONValue {
        if let configurationError { throw configurationError }
        let bytes = body.map { JSONWriter.encode($0) } ?? []
        let response: HTTPClientResponse
        do {
            response = try client.send(
                method: method, target: target,
                headers: body == nil ? [] : [("Content-Type", "application/json")], body: bytes)
        } catch {
            var failure = FirestoreError(.unavailable, "Could not reach the Firestore emulator: \(error.description)")
            failure.isUnreachable = true
            throw failure
        }
        if target.hasSuffix(":commit"), answersToLose.load(ordering: .relaxed) > 0,
            answersToLose.subtract(1, ordering: .relaxed).newValue >= 0
        {
            var failure = FirestoreError(.unavailable, "The answer of the commit was lost (simulated)")
            failure.isUnreachable = true
            throw failure
        }
        let json: JSONValue
        do {
            json = response.body.isEmpty ? .object([]) : try JSONReader.parse(response.body)
        } catch {
            throw FirestoreError(.internal, "Unparseable response (HTTP \(response.status))")
        }
        if response.status >= 300 {
            var errorJSON = json[member: "error"]
            if errorJSON == nil, case .array(let items) = json, let first = items.first { errorJSON = first[member: "error"] }
            var code = FirestoreErrorCode.unknown
            var message = "HTTP \(response.status)"
            if case .string(let s)? = errorJSON?[member: "status"] { code = FirestoreErrorCode(name: s) }
            if case .string(let m)? = errorJSON?[member: "message"] { message = m }
            throw FirestoreError(code, message)
        }
        return json
    }

    /// Makes the next `count` commits lose their answer after the server applied them, as a
    /// connection dropped at that moment would: the retries after a lost answer. For tests.
    package func loseAnswers(ofNextCommits count: Int) {
        answersToLose.store(count, ordering: .relaxed)
    }
}
