package import EmulatorModel
import EmulatorStorage

/// The answer to Commit.
package struct CommitResponse: Sendable, Equatable {
    package var writeResults: [WriteResult]
    package var commitTime: Int64
}

/// One write's outcome in a BatchWrite: a result or an error.
package typealias BatchWriteOutcome = Result<WriteResult, EmulatorError>

extension FirestoreService {
    /// Commit: applies `writes` atomically and in order, optionally ending a transaction. A
    /// pessimistic transaction first takes exclusive locks on what it writes (waiting for other
    /// holders); an optimistic one whose reads changed since fails with ABORTED and writes nothing.
    package func commit(
        _ database: DatabaseID, writes: [Write], transaction: [UInt8]? = nil, caller: FirestoreCaller = .owner
    ) throws(EmulatorError) -> CommitResponse {
        try commit(database, writes: writes, transaction: transaction, caller: caller, readBack: nil).result
    }

    /// Commit, also returning the document at `readBack` as the commit left it.
    func commit(
        _ database: DatabaseID, writes: [Write], transaction: [UInt8]?, caller: FirestoreCaller, readBack: ResourcePath?
    ) throws(EmulatorError) -> (result: CommitResponse, document: StoredDocument?) {
        if writes.count > WriteApplier.maxWritesPerCommit {
            throw .invalidArgument("maximum \(WriteApplier.maxWritesPerCommit) writes allowed per request")
        }
        var writes = writes
        for i in writes.indices {
            if let canonical = try WriteApplier.validate(writes[i], database: database) { writes[i] = canonical }
        }
        var entry: TransactionRegistry.Entry?
        if let transaction {
            let now = store.currentTime()
            let open = try transactions.entry(transaction, database: database, now: now)
            if case .readOnly = open.mode, !writes.isEmpty {
                _ = try? transactions.end(transaction, database: database, now: now)
                throw .invalidArgument("Cannot modify entities in a read-only transaction.")
            }
            if open.isPessimistic {
                // Waits (parked) while another owner holds what this commit writes; once granted
                // the commit can no longer be wounded.
                try transactions.acquire(
                    open.owner, age: open.age, Self.exclusiveKeys(writes, database), woundable: true, finishing: true)
            }
            entry = try transactions.end(transaction, database: database, now: now)
        } else {
            try lockOneShot(database, writes.map(\.name.path))
        }
        defer { if let entry, entry.isPessimistic { transactions.release(entry.owner) } }
        let gate = gate(database)
        let (results, commitTime) = try store.commit(database) { (buffer: inout CommitBuffer) throws(EmulatorError) in
            if let entry { try Self.validateReads(entry, buffer.view, database: database) }
            let results = try applyAll(writes, &buffer, gate: gate, caller: caller, database: database)
            return (results, try readBack.flatMap { p throws(EmulatorError) in try buffer.written(p) })
        }
        return (CommitResponse(writeResults: results.0, commitTime: commitTime), results.1)
    }

    static func exclusiveKeys(_ writes: [Write], _ database: DatabaseID) -> [LockTable.Key: LockTable.Mode] {
        var keys: [LockTable.Key: LockTable.Mode] = [:]
        for w in writes { keys[LockTable.Key(database: database, path: w.name.path)] = .exclusive }
        return keys
    }

    /// A write outside a transaction waits for the transactions that hold what it writes. Only
    /// requests run by a transport (a ``LockAttempt``) can wait; the attempt releases the locks
    /// when the request ends. Without one (in-process callers) the write goes ahead: a
    /// pessimistic transaction that read the document then fails its commit with ABORTED.
    func lockOneShot(_ database: DatabaseID, _ paths: [ResourcePath]) throws(EmulatorError) {
        guard let attempt = LockAttempt.current, !paths.isEmpty else { return }
        if attempt.hasOneShotOwner == false, transactions.admitBlanket() {
            attempt.noteBlanket(transactions)
            return
        }
        let (owner, age) = attempt.oneShotOwner(transactions)
        var keys: [LockTable.Key: LockTable.Mode] = [:]
        for p in paths { keys[LockTable.Key(database: database, path: p)] = .exclusive }
        try transactions.acquire(owner, age: age, keys, woundable: false)
    }

