import EmulatorModel
import EmulatorSupport
import Synchronization

/// The kinds of events an observer can listen to.
public enum DataEventType: Int, Sendable {
    case childAdded = 0, childRemoved, childChanged, childMoved, value
}

/// An observer's id, for `removeObserver(withHandle:)`.
public typealias DatabaseHandle = UInt

/// A location with an ordering and window.
///
/// ```swift
/// let top = ref.child("scores").queryOrderedByValue().queryLimited(toLast: 3)
/// let snapshot = try await top.getData()
/// for child in snapshot.children { print(child.key ?? "", child.value ?? "") }
/// ```
public class DatabaseQuery: @unchecked Sendable {
    // Safe: all stored properties are immutable `let`s of Sendable types.
    public let database: Database
    let path: [String]
    let params: DatabaseQueryParams

    init(database: Database, path: [String], params: DatabaseQueryParams) {
        self.database = database
        self.path = path
        self.params = params
    }

    /// The location this query reads.
    public var ref: DatabaseReference { DatabaseReference(database: database, path: path) }

    private func with(_ change: (inout DatabaseQueryParams) -> Void) -> DatabaseQuery {
        var p = params
        change(&p)
        return DatabaseQuery(database: database, path: path, params: p)
    }

    public func queryOrderedByKey() -> DatabaseQuery { with { $0.index = .key; $0.ordered = true } }
    public func queryOrderedByValue() -> DatabaseQuery { with { $0.index = .value; $0.ordered = true } }
    public func queryOrderedByPriority() -> DatabaseQuery { with { $0.index = .priority; $0.ordered = true } }
    public func queryOrdered(byChild key: String) -> DatabaseQuery {
        with { $0.index = .child(DatabasePath(keys: DatabaseReference.split(key))); $0.ordered = true }
    }
    public func queryLimited(toFirst limit: UInt) -> DatabaseQuery { with { $0.limit = .first(Int(limit)) } }
    public func queryLimited(toLast limit: UInt) -> DatabaseQuery { with { $0.limit = .last(Int(limit)) } }

    private func bound(_ value: Any?) -> JSONValue { (try? DatabaseValue.json(value)) ?? .null }
    public func queryStarting(atValue value: Any?, childKey: String? = nil) -> DatabaseQuery {
        let v = bound(value)
        return with { $0.start = .init(value: v, key: childKey, inclusive: true) }
    }
    public func queryStarting(afterValue value: Any?, childKey: String? = nil) -> DatabaseQuery {
        let v = bound(value)
        return with { $0.start = .init(value: v, key: childKey, inclusive: false) }
    }
    public func queryEnding(atValue value: Any?, childKey: String? = nil) -> DatabaseQuery {
        let v = bound(value)
        return with { $0.end = .init(value: v, key: childKey, inclusive: true) }
    }
    public func queryEnding(beforeValue value: Any?, childKey: String? = nil) -> DatabaseQuery {
        let v = bound(value)
        return with { $0.end = .init(value: v, key: childKey, inclusive: false) }
    }
    public func queryEqual(toValue value: Any?, childKey: String? = nil) -> DatabaseQuery {
        let v = bound(value)
        return with {
            $0.start = .init(value: v, key: childKey, inclusive: true)
            $0.end = .init(value: v, key: childKey, inclusive: true)
        }
    }

    /// Reads the current value from the server (after this instance's earlier writes, which
    /// travel before it on the same connection). Offline, the data an observer or `keepSynced`
    /// holds answers; without it the read fails "Client is offline." after 3 s.
    public func getData() async throws -> DataSnapshot {
        let query = self
        return try await withCheckedThrowingContinuation { continuation in
            query.read { continuation.resume(with: $0) }
        }
    }

    /// Reads on the connection; `complete` runs on the connection's thread.
    func read(_ complete: @escaping @Sendable (Result<DataSnapshot, DatabaseError>) -> Void) {
        if let error = database.configurationError { return complete(.failure(error)) }
        let ref = self.ref
        let params = self.params
        if isInfoConnected { return complete(.success(DataSnapshot(ref: ref, node: .leaf(.bool(database.connection.isConnected))))) }
        database.connection.read(path: path, params: params) { result in
            complete(result.map { DataSnapshot(ref: ref, node: $0, params: params) })
        }
    }

    /// Keeps this query's data listened and cached while no observer needs it, so offline reads
    /// can answer from it.
    public func keepSynced(_ keepSynced: Bool) {
        guard !isInfoConnected else { return }
        database.connection.keepSynced(DatabaseListenKey(path: path, params: params.listenParams), keepSynced)
    }

    /// `.info/connected`: whether the Database's WebSocket connection is open.
    var isInfoConnected: Bool { path == [".info", "connected"] }

