import EmulatorSupport

typealias EmulatorSupportJSON = JSONValue

/// Completion-block forms of the writes and reads, for synchronous callers. Blocks run on a
/// background thread once the server answered.
extension DatabaseReference {
    public func setValue(_ value: Any?, withCompletionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void) {
        let body: EmulatorSupportJSON
        do { body = try DatabaseValue.json(value) } catch {
            block(error, self)
            return
        }
        perform("PUT", body: body, block)
    }

    public func updateChildValues(
        _ values: [String: Any], withCompletionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void
    ) {
        let body: EmulatorSupportJSON
        do { body = try DatabaseReference.patchBody(values) } catch {
            block(error, self)
            return
        }
        perform("PATCH", body: body, block)
    }

    public func removeValue(completionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void) {
        perform("DELETE", body: nil, block)
    }

    private func perform(
        _ method: String, body: EmulatorSupportJSON?, _ block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void
    ) {
        let ref = self
        BackgroundThread.run {
            do {
                _ = try ref.database.send(method, path: ref.path, query: [("print", "silent")], body: body)
                block(nil, ref)
            } catch {
                block(error, ref)
            }
        }
    }
}

/// Completion-block forms of the onDisconnect calls, as the Apple SDK spells them. Blocks run on
/// the connection's thread once the server queued (or refused) the operation.
extension DatabaseReference {
    public func onDisconnectSetValue(
        _ value: Any?, withCompletionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void
    ) {
        let data: EmulatorSupportJSON
        do { data = try DatabaseValue.json(value) } catch {
            block(error, self)
            return
        }
        onDisconnect("o", data, block)
    }

    public func onDisconnectSetValue(
        _ value: Any?, andPriority priority: Any?,
        withCompletionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void
    ) {
        let data: EmulatorSupportJSON
        do { data = try DatabaseReference.withPriority(value, priority) } catch {
            block(error, self)
            return
        }
        onDisconnect("o", data, block)
    }

    public func onDisconnectUpdateChildValues(
        _ values: [String: Any], withCompletionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void
    ) {
        let data: EmulatorSupportJSON
        do { data = try DatabaseReference.patchBody(values) } catch {
            block(error, self)
            return
        }
        onDisconnect("om", data, block)
    }

    public func onDisconnectRemoveValue(completionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void) {
        onDisconnect("o", .null, block)
    }

    public func cancelDisconnectOperations(completionBlock block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void) {
        onDisconnect("oc", .null, block)
    }

    private func onDisconnect(
        _ action: String, _ data: EmulatorSupportJSON, _ block: @escaping @Sendable ((any Error)?, DatabaseReference) -> Void
    ) {
        let ref = self
        database.connection.request(action, .object([JSONMember("p", wirePath), JSONMember("d", data)])) { result in
            switch result {
            case .success: block(nil, ref)
            case .failure(let error): block(error, ref)
            }
        }
    }
}

extension DatabaseQuery {
    /// Reads the current value; `completion` runs on a background thread.
    public func getData(completion: @escaping @Sendable ((any Error)?, DataSnapshot?) -> Void) {
        let query = self
        BackgroundThread.run {
            do { completion(nil, try query.read()) } catch { completion(error, nil) }
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
