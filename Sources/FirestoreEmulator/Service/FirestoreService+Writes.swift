package import EmulatorModel
import EmulatorStorage

/// The answer to Commit.
package struct CommitResult: Sendable, Equatable {
    package var writeResults: [WriteResult]
    package var commitTime: Int64
}

/// One write's outcome in a BatchWrite: a result or an error.
package typealias BatchWriteOutcome = Result<WriteResult, EmulatorError>

extension FirestoreService {
    /// Commit: applies `writes` atomically and in order, optionally ending a transaction. A
    /// read-write transaction whose reads changed since fails with ABORTED and writes nothing.
    package func commit(
        _ database: DatabaseID, writes: [Write], transaction: [UInt8]? = nil, caller: FirestoreCaller = .owner
    ) throws(EmulatorError) -> CommitResult {
        try commit(database, writes: writes, transaction: transaction, caller: caller, readBack: nil).result
    }

    /// Commit, also returning the document at `readBack` as the commit left it.
    func commit(
        _ database: DatabaseID, writes: [Write], transaction: [UInt8]?, caller: FirestoreCaller, readBack: ResourcePath?
    ) throws(EmulatorError) -> (result: CommitResult, document: StoredDocument?) {
        if writes.count > WriteApplier.maxWritesPerCommit {
            throw .invalidArgument("maximum \(WriteApplier.maxWritesPerCommit) writes allowed per request")
        }
        for w in writes { try WriteApplier.validate(w, database: database) }
        var entry: TransactionRegistry.Entry?
        if let transaction {
            entry = try transactions.end(transaction, database: database, now: store.currentTime())
            if case .readOnly? = entry?.mode, !writes.isEmpty {
                throw .invalidArgument("Cannot modify entities in a read-only transaction.")
            }
        }
        let gate = gate(database)
        let (results, commitTime) = try store.commit(database) { (buffer: inout CommitBuffer) throws(EmulatorError) in
            if let entry { try Self.validateReads(entry, buffer.view, database: database) }
            var results: [WriteResult] = []
            results.reserveCapacity(writes.count)
            for w in writes { results.append(try Self.apply(w, &buffer, gate: gate, caller: caller, database: database)) }
            return (results, try readBack.flatMap { p throws(EmulatorError) in try buffer.document(p) })
        }
        return (CommitResult(writeResults: results.0, commitTime: commitTime), results.1)
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
        let gate = gate(database)
        return writes.map { w in
            Result { () throws(EmulatorError) -> WriteResult in
                try WriteApplier.validate(w, database: database)
                return try store.commit(database) { (buffer: inout CommitBuffer) throws(EmulatorError) in
                    try Self.apply(w, &buffer, gate: gate, caller: caller, database: database)
                }.result
            }
        }
    }

    /// Applies one write, asking the rules gate with the document before and after.
    static func apply(
        _ write: Write, _ buffer: inout CommitBuffer, gate: FirestoreRulesGate, caller: FirestoreCaller,
        database: DatabaseID
    ) throws(EmulatorError) -> WriteResult {
        if caller == .owner || gate.allowsEverything { return try WriteApplier.apply(write, to: &buffer, authorize: nil) }
        // The view is passed per call and dropped before the write: holding a copy of the commit
        // builder across writes would make every write copy its trees and change log.
        return try WriteApplier.apply(write, to: &buffer) { (method, before, after, view) throws(EmulatorError) in
            try gate.check(
                FirestoreAccess(
                    method: method, database: database, path: write.name.path, caller: caller, resource: before,
                    requestResource: after, time: view.source.commitTime),
                lookup: { try? view.document($0) })
        }
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
            let engine = try QueryEngine(q.query, database: database)
            let now = engine.window(try candidates(view, parent: q.parent, query: q.query)).documents
            if versions(now) != q.seen { throw aborted }
        }
    }
}
