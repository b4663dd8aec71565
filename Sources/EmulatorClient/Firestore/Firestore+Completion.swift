import EmulatorModel
import EmulatorSupport

/// Write calls in the Apple SDK's three shapes: fire-and-forget from synchronous code, with a
/// completion block (run on the instance's callback queue once the server committed or refused
/// the write), and `async throws`. Writes of one instance reach the server in the order they were made.
extension Firestore {
    /// Queues `writes`; `completion` gets nil once committed, or the error. Listeners show the
    /// writes at once.
    func enqueueCommit(_ writes: Result<[WriteOperation], FirestoreError>, completion: (((any Error)?) -> Void)?) {
        let callback = completion.map { UserCallback($0) }
        let local = (try? writes.get()).map { showLocally($0) }
        writeQueue.enqueue { [self] in
            let outcome: (any Error)?
            do {
                try commitQueued(try writes.get(), local: local)
                outcome = nil
            } catch {
                outcome = error
            }
            if let callback { callbackQueue.deliver { callback.call(outcome) } }
        }
    }

    /// Queues `writes` and waits until the server committed them.
    func commit(_ writes: [WriteOperation]) async throws {
        let local = showLocally(writes)
        _ = try await writeQueue.run { try self.commitQueued(writes, local: local) }
    }

    /// Records the writes in the local write table (listeners show them); returns the batch id.
    private func showLocally(_ writes: [WriteOperation]) -> Int {
        localWrites.add(writes.map(\.local))
    }

    /// On the write queue: commits until the server answers (retrying while it is unreachable),
    /// then acknowledges or rejects the local batch.
    ///
    /// A retry after an unreachable server may follow a commit that was applied but whose answer
    /// was lost. The REST commit has no request id, so the retry is made safe per write: sets,
    /// updates, deletes and array/min/max transforms give the same document when applied twice;
    /// a create (`addDocument`) carries `exists: false`, so a second application fails
    /// ALREADY_EXISTS, which a retry takes as its own earlier success; an increment is sent with
    /// an `updateTime` precondition read just before the first attempt, so a second application
    /// fails FAILED_PRECONDITION instead of adding twice (a retry then reads the document again and
    /// reports success only if the first attempt is what changed it — see ``commitWithPreconditions``).
    private func commitQueued(_ writes: [WriteOperation], local: Int?) throws(FirestoreError) {
        do {
            let response: JSONValue
            if writes.contains(where: \.isIncrement) {
                response = try commitWithPreconditions(writes)
            } else {
                var retried = false
                response = try writeQueue.untilReachable(Firestore.isUnreachable) { () throws(FirestoreError) -> JSONValue in
                    defer { retried = true }
                    do throws(FirestoreError) {
                        return try commitNow(writes)
                    } catch where retried && error.code == .alreadyExists && writes.contains(where: \.isCreate) {
                        return .object([])  // the first attempt created it; its answer was lost
                    }
                }
            }
            if let local { localWrites.acknowledge(local, commitTime: Firestore.micros(response[member: "commitTime"])) }
        } catch {
            if let local { localWrites.reject(local) }
            throw error
        }
    }

    /// Commits writes holding an increment with `updateTime` (or `exists: false`) preconditions on
    /// their documents, read first. FAILED_PRECONDITION on a retry after a lost answer means the
    /// first attempt was applied (or another client wrote meanwhile: then the writes are made again
    /// from a fresh read, up to 5 times).
    private func commitWithPreconditions(_ writes: [WriteOperation]) throws(FirestoreError) -> JSONValue {
        for _ in 0..<5 {
            var conditioned: [WriteOperation] = []
            var seen: [String: String?] = [:]
            for w in writes {
                guard let name = w.documentName else {
                    conditioned.append(w)
                    continue
                }
                if seen[name] == nil {
                    let path = String(name.dropFirst(documentsName.count + 1))
                    let snapshot = try writeQueue.untilReachable(Firestore.isUnreachable) { () throws(FirestoreError) in
                        try document(path).fetch(transaction: nil)
                    }
                    seen[name] = .some(snapshot.exists ? snapshot.updateTime : nil)
                }
                conditioned.append(w.withPrecondition(updateTime: seen[name] ?? nil))
            }
            var attempts = 0
            var lostAnswer = false
            do {
                return try writeQueue.untilReachable(Firestore.isUnreachable) { () throws(FirestoreError) -> JSONValue in
                    attempts += 1
                    if attempts > 1 { lostAnswer = true }
                    return try commitNow(conditioned)
                }
            } catch where error.code == .failedPrecondition || error.code == .alreadyExists || error.code == .notFound {
                if lostAnswer { return .object([]) }
                continue  // another client wrote between the read and the commit: read again
            }
        }
        throw FirestoreError(.aborted, "The documents kept changing while the increment was retried")
    }

    static func isUnreachable(_ error: FirestoreError) -> Bool { error.isUnreachable }

    /// A REST timestamp in microseconds.
    static func micros(_ json: JSONValue?) -> Int64? {
        guard case .string(let text)? = json, let t = try? EmulatorModelTimestamp(rfc3339: text) else { return nil }
        return t.microseconds
    }
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
