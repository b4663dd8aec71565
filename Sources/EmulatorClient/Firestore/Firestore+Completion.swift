/// Write calls in the Apple SDK's three shapes: fire-and-forget from synchronous code, with a
/// completion block (run on the instance's callback queue once the server committed or refused
/// the write), and `async throws`. Writes of one instance reach the server in the order they were made.
extension Firestore {
    /// Queues `writes`; `completion` gets nil once committed, or the error.
    func enqueueCommit(_ writes: Result<[WriteOperation], FirestoreError>, completion: (((any Error)?) -> Void)?) {
        let callback = completion.map { UserCallback($0) }
        writeQueue.enqueue { [self] in
            let outcome: (any Error)?
            do {
                let writes = try writes.get()
                _ = try writeQueue.untilReachable(Firestore.isUnreachable) { try commitNow(writes) }
                outcome = nil
            } catch {
                outcome = error
            }
            if let callback { callbackQueue.deliver { callback.call(outcome) } }
        }
    }

    /// Queues `writes` and waits until the server committed them.
    func commit(_ writes: [WriteOperation]) async throws {
        _ = try await writeQueue.run { try self.writeQueue.untilReachable(Firestore.isUnreachable) { try self.commitNow(writes) } }
    }

    static func isUnreachable(_ error: any Error) -> Bool { (error as? FirestoreError)?.isUnreachable == true }
}

extension DocumentReference {
    /// Replaces the document with `data` (creating it if needed); with `merge`, writes only the given
    /// fields and keeps the others.
    public func setData(_ data: [String: Any], merge: Bool = false, completion: (((any Error)?) -> Void)? = nil) {
        let write = Result { () throws(FirestoreError) in try WriteOperation.set(self, try FieldData.fields(data), merge: merge) }
        firestore.enqueueCommit(write.map { [$0] }, completion: completion)
    }

    /// Writes only `mergeFields` (dotted paths) from `data`, keeping every other field.
    public func setData(_ data: [String: Any], mergeFields: [String], completion: (((any Error)?) -> Void)? = nil) {
        let write = Result { () throws(FirestoreError) in
            try WriteOperation.set(self, try FieldData.fields(data), mergeFields: mergeFields.map(FieldPath.dotted))
        }
        firestore.enqueueCommit(write.map { [$0] }, completion: completion)
    }

    /// Updates the given fields (keys are dotted field paths); fails with NOT_FOUND if the document is missing.
    public func updateData(_ fields: [String: Any], completion: (((any Error)?) -> Void)? = nil) {
        let write = Result { () throws(FirestoreError) in try WriteOperation.update(self, fields) }
        firestore.enqueueCommit(write.map { [$0] }, completion: completion)
    }

    public func delete(completion: (((any Error)?) -> Void)? = nil) {
        firestore.enqueueCommit(.success([WriteOperation.delete(self)]), completion: completion)
    }

    /// Replaces the document with `data` and returns once the server committed it.
    public func setData(_ data: [String: Any]) async throws {
        try await setData(data, merge: false)
    }

    public func setData(_ data: [String: Any], merge: Bool) async throws {
        try await firestore.commit([try WriteOperation.set(self, try FieldData.fields(data), merge: merge)])
    }

    public func setData(_ data: [String: Any], mergeFields: [String]) async throws {
        let write = try WriteOperation.set(self, try FieldData.fields(data), mergeFields: mergeFields.map(FieldPath.dotted))
        try await firestore.commit([write])
    }

    public func updateData(_ fields: [String: Any]) async throws {
        try await firestore.commit([try WriteOperation.update(self, fields)])
    }

    public func delete() async throws {
        try await firestore.commit([WriteOperation.delete(self)])
    }

    /// Encodes `value` and writes it (see ``setData(_:merge:completion:)``). As in the Apple SDK
    /// this is synchronous even inside `async` code: encoding errors are thrown at once, the write
    /// is queued and later reads of this instance see it; `completion` reports the server's answer.
    public func setData<T: Encodable>(
        from value: T, merge: Bool = false, encoder: Firestore.Encoder = .init(),
        completion: (((any Error)?) -> Void)? = nil
    ) throws {
        let write = try WriteOperation.set(self, try encoder.encodeFields(value), merge: merge)
        firestore.enqueueCommit(.success([write]), completion: completion)
    }
}

extension CollectionReference {
    /// Adds a document with a random id and returns its reference at once; the write is queued.
    @discardableResult
    public func addDocument(data: [String: Any], completion: (((any Error)?) -> Void)? = nil) -> DocumentReference {
        let ref = document()
        let write = Result { () throws(FirestoreError) in try WriteOperation.create(ref, try FieldData.fields(data)) }
        firestore.enqueueCommit(write.map { [$0] }, completion: completion)
        return ref
    }

    /// Adds a document with a random id once the server committed it.
    @discardableResult
    public func addDocument(data: [String: Any]) async throws -> DocumentReference {
        let ref = document()
        try await firestore.commit([try WriteOperation.create(ref, try FieldData.fields(data))])
        return ref
    }

    /// Encodes `value` and adds it with a random id, returning the reference at once (synchronous,
    /// as in the Apple SDK; the write is queued, `completion` reports the server's answer).
    @discardableResult
    public func addDocument<T: Encodable>(
        from value: T, encoder: Firestore.Encoder = .init(), completion: (((any Error)?) -> Void)? = nil
    ) throws -> DocumentReference {
        let ref = document()
        let write = try WriteOperation.create(ref, try encoder.encodeFields(value))
        firestore.enqueueCommit(.success([write]), completion: completion)
        return ref
    }
}

extension Query {
    /// Runs the query; `completion` runs on the instance's callback queue.
    public func getDocuments(completion: @escaping (QuerySnapshot?, (any Error)?) -> Void) {
        let query = self
        let callback = UserCallback(completion)
        BackgroundThread.run {
            let result = Result { try query.runAfterWrites() }
            query.firestore.callbackQueue.deliver {
                switch result {
                case .success(let docs): callback.call(QuerySnapshot(query: query, documents: docs, previous: nil), nil)
                case .failure(let error): callback.call(nil, error)
                }
            }
        }
    }

    /// Runs the query after the writes this instance queued before.
    func runAfterWrites() throws(FirestoreError) -> [DocumentSnapshot] {
        firestore.writeQueue.waitForEarlierWork()
        return try run()
    }
}
