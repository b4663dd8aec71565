package import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import Synchronization

/// Firestore's semantics, independent of any transport: REST and gRPC decode requests into these
/// calls and encode what they return. Every method checks security rules through the gate of the
/// request's project before it reads or writes.
package final class FirestoreService: Sendable {
    let store: DocumentStore
    let transactions: TransactionRegistry
    /// Every Listen stream's targets, by what they watch.
    let listenHub: ListenHub
    /// Rules uploaded per project (`:securityRules`), and the rules of every other project.
    private let gates: Mutex<(byProject: [String: FirestoreRulesGate], fallback: FirestoreRulesGate)>
    /// Whether queries may use equality indexes and walks in key order (off only to compare
    /// against plain scans in tests).
    let useIndexes: Bool
    /// Documents decoded by queries and listings so far: how much of the store they read.
    let documentsDecoded = Atomic<Int>(0)
    /// Counts what query cursors hold (tests).
    let cursorProbe: QueryCursorProbe?
    /// How long (µs) a streamed query's client may read nothing before the query ends with
    /// DEADLINE_EXCEEDED and its snapshot is freed (see ``QueryCursor/expireWhenIdle(after:)``).
    /// Five minutes: the official clients give RunQuery a 300 s deadline for the whole call
    /// (nodejs-firestore `dev/src/v1/firestore_client_config.json`), so one that reads never
    /// waits this long between two reads.
    let queryIdleTimeout: Int64

    /// `transactionLifetime`, `transactionIdleLifetime` and `lockTimeout` (µs) are production's 270 s
    /// and 60 s and the official emulator's 30 s, and `queryIdleTimeout` five minutes, unless a test
    /// shortens them.
    package init(
        store: DocumentStore = DocumentStore(), rules: FirestoreRulesGate = .allowAll, useIndexes: Bool = true,
        transactionLifetime: Int64 = 270_000_000, transactionIdleLifetime: Int64 = 60_000_000,
        lockTimeout: Int64 = 30_000_000, cursorProbe: QueryCursorProbe? = nil,
        queryIdleTimeout: Int64 = 300_000_000
    ) {
        self.cursorProbe = cursorProbe
        self.queryIdleTimeout = queryIdleTimeout
        self.store = store
        self.listenHub = ListenHub(engine: store.engine, startTime: store.currentTime())
        self.useIndexes = useIndexes
        self.transactions = TransactionRegistry(
            lifetime: transactionLifetime, idleLifetime: transactionIdleLifetime, lockTimeout: lockTimeout, clock: { [store] in store.currentTime() })
        self.gates = Mutex(([:], rules))
    }

    /// Replaces the rules of `project` (the emulator's `:securityRules` endpoint).
    package func setRules(_ gate: FirestoreRulesGate, project: String) {
        gates.withLock { $0.byProject[project] = gate }
    }

    /// Replaces the rules of every project without an upload of its own (firebase.json's rules
    /// file, reloaded when it changes), and drops `project`'s upload so that the file's rules
    /// apply there too. The next request is checked against them, whatever project id it uses
    /// (firebase-tools#2603 kept old rules for other project ids).
    package func setDefaultRules(_ gate: FirestoreRulesGate, replacingProject project: String? = nil) {
        gates.withLock {
            $0.fallback = gate
            if let project { $0.byProject[project] = nil }
        }
    }

    func gate(_ database: DatabaseID) -> FirestoreRulesGate {
        gates.withLock { $0.byProject[database.project] ?? $0.fallback }
    }

    /// Checks that `name` lies in `database`.
    static func requireSameDatabase(_ name: DocumentName, _ database: DatabaseID) throws(EmulatorError) {
        guard name.projectID.utf8.elementsEqual(database.project.utf8),
            name.databaseID.utf8.elementsEqual(database.database.utf8)
        else {
            throw .invalidArgument("Document name \"\(name.name)\" is not in database \"\(database.name)\".")
        }
    }

    /// Resolves a consistency selector: validates transaction ids and read times, and begins a
    /// new transaction when asked.
    func resolve(_ consistency: ReadConsistency, _ database: DatabaseID) throws(EmulatorError) -> ResolvedRead {
        if case .latest = consistency { return ResolvedRead(time: nil) }  // the common read: no clock
        let now = store.currentTime()
        switch consistency {
        case .latest:
            return ResolvedRead(time: nil)
        case .readTime(let t):
            try validateReadTime(t, now: now)
            return ResolvedRead(time: t)
        case .transaction(let id):
            let entry = try transactions.entry(id, database: database, now: now)
            switch entry.mode {
            case .readOnly(let t): return ResolvedRead(time: t)
            case .readWrite(let pessimistic):
                return ResolvedRead(time: nil, recordingTransaction: id, lock: pessimistic ? TransactionLock(entry) : nil)
            }
        case .newTransaction(let options):
            // A run after a lock wait reuses the transaction the first run began.
            let id: [UInt8]
            if let begun = LockAttempt.current?.begunTransaction {
                id = begun
            } else {
                id = try beginTransaction(database, options: options)
                LockAttempt.current?.noteBegun(id, database: database, registry: transactions)
            }
            let entry = try transactions.entry(id, database: database, now: now)
            switch entry.mode {
            case .readOnly(let t): return ResolvedRead(time: t, newTransaction: id)
            case .readWrite(let pessimistic):
                return ResolvedRead(
                    time: nil, recordingTransaction: id, newTransaction: id, lock: pessimistic ? TransactionLock(entry) : nil)
            }
        }
    }

    func validateReadTime(_ t: Int64, now: Int64) throws(EmulatorError) {
        if t > now { throw .invalidArgument("read_time cannot be in the future.") }
        if t < now - store.retention {
            throw .failedPrecondition("read_time is older than the oldest version the emulator keeps (one hour).")
        }
        if t < store.retainedSince {
            throw .failedPrecondition(
                "read_time is older than the oldest version the emulator keeps (older versions were dropped to bound memory).")
        }
    }

    // MARK: Transactions

    /// Begins a transaction and returns its opaque id.
    package func beginTransaction(_ database: DatabaseID, options: TransactionOptions) throws(EmulatorError) -> [UInt8] {
        let now = store.currentTime()
        switch options {
        case .readOnly(let t?):
            try validateReadTime(t, now: now)
            return transactions.begin(database, mode: .readOnly(readTime: t), now: now)
        case .readOnly(nil):
            return transactions.begin(database, mode: .readOnly(readTime: now), now: now)
        case .readWrite(let retrying, let concurrency):
            return transactions.begin(
                database, mode: .readWrite(pessimistic: concurrency != .optimistic), now: now, retrying: retrying)
        }
    }

    /// Ends a transaction without writing, releasing its locks. One that already ended
    /// (committed, aborted, expired) answers OK, as production does.
    package func rollback(_ database: DatabaseID, transaction: [UInt8]) throws(EmulatorError) {
        try transactions.rollback(transaction, database: database, now: store.currentTime())
    }

    /// Takes shared locks on `paths` for a pessimistic transaction's read (may park the request).
    func lockForRead(_ database: DatabaseID, _ paths: some Sequence<ResourcePath>, _ lock: TransactionLock) throws(EmulatorError) {
        var keys: [LockTable.Key: LockTable.Mode] = [:]
        for p in paths { keys[LockTable.Key(database: database, path: p)] = .shared }
        try transactions.acquire(lock.owner, age: lock.age, keys, woundable: true)
    }

    /// Removes every document at or below `path` (the emulator's DELETE endpoint).
    package func clear(_ database: DatabaseID, under path: ResourcePath) {
        store.clear(database, under: path)
        if path.isEmpty { transactions.removeAll(database) }
    }

    /// Back to the state of a new service over an empty store: every database's namespace goes
    /// from the engine (documents, history, indexes: `StorageEngine.drop`), transactions end,
    /// rules uploads are forgotten and `rules` apply to every project. The fuzz targets reuse one
    /// service across inputs this way; Listen streams still open keep running.
    package func reset(rules: FirestoreRulesGate) {
        transactions.removeAll()
        gates.withLock { $0 = ([:], rules) }
        guard let snapshot = try? store.engine.snapshot() else { return }
        for namespace in snapshot.namespaces where namespace.name.hasPrefix("firestore/") {
            store.engine.drop(namespace)
        }
        store.ensuredIndexes.withLock { $0.removeAll() }
    }

    /// A 20-character `[A-Za-z0-9]` id, as the SDKs generate.
    static func autoID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var rng = SystemRandomNumberGenerator()
        var out: [UInt8] = []
        for _ in 0..<20 { out.append(alphabet[Int(rng.next(upperBound: UInt64(alphabet.count)))]) }
        return String(decoding: out, as: UTF8.self)
    }
}
