import EmulatorModel
import EmulatorSupport
import Synchronization

/// Open transactions by id. Read-write transactions are optimistic: they record the version of
/// every document (and the result of every query) they read, and their commit fails with ABORTED
/// when any of those changed. Nothing ever waits on a lock, so contending clients retry and settle.
final class TransactionRegistry: Sendable {
    enum Mode: Sendable {
        case readOnly(readTime: Int64)
        case readWrite
    }

    /// A query a read-write transaction ran and the versions it saw.
    struct QueryRead: Sendable {
        var parent: ResourcePath
        var query: StructuredQuery
        var seen: [ResourcePath: Int64]
    }

    struct Entry: Sendable {
        var database: DatabaseID
        var mode: Mode
        var started: Int64
        /// Document path → update time seen (nil: seen as missing).
        var reads: [ResourcePath: Int64?] = [:]
        var queries: [QueryRead] = []
    }

    /// Transactions expire after 270 s, as production's time limit.
    static let lifetime: Int64 = 270_000_000
    static let invalidMessage = "The referenced transaction has expired or is no longer valid."

    private let entries = Mutex<[[UInt8]: Entry]>([:])

    /// Opens a transaction and returns its opaque id.
    func begin(_ database: DatabaseID, mode: Mode, now: Int64) -> [UInt8] {
        var rng = SystemRandomNumberGenerator()
        var id: [UInt8] = []
        for _ in 0..<2 { withUnsafeBytes(of: rng.next() as UInt64) { id.append(contentsOf: $0) } }
        entries.withLock { all in
            all = all.filter { now - $0.value.started < Self.lifetime }
            all[id] = Entry(database: database, mode: mode, started: now)
        }
        return id
    }

    /// The transaction's entry, or the official INVALID_ARGUMENT when unknown, expired or of
    /// another database.
    func entry(_ id: [UInt8], database: DatabaseID, now: Int64) throws(EmulatorError) -> Entry {
        guard let e = entries.withLock({ $0[id] }), e.database == database, now - e.started < Self.lifetime else {
            throw .invalidArgument(Self.invalidMessage)
        }
        return e
    }

    /// Records documents read in a read-write transaction.
    func recordReads(_ id: [UInt8], _ reads: [(ResourcePath, Int64?)]) {
        entries.withLock { all in
            guard case .readWrite? = all[id]?.mode else { return }
            for (path, time) in reads where all[id]?.reads[path] == nil { all[id]?.reads[path] = .some(time) }
        }
    }

    /// Records a query run in a read-write transaction.
    func recordQuery(_ id: [UInt8], _ read: QueryRead) {
        entries.withLock { all in
            guard case .readWrite? = all[id]?.mode else { return }
            all[id]?.queries.append(read)
        }
    }

    /// Removes and returns the transaction (commit and rollback end it).
    func end(_ id: [UInt8], database: DatabaseID, now: Int64) throws(EmulatorError) -> Entry {
        let e = entries.withLock { $0.removeValue(forKey: id) }
        guard let e, e.database == database, now - e.started < Self.lifetime else {
            throw .invalidArgument(Self.invalidMessage)
        }
        return e
    }

    /// Forgets every transaction of `database` (after the emulator's clear endpoint).
    func removeAll(_ database: DatabaseID) {
        entries.withLock { all in all = all.filter { $0.value.database != database } }
    }
}