    /// BatchWrite: applies each write on its own (not atomically); one outcome per write.
    package func batchWrite(
        _ database: DatabaseID, writes: [Write], caller: FirestoreCaller = .owner
    ) throws(EmulatorError) -> [BatchWriteOutcome] {
        if writes.count > WriteApplier.maxWritesPerCommit {
            throw .invalidArgument("maximum \(WriteApplier.maxWritesPerCommit) writes allowed per request")
        }
        var seen = Set<ResourcePath>()
        for w in writes where !seen.insert(w.name.path).inserted {
            throw .invalidArgument("Batch write contains multiple writes to the same document: \(w.name.name)")
        }
        try lockOneShot(database, writes.map(\.name.path))
        let gate = gate(database)
        return writes.map { w in
            Result { () throws(EmulatorError) -> WriteResult in
                let w = try WriteApplier.validate(w, database: database) ?? w
                let (results, _) = try store.commit(database) { (buffer: inout CommitBuffer) throws(EmulatorError) in
                    try applyAll([w], &buffer, gate: gate, caller: caller, database: database)
                }
                return results.first ?? WriteResult(updateTime: nil)
            }
        }
    }

    /// Applies writes in order. With rules in force, every write's access (document before and
    /// after) is collected and the batch is checked once at the end, so `get()` sees the state
    /// before the commit and `getAfter()` the state with every write applied; a denial writes nothing.
    func applyAll(
        _ writes: [Write], _ buffer: inout CommitBuffer, gate: FirestoreRulesGate, caller: FirestoreCaller,
        database: DatabaseID
    ) throws(EmulatorError) -> [WriteResult] {
        var results: [WriteResult] = []
        results.reserveCapacity(writes.count)
        if caller == .owner || gate.allowsEverything {
            if caller == .owner, gate.requestLog != nil {
                for w in writes { gate.noteOwner("write", database, w.name.path) }
            }
            for w in writes { results.append(try WriteApplier.apply(w, to: &buffer, authorize: nil)) }
            return results
        }
        // The head is exactly the state this commit started from (commits are serialized).
        let before = try store.view(database, at: nil).0
        let commitTime = buffer.commitTime
        var accesses: [FirestoreAccess] = []
        accesses.reserveCapacity(writes.count)
        for w in writes {
            let path = w.name.path
            results.append(
                try WriteApplier.apply(
                    w, to: &buffer, authorizeReadsFields: gate.readsStoredFields,
                    authorizeWithoutExistence: gate.decidesWritesWithoutExistence
                ) { (method, old, new) throws(EmulatorError) in
                    accesses.append(
                        FirestoreAccess(
                            method: method ?? .update, database: database, path: path, caller: caller, resource: old,
                            requestResource: new, time: commitTime, existenceUnknown: method == nil))
                })
        }
        try gate.checkBatch(
            accesses, before: { try? before.document($0) }, after: { try? buffer.view.document($0) })
        return results
    }

    /// Checks that nothing a read-write transaction read has changed; ABORTED otherwise.
    static func validateReads(
        _ entry: TransactionRegistry.Entry, _ view: DatabaseView<some DocumentSource>, database: DatabaseID
    ) throws(EmulatorError) {
        guard case .readWrite = entry.mode else { return }
        let aborted = EmulatorError.aborted(
            "Transaction lock timeout. A document this transaction read was changed by another request; retry the transaction.")
        for (path, seen) in entry.reads where try view.document(path)?.updateTime != seen { throw aborted }
        for q in entry.queries {
            let engine = try QueryEngine(q.query, database: database, aggregating: q.aggregating)
            let now = engine.window(try candidates(view, parent: q.parent, query: q.query)).documents
            if versions(now) != q.seen { throw aborted }
        }
    }
}
