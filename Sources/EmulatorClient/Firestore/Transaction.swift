import EmulatorSupport
import Synchronization

/// The reads and writes of one `runTransaction` attempt. Reads must come before writes.
public final class Transaction: Sendable {
    let firestore: Firestore
    let id: String
    private let writes = Mutex<[WriteOperation]>([])

    init(firestore: Firestore, id: String) {
        self.firestore = firestore
        self.id = id
    }

    /// Reads a document inside the transaction (locks it until commit).
    public func getDocument(_ document: DocumentReference) throws -> DocumentSnapshot {
        if !writes.withLock({ $0.isEmpty }) {
            throw FirestoreError(.invalidArgument, "Firestore transactions require all reads to be executed before all writes.")
        }
        return try document.fetch(transaction: id)
    }

    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference, merge: Bool = false) throws -> Transaction {
        let w = try WriteOperation.set(document, try FieldData.fields(data), merge: merge)
        writes.withLock { $0.append(w) }
        return self
    }

    @discardableResult
    public func setData<T: Encodable>(
        from value: T, forDocument document: DocumentReference, merge: Bool = false, encoder: Firestore.Encoder = .init()
    ) throws -> Transaction {
        let w = try WriteOperation.set(document, try encoder.encodeFields(value), merge: merge)
        writes.withLock { $0.append(w) }
        return self
    }

    @discardableResult
    public func updateData(_ fields: [String: Any], forDocument document: DocumentReference) throws -> Transaction {
        let w = try WriteOperation.update(document, fields)
        writes.withLock { $0.append(w) }
        return self
    }

    @discardableResult
    public func deleteDocument(_ document: DocumentReference) -> Transaction {
        writes.withLock { $0.append(WriteOperation.delete(document)) }
        return self
    }

    var pendingWrites: [WriteOperation] { writes.withLock { $0 } }
}

extension Firestore {
    /// Runs `body` in a transaction and commits its writes; retried (up to 5 attempts) when the
    /// commit is ABORTED by contention. Returns what `body` returned.
    ///
    /// ```swift
    /// let newCount = try await db.runTransaction { tx in
    ///     let n = try tx.getDocument(counter).get("n") as? Int ?? 0
    ///     tx.updateData(["n": n + 1], forDocument: counter)
    ///     return n + 1
    /// }
    /// ```
    public func runTransaction<R: Sendable>(
        maxAttempts: Int = 5, _ body: @escaping @Sendable (Transaction) throws -> R
    ) async throws -> R {
        try await blocking { try self.runTransactionNow(maxAttempts: maxAttempts, body) }
    }

    private func runTransactionNow<R: Sendable>(maxAttempts: Int, _ body: @Sendable (Transaction) throws -> R) throws -> R {
        var attempt = 0
        while true {
            attempt += 1
            let begin = try call("POST", "/v1/" + Firestore.urlPath(databaseName) + "/documents:beginTransaction", body: .object([]))
            guard case .string(let id)? = begin[member: "transaction"] else {
                throw FirestoreError(.internal, "beginTransaction returned no transaction id")
            }
            let tx = Transaction(firestore: self, id: id)
            let result: R
            do {
                result = try body(tx)
            } catch {
                _ = try? call(
                    "POST", "/v1/" + Firestore.urlPath(databaseName) + "/documents:rollback",
                    body: .object([JSONMember("transaction", .string(id))]))
                if let e = error as? FirestoreError, e.code == .aborted, attempt < maxAttempts { continue }
                throw error
            }
            let committed: Bool
            do {
                _ = try commitNow(tx.pendingWrites, transaction: id)
                committed = true
            } catch {
                let retry = error.code == .aborted && attempt < maxAttempts
                if !retry { throw error }
                committed = false
            }
            if committed { return result }
        }
    }
}
