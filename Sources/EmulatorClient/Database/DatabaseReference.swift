import EmulatorModel
import EmulatorSupport
import Synchronization
public import Foundation

/// A location in the Realtime Database: read it, write it, observe it.
///
/// ```swift
/// let key = try #require(ref.child("posts").childByAutoId().key)
/// try await ref.updateChildValues(["/posts/\(key)": post, "/user-posts/\(uid)/\(key)": post])
/// ```
public final class DatabaseReference: DatabaseQuery, @unchecked Sendable, CustomStringConvertible {
    // Safe: adds no stored properties.

    init(database: Database, path: [String]) {
        super.init(database: database, path: path, params: DatabaseQueryParams())
    }

    static func split(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// The last key, nil at the root.
    public var key: String? { path.last }
    public var parent: DatabaseReference? { path.isEmpty ? nil : DatabaseReference(database: database, path: Array(path.dropLast())) }
    public var root: DatabaseReference { DatabaseReference(database: database, path: []) }
    public func child(_ pathString: String) -> DatabaseReference {
        DatabaseReference(database: database, path: path + DatabaseReference.split(pathString))
    }
    /// A child with a new push id (time-ordered, 20 characters); nothing is written yet.
    public func childByAutoId() -> DatabaseReference { child(database.pushIDs.next()) }

    public var url: String {
        let a = database.address
        return "http://\(a.host):\(a.port)/" + path.joined(separator: "/")
    }
    public var description: String { url }

    // MARK: writes (async forms; the synchronous and completion forms are in DatabaseReference+Completion.swift)

    /// Replaces the value here (nil deletes). Observers of this instance see it at once; returns
    /// when the server has applied the write.
    @discardableResult
    public func setValue(_ value: Any?) async throws -> DatabaseReference {
        try await write("p", path: path, body: try DatabaseValue.json(value))
        return self
    }

    /// Replaces the value and sets its priority (`String`, number or nil).
    @discardableResult
    public func setValue(_ value: Any?, andPriority priority: Any?) async throws -> DatabaseReference {
        try await write("p", path: path, body: try DatabaseReference.withPriority(value, priority))
        return self
    }

    static func withPriority(_ value: Any?, _ priority: Any?) throws(DatabaseError) -> JSONValue {
        let v = try DatabaseValue.json(value)
        let p = try DatabaseValue.json(priority)
        if case .object(var members) = v {
            members.append(JSONMember(".priority", p))
            return .object(members)
        }
        return .object([JSONMember(".value", v), JSONMember(".priority", p)])
    }

    /// Encodes `value` with `JSONEncoder` (keys as properties) and writes it. Synchronous, as in
    /// the Apple SDK: encoding errors are thrown at once, the write is queued, and `completion`
    /// (on the callback queue) gets the server's answer.
    public func setValue<T: Encodable>(
        from value: T, encoder: JSONEncoder = JSONEncoder(), completion: (((any Error)?) -> Void)? = nil
    ) throws {
        let json = try DatabaseReference.encode(value, encoder: encoder)
        enqueue("p", path: path, body: .success(json)) { error, _ in completion?(error) }
    }

    static func encode<T: Encodable>(_ value: T, encoder: JSONEncoder) throws -> JSONValue {
        let data = try encoder.encode(value)
        do { return try JSONReader.parse([UInt8](data)) } catch { throw DatabaseError("Encoder produced invalid JSON") }
    }

    @discardableResult
    public func setPriority(_ priority: Any?) async throws -> DatabaseReference {
        try await write("p", path: path + [".priority"], body: try DatabaseValue.json(priority))
        return self
    }

    /// Writes each key (a relative path, `/` allowed) without touching siblings; all or nothing.
    @discardableResult
    public func updateChildValues(_ values: [AnyHashable: Any]) async throws -> DatabaseReference {
        try await write("m", path: path, body: try DatabaseReference.patchBody(values))
        return self
    }

    static func patchBody(_ values: [AnyHashable: Any]) throws(DatabaseError) -> JSONValue {
        var members: [JSONMember] = []
        for (k, v) in values {
            guard let keyText = k.base as? String else { throw DatabaseError("updateChildValues keys must be strings") }
            let key = split(keyText).joined(separator: "/")
            members.append(JSONMember(key, try DatabaseValue.json(v)))
        }
        return .object(members)
    }

    @discardableResult
    public func removeValue() async throws -> DatabaseReference {
        try await write("p", path: path, body: .null)
        return self
    }

    /// Sends one write (`p` set, `m` merge) behind this database's earlier writes and waits for the server.
    private func write(_ action: String, path: [String], body: JSONValue) async throws {
        if let error = database.configurationError { throw error }
        let connection = database.connection
        _ = try await withCheckedThrowingContinuation { continuation in
            connection.write(action, path: path, data: body) { continuation.resume(with: $0) }
        }
    }

    /// Queues one write; `block` runs on the callback queue with nil or the error.
    func enqueue(
        _ action: String, path: [String], body: Result<JSONValue, DatabaseError>,
        _ block: (((any Error)?, DatabaseReference) -> Void)?
    ) {
        let ref = self
        let callback = block.map { UserCallback($0) }
        let report: @Sendable ((any Error)?) -> Void = { error in
            if let callback { ref.database.callbackQueue.deliver { callback.call(error, ref) } }
        }
        if let error = database.configurationError { return report(error) }
        switch body {
        case .failure(let error): report(error)
        case .success(let json):
            database.connection.write(action, path: path, data: json) { result in
                switch result {
                case .success: report(nil)
                case .failure(let error): report(error)
                }
            }
        }
    }

    // MARK: transactions

    /// Runs `block` on the current value and writes its result only if the value did not change
    /// meanwhile (the wire protocol's compare-and-set: the write carries the hash of the value the
    /// block saw, and the server refuses it with `datastale` if the value differs); on a conflict
    /// the block runs again with the newer value, up to 25 times. Returns whether it committed
    /// and the final data. The read goes out after the writes made before the call. Observers
    /// see each attempt's value at once (local events), taken back if the server refuses it.
    public func runTransactionBlock(
        _ block: @escaping (MutableData) -> TransactionResult
    ) async throws -> (Bool, DataSnapshot) {
        let callback = UserCallback(block)
        return try await withCheckedThrowingContinuation { continuation in
            transact(callback, attempt: 0, localEvents: true) { continuation.resume(with: $0) }
        }
    }

    /// One attempt: read the server's value (`g`; the first attempt uses the cached server value
    /// when a listen holds it, running the block at once), run the block on the transaction
    /// queue, send `p` with the read value's hash; `datastale` starts the next attempt. With
    /// `localEvents`, the proposed value is a local write while its `p` is unanswered.
    func transact(
        _ block: UserCallback<(MutableData) -> TransactionResult>, attempt: Int, localEvents: Bool,
        _ done: @escaping @Sendable (Result<(Bool, DataSnapshot), DatabaseError>) -> Void
    ) {
        if let error = database.configurationError { return done(.failure(error)) }
        guard attempt < 25 else { return done(.failure(DatabaseError("The transaction was retried too many times", status: 412))) }
        let ref = self
        // The first attempt keeps the transaction's place among the writes: with the server's
        // value cached (a complete listen), its `p` goes out now, before any later write.
        if attempt == 0, let cached = database.connection.cachedServerValue(path: path) {
            return attemptWith(cached, block, attempt: 0, localEvents: localEvents, done)
        }
        database.connection.read(path: path, params: DatabaseQueryParams(), serverOnly: true) { result in
            let current: DatabaseNode
            switch result {
            case .failure(let error): return done(.failure(error))
            case .success(let node): current = node
            }
            ref.database.transactionQueue.async {
                ref.attemptWith(current, block, attempt: attempt, localEvents: localEvents, done)
            }
        }
    }

    /// Runs the block on `current` and sends its result with `current`'s hash.
    private func attemptWith(
        _ current: DatabaseNode, _ block: UserCallback<(MutableData) -> TransactionResult>, attempt: Int, localEvents: Bool,
        _ done: @escaping @Sendable (Result<(Bool, DataSnapshot), DatabaseError>) -> Void
    ) {
        let ref = self
        let mutable = MutableData(storage: MutableData.Storage(current), path: [])
        guard let proposed = block.call(mutable).data?.storage.node else {
            return done(.success((false, DataSnapshot(ref: ref, node: current))))
        }
        let data = proposed.json(export: true)
        let reply: @Sendable (Result<JSONValue, any Error>) -> Void = { reply in
            switch reply {
            case .success: done(.success((true, DataSnapshot(ref: ref, node: proposed))))
            case .failure(let error as DatabaseError) where error.wireStatus == "datastale":
                ref.transact(block, attempt: attempt + 1, localEvents: localEvents, done)
            case .failure(let error): done(.failure((error as? DatabaseError) ?? DatabaseError("\(error)")))
            }
        }
        if localEvents {
            ref.database.connection.write("p", path: ref.path, data: data, hash: current.hash, complete: reply)
        } else {
            let body = JSONValue.object([JSONMember("p", ref.wirePath), JSONMember("d", data), JSONMember("h", .string(current.hash))])
            ref.database.connection.request("p", body, complete: reply)
        }
    }

    // MARK: onDisconnect

    /// The location as the wire protocol spells it (`/users/ada`, `/` at the root).
    var wirePath: JSONValue { .string("/" + path.joined(separator: "/")) }

    private func onDisconnect(_ action: String, _ data: JSONValue) async throws {
        if let error = database.configurationError { throw error }
        _ = try await database.connection.request(action, .object([JSONMember("p", wirePath), JSONMember("d", data)]))
    }

    /// Asks the server to write `value` here when this client's connection closes (`goOffline()`,
    /// the process ending or crashing, the network dropping). Returns once the server queued it;
    /// rules are checked now, so a write they refuse throws "Permission denied".
    ///
    /// ```swift
    /// try await db.reference(withPath: "status/\(uid)").onDisconnectSetValue("offline")
    /// ```
    public func onDisconnectSetValue(_ value: Any?) async throws {
        try await onDisconnect("o", try DatabaseValue.json(value))
    }

    /// As ``onDisconnectSetValue(_:)``, also setting the priority.
    public func onDisconnectSetValue(_ value: Any?, andPriority priority: Any?) async throws {
        try await onDisconnect("o", try DatabaseReference.withPriority(value, priority))
    }

    /// Asks the server to delete this location when the connection closes.
    public func onDisconnectRemoveValue() async throws {
        try await onDisconnect("o", .null)
    }

    /// Asks the server to apply `values` (relative paths, `/` allowed) here when the connection closes.
    public func onDisconnectUpdateChildValues(_ values: [AnyHashable: Any]) async throws {
        try await onDisconnect("om", try DatabaseReference.patchBody(values))
    }

    /// Drops this client's queued onDisconnect operations at or below this location.
    public func cancelDisconnectOperations() async throws {
        try await onDisconnect("oc", .null)
    }
}