    static func node(_ json: JSONValue) throws(DatabaseError) -> DatabaseNode {
        do {
            return try DatabaseNode(json: json)
        } catch {
            throw DatabaseError(error.message)
        }
    }

    static func node(_ body: [UInt8]) throws(DatabaseError) -> DatabaseNode {
        do {
            return try DatabaseNode(json: try JSONReader.parse(body))
        } catch let e as EmulatorError {
            throw DatabaseError(e.message)
        } catch {
            throw DatabaseError("Unparseable response from the database")
        }
    }

    // MARK: observers

    /// Calls `block` for each event of `eventType` until the observer is removed: `.value` once
    /// with the current data and after every change; child events per child (initial children
    /// arrive as `.childAdded`). Events are derived locally from the listen's data on the
    /// connection, with this instance's unacknowledged writes laid over it (they show at once),
    /// and delivered on the database's callback queue. A dropped connection listens again when
    /// it returns; `cancel` gets a refused or revoked read ("Permission denied"), after which the
    /// observer is gone.
    @discardableResult
    public func observe(
        _ eventType: DataEventType, with block: @escaping (DataSnapshot) -> Void,
        withCancel cancel: ((any Error) -> Void)? = nil
    ) -> DatabaseHandle {
        observe(eventType, andPreviousSiblingKeyWith: { snapshot, _ in block(snapshot) }, withCancel: cancel)
    }

    /// Like ``observe(_:with:withCancel:)``; child events also get the key of the previous
    /// sibling in query order (nil for the first child).
    @discardableResult
    public func observe(
        _ eventType: DataEventType, andPreviousSiblingKeyWith block: @escaping (DataSnapshot, String?) -> Void,
        withCancel cancel: ((any Error) -> Void)? = nil
    ) -> DatabaseHandle {
        let handle = database.nextHandle.add(1, ordering: .relaxed).oldValue
        if isInfoConnected {
            // Local, like the SDKs' `.info/connected`: the state of this Database's WebSocket.
            guard eventType == .value else { return handle }
            let callback = UserCallback(block)
            let ref = self.ref
            let database = self.database
            let stopped = StopFlag()
            let watcher = database.connection.watchConnected { connected in
                database.callbackQueue.deliver {
                    if !stopped.isSet { callback.call(DataSnapshot(ref: ref, node: .leaf(.bool(connected))), nil) }
                }
            }
            database.infoObservers.withLock { $0[handle] = (watcher, stopped) }
            return handle
        }
        let observer = DatabaseObserver(
            query: self, eventType: eventType, block: UserCallback(block), cancel: cancel.map { UserCallback($0) })
        if let error = database.configurationError {
            observer.fail(error)
            return handle
        }
        database.connection.addObserver(handle, observer)
        return handle
    }

    /// Calls `block` once, on the callback queue: with the current value for `.value`, or once
    /// per current child for `.childAdded`. A refused read or an unreachable server goes to `cancel`.
    public func observeSingleEvent(
        of eventType: DataEventType, with block: @escaping (DataSnapshot) -> Void, withCancel cancel: ((any Error) -> Void)? = nil
    ) {
        observeSingleEvent(of: eventType, andPreviousSiblingKeyWith: { snapshot, _ in block(snapshot) }, withCancel: cancel)
    }

    /// As ``observeSingleEvent(of:with:withCancel:)``; child events also get the previous sibling's key.
    public func observeSingleEvent(
        of eventType: DataEventType, andPreviousSiblingKeyWith block: @escaping (DataSnapshot, String?) -> Void,
        withCancel cancel: ((any Error) -> Void)? = nil
    ) {
        let query = self
        let callback = UserCallback(block)
        let cancelCallback = cancel.map { UserCallback($0) }
        query.read { result in
            query.database.callbackQueue.deliver {
                switch result {
                case .success(let snapshot):
                    switch eventType {
                    case .value: callback.call(snapshot, nil)
                    case .childAdded:
                        var previous: String?
                        for child in snapshot.children {
                            callback.call(child, previous)
                            previous = child.key
                        }
                    default: break
                    }
                case .failure(let error): cancelCallback?.call(error)
                }
            }
        }
    }

    public func removeObserver(withHandle handle: DatabaseHandle) {
        if let info = database.infoObservers.withLock({ $0.removeValue(forKey: handle) }) {
            info.stopped.set()
            database.connection.unwatch(info.watcher)
        }
        database.connection.removeObservers(handle: handle)
    }

    /// Removes the observers registered at exactly this location (not those of its children).
    public func removeAllObservers() {
        database.connection.removeObservers(path: path)
        if isInfoConnected {
            let info = database.infoObservers.withLock { all in
                defer { all.removeAll() }
                return Array(all.values)
            }
            for i in info {
                i.stopped.set()
                database.connection.unwatch(i.watcher)
            }
        }
    }
}
