import EmulatorSupport
import Foundation

/// The writes in the Apple SDK's synchronous shapes: fire-and-forget and with a completion
/// block. Writes of one `Database` reach the server in the order they were made; blocks run on
/// its callback queue once the server applied (or refused) the write.
extension DatabaseReference {
    public func setValue(_ value: Any?) {
        setValue(value, withCompletionBlock: nil)
    }

    public func setValue(_ value: Any?, withCompletionBlock block: (((any Error)?, DatabaseReference) -> Void)?) {
        enqueue("p", path: path, body: Result { () throws(DatabaseError) in try DatabaseValue.json(value) }, block)
    }

    public func setValue(_ value: Any?, andPriority priority: Any?) {
        setValue(value, andPriority: priority, withCompletionBlock: nil)
    }

    public func setValue(
        _ value: Any?, andPriority priority: Any?, withCompletionBlock block: (((any Error)?, DatabaseReference) -> Void)?
    ) {
        enqueue(
            "p", path: path, body: Result { () throws(DatabaseError) in try DatabaseReference.withPriority(value, priority) },
            block)
    }

    public func setPriority(_ priority: Any?) {
        setPriority(priority, withCompletionBlock: nil)
    }

    public func setPriority(_ priority: Any?, withCompletionBlock block: (((any Error)?, DatabaseReference) -> Void)?) {
        enqueue("p", path: path + [".priority"], body: Result { () throws(DatabaseError) in try DatabaseValue.json(priority) }, block)
    }

    public func updateChildValues(_ values: [AnyHashable: Any]) {
        updateChildValues(values, withCompletionBlock: nil)
    }

    public func updateChildValues(
        _ values: [AnyHashable: Any], withCompletionBlock block: (((any Error)?, DatabaseReference) -> Void)?
    ) {
        enqueue("m", path: path, body: Result { () throws(DatabaseError) in try DatabaseReference.patchBody(values) }, block)
    }

    public func removeValue() {
        removeValue(completionBlock: nil)
    }

    public func removeValue(completionBlock block: (((any Error)?, DatabaseReference) -> Void)?) {
        enqueue("p", path: path, body: .success(.null), block)
    }

    // MARK: transactions

    /// Queues the transaction (see the `async` form); the result is not reported.
    public func runTransactionBlock(_ block: @escaping (MutableData) -> TransactionResult) {
        runTransactionBlock(block, andCompletionBlock: { _, _, _ in })
    }

    /// Starts the transaction (see the `async` form: `block` may run several times, the first
    /// time at once on the calling thread when an observer holds the location's value, later on
    /// the database's transaction queue); `completion` gets the error, whether it committed, and
    /// the final data, on the callback queue.
    public func runTransactionBlock(
        _ block: @escaping (MutableData) -> TransactionResult,
        andCompletionBlock completion: @escaping ((any Error)?, Bool, DataSnapshot?) -> Void
    ) {
        runTransactionBlock(block, andCompletionBlock: completion, withLocalEvents: true)
    }

    /// As ``runTransactionBlock(_:andCompletionBlock:)``; with `withLocalEvents` false, observers
    /// see the transaction's value only once the server applied it.
    public func runTransactionBlock(
        _ block: @escaping (MutableData) -> TransactionResult,
        andCompletionBlock completion: @escaping ((any Error)?, Bool, DataSnapshot?) -> Void,
        withLocalEvents: Bool
    ) {
        let ref = self
        let callback = UserCallback(completion)
        transact(UserCallback(block), attempt: 0, localEvents: withLocalEvents) { result in
            ref.database.callbackQueue.deliver {
                switch result {
                case .success(let (committed, snapshot)): callback.call(nil, committed, snapshot)
                case .failure(let error): callback.call(error, false, nil)
                }
            }
        }
    }
}

/// The onDisconnect calls in the Apple SDK's synchronous shapes. Blocks run on the callback
/// queue once the server queued (or refused) the operation.
extension DatabaseReference {
    public func onDisconnectSetValue(_ value: Any?) {
        onDisconnectSetValue(value, withCompletionBlock: nil)
    }

    public func onDisconnectSetValue(_ value: Any?, withCompletionBlock block: (((any Error)?, DatabaseReference) -> Void)?) {
        onDisconnect("o", Result { () throws(DatabaseError) in try DatabaseValue.json(value) }, block)
    }

    public func onDisconnectSetValue(_ value: Any?, andPriority priority: Any?) {
        onDisconnectSetValue(value, andPriority: priority, withCompletionBlock: nil)
    }

    public func onDisconnectSetValue(
        _ value: Any?, andPriority priority: Any?, withCompletionBlock block: (((any Error)?, DatabaseReference) -> Void)?
    ) {
        onDisconnect("o", Result { () throws(DatabaseError) in try DatabaseReference.withPriority(value, priority) }, block)
    }

    public func onDisconnectUpdateChildValues(_ values: [AnyHashable: Any]) {
        onDisconnectUpdateChildValues(values, withCompletionBlock: nil)
    }

    public func onDisconnectUpdateChildValues(
        _ values: [AnyHashable: Any], withCompletionBlock block: (((any Error)?, DatabaseReference) -> Void)?
    ) {
        onDisconnect("om", Result { () throws(DatabaseError) in try DatabaseReference.patchBody(values) }, block)
    }

    public func onDisconnectRemoveValue() {
        onDisconnectRemoveValue(completionBlock: nil)
    }

    public func onDisconnectRemoveValue(completionBlock block: (((any Error)?, DatabaseReference) -> Void)?) {
        onDisconnect("o", .success(.null), block)
    }

    public func cancelDisconnectOperations() {
        cancelDisconnectOperations(completionBlock: nil)
    }

    public func cancelDisconnectOperations(completionBlock block: (((any Error)?, DatabaseReference) -> Void)?) {
        onDisconnect("oc", .success(.null), block)
    }

    private func onDisconnect(
        _ action: String, _ data: Result<JSONValue, DatabaseError>, _ block: (((any Error)?, DatabaseReference) -> Void)?
    ) {
        let ref = self
        let callback = block.map { UserCallback($0) }
        let report: @Sendable ((any Error)?) -> Void = { error in
            if let callback { ref.database.callbackQueue.deliver { callback.call(error, ref) } }
        }
        if let error = database.configurationError { return report(error) }
        let body: JSONValue
        switch data {
        case .success(let d): body = d
        case .failure(let error): return report(error)
        }
        database.connection.request(action, .object([JSONMember("p", wirePath), JSONMember("d", body)])) { result in
            switch result {
            case .success: report(nil)
            case .failure(let error): report(error)
            }
        }
    }
}

extension DatabaseQuery {
    /// Reads the current value; `completion` runs on the callback queue.
    public func getData(completion: @escaping ((any Error)?, DataSnapshot?) -> Void) {
        let query = self
        let callback = UserCallback(completion)
        query.read { result in
            query.database.callbackQueue.deliver {
                switch result {
                case .success(let snapshot): callback.call(nil, snapshot)
                case .failure(let error): callback.call(error, nil)
                }
            }
        }
    }

    /// Events of `eventType` as an async sequence; ending the iteration removes the observer.
    ///
    /// ```swift
    /// for await snapshot in ref.snapshots(of: .value) { print(snapshot.value ?? "none") }
    /// ```
    public func snapshots(of eventType: DataEventType) -> AsyncStream<DataSnapshot> {
        AsyncStream { continuation in
            let handle = observe(eventType, with: { continuation.yield($0) }, withCancel: { _ in continuation.finish() })
            let query = self
            continuation.onTermination = { _ in query.removeObserver(withHandle: handle) }
        }
    }
}
