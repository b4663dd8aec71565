import Synchronization

/// Writes committed together, atomically.
///
/// ```swift
/// let batch = db.batch()
/// batch.setData(["name": "Ada"], forDocument: db.document("people/ada"))
/// batch.deleteDocument(db.document("people/old"))
/// try await batch.commit()
/// ```
public final class WriteBatch: Sendable {
    let firestore: Firestore
    private let writes = Mutex<[WriteOperation]>([])
    private let failure = Mutex<FirestoreError?>(nil)

    init(firestore: Firestore) { self.firestore = firestore }

    private func add(_ make: () throws(FirestoreError) -> WriteOperation) {
        do {
            let w = try make()
            writes.withLock { $0.append(w) }
        } catch {
            failure.withLock { if $0 == nil { $0 = error } }
        }
    }

    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference, merge: Bool = false) -> WriteBatch {
        add { () throws(FirestoreError) in try WriteOperation.set(document, try FieldData.fields(data), merge: merge) }
        return self
    }

    @discardableResult
    public func setData<T: Encodable>(
        from value: T, forDocument document: DocumentReference, merge: Bool = false, encoder: Firestore.Encoder = .init()
    ) throws -> WriteBatch {
        let fields = try encoder.encodeFields(value)
        add { () throws(FirestoreError) in try WriteOperation.set(document, fields, merge: merge) }
        return self
    }

    @discardableResult
    public func updateData(_ fields: [String: Any], forDocument document: DocumentReference) -> WriteBatch {
        add { () throws(FirestoreError) in try WriteOperation.update(document, fields) }
        return self
    }

    @discardableResult
    public func deleteDocument(_ document: DocumentReference) -> WriteBatch {
        add { () throws(FirestoreError) in WriteOperation.delete(document) }
        return self
    }

    /// Commits every write, or none, and returns once the server answered.
    public func commit() async throws {
        if let error = failure.withLock({ $0 }) { throw error }
        try await firestore.commit(writes.withLock { $0 })
    }

    /// Queues the commit; `completion` (on the instance's callback queue) gets nil or the error.
    public func commit(completion: (((any Error)?) -> Void)? = nil) {
        let writes: Result<[WriteOperation], FirestoreError> =
            if let error = failure.withLock({ $0 }) { .failure(error) } else { .success(self.writes.withLock { $0 }) }
        firestore.enqueueCommit(writes, completion: completion)
    }
}
