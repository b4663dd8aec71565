import Dispatch
import EmulatorModel
import EmulatorSupport
import Synchronization

/// Open transactions by id, and the document locks of the pessimistic ones (``LockTable``).
///
/// Read-write transactions are pessimistic unless they ask for `OPTIMISTIC` (production's
/// default concurrency mode, and the only mode of the official emulator): reads lock what they
/// read, commits lock what they write, conflicting requests wait (see ``LockTable``). Optimistic
/// ones record the version of every document (and the result of every query) they read and their
/// commit fails with ABORTED when any of those changed. Either way the commit re-checks query
/// results, so a document that newly matches a query read in the transaction aborts it.
///
/// A transaction ends when committed, rolled back, wounded (reported ABORTED on its next call),
/// expired (270 s after it began, or 60 s after its last request, as production: so the locks of
/// a client that went away are freed within a minute) or cleared. Ended ids are remembered for the same 270 s, so a
/// rollback of one answers OK and a retry (`retry_transaction`) keeps its age.
final class TransactionRegistry: Sendable {
    enum Mode: Sendable {
        case readOnly(readTime: Int64)
        case readWrite(pessimistic: Bool)
    }

    /// A query a read-write transaction ran and the versions it saw.
    struct QueryRead: Sendable {
        var parent: ResourcePath
        var query: StructuredQuery
        /// An aggregation's summed or averaged fields (they narrow and rank its result).
        var aggregating: [FieldPath] = []
        var seen: [ResourcePath: Int64]
    }

    struct Entry: Sendable {
        var database: DatabaseID
        var mode: Mode
        var started: Int64
        /// When a request last named it (µs).
        var lastUsed: Int64
        /// Its lock owner and age (the age of the transaction it retries, if any).
        var owner: UInt64
        var age: UInt64
        /// Document path → update time seen (nil: seen as missing).
        var reads: [ResourcePath: Int64?] = [:]
        var queries: [QueryRead] = []

        var isPessimistic: Bool {
            if case .readWrite(true) = mode { return true }
            return false
        }
    }

    struct Ended: Sendable {
        var database: DatabaseID
        var age: UInt64
        var at: Int64
    }

    struct State: Sendable {
        var open: [[UInt8]: Entry] = [:]
        var ended: [[UInt8]: Ended] = [:]
        var locks = LockTable()
        /// The tickets of each waiting owner (one per request waiting; they end together).
        var tickets: [UInt64: [LockWait]] = [:]
        var serial: UInt64 = 0
        /// When the oldest open transaction expires (a sweep before then finds nothing).
        var nextExpiry: Int64 = .max
        var lastEndedPrune: Int64 = 0
        /// The time of the timer already scheduled, if any.
        var tickAt: Int64?

        mutating func next() -> UInt64 {
            serial += 1
            return serial
        }

        /// The tickets of `resolutions`, taken out of the table, to resolve outside the lock.
        mutating func tickets(_ resolutions: [LockTable.Resolution]) -> [(LockWait, EmulatorError?)] {
            resolutions.flatMap { r in (tickets.removeValue(forKey: r.owner) ?? []).map { ($0, r.error) } }
        }
    }

    static let invalidMessage = "The referenced transaction has expired or is no longer valid."
    /// Ended ids remembered at most (the oldest are forgotten first past it).
    static let maxEnded = 100_000

    /// Transactions expire after this long (µs); production's limit is 270 s.
    let lifetime: Int64
    /// ... or after this long without a request naming them (µs); production's is 60 s.
    let idleLifetime: Int64
    /// How long a request waits for a lock (µs) before ABORTED "Transaction lock timeout.".
    let lockTimeout: Int64
    let clock: @Sendable () -> Int64
    private let state = Mutex(State())

    init(
        lifetime: Int64 = 270_000_000, idleLifetime: Int64 = 60_000_000, lockTimeout: Int64 = 30_000_000,
        clock: @escaping @Sendable () -> Int64
    ) {
        self.lifetime = lifetime
        self.idleLifetime = idleLifetime
        self.lockTimeout = lockTimeout
        self.clock = clock
    }

    /// A fresh lock owner id and age (ages grow with arrival).
    func nextSerial() -> UInt64 { state.withLock { $0.next() } }

    /// Opens a transaction and returns its opaque id. A retry of an earlier transaction of the
    /// same database keeps that transaction's age (and ends it if still open).
    func begin(_ database: DatabaseID, mode: Mode, now: Int64, retrying: [UInt8]? = nil) -> [UInt8] {
        var rng = SystemRandomNumberGenerator()
        var id: [UInt8] = []
        for _ in 0..<2 { withUnsafeBytes(of: rng.next() as UInt64) { id.append(contentsOf: $0) } }
        let settled = state.withLock { s in
            var out = sweep(&s, now)
            let owner = s.next()
            var age = owner
            if let retrying {
                if let old = s.open[retrying], old.database == database {
                    age = old.age
                    out += finish(&s, retrying, now)
                } else if let old = s.ended[retrying], old.database == database {
                    age = old.age
                }
            }
            s.open[id] = Entry(database: database, mode: mode, started: now, lastUsed: now, owner: owner, age: age)
            s.nextExpiry = min(s.nextExpiry, now + min(lifetime, idleLifetime))
            return out
        }
        resolve(settled)
        return id
    }

    /// The open transaction, or the official INVALID_ARGUMENT when unknown, ended, expired or of
    /// another database; ABORTED (ending it) when an older transaction wounded it.
    func entry(_ id: [UInt8], database: DatabaseID, now: Int64) throws(EmulatorError) -> Entry {
        let (result, settled) = state.withLock { s -> (Result<Entry, EmulatorError>, [(LockWait, EmulatorError?)]) in
            var out = sweep(&s, now)
            guard var e = s.open[id], e.database == database else { return (.failure(.invalidArgument(Self.invalidMessage)), out) }
            if s.locks.isWounded(e.owner) {
                out += finish(&s, id, now)
                return (.failure(LockTable.wounded), out)
            }
            // Used now: its idle expiry moves on (`nextExpiry` stays a bound a sweep may pass early).
            e.lastUsed = max(e.lastUsed, now)
            s.open[id] = e
            return (.success(e), out)
        }
        resolve(settled)
        return try result.get()
    }

    /// Records documents read in an optimistic read-write transaction.
    func recordReads(_ id: [UInt8], _ reads: [(ResourcePath, Int64?)]) {
        state.withLock { s in
            guard case .readWrite? = s.open[id]?.mode else { return }
            for (path, time) in reads where s.open[id]?.reads[path] == nil { s.open[id]?.reads[path] = .some(time) }
        }
    }

    /// Records a query run in a read-write transaction.
    func recordQuery(_ id: [UInt8], _ read: QueryRead) {
        state.withLock { s in
            guard case .readWrite? = s.open[id]?.mode else { return }
            s.open[id]?.queries.append(read)
        }
    }

    /// Ends the transaction for its commit and returns it; its locks stay until ``release(_:)``
    /// (after the commit ran). Errors as ``entry(_:database:now:)``.
    func end(_ id: [UInt8], database: DatabaseID, now: Int64) throws(EmulatorError) -> Entry {
        let entry = try entry(id, database: database, now: now)
        // Two commits of one transaction at once: only the first ends it.
        let ended = state.withLock { s -> Bool in
            guard s.open.removeValue(forKey: id) != nil else { return false }
            remember(&s, id, entry, now)
            return true
        }
        guard ended else { throw .invalidArgument(Self.invalidMessage) }
        return entry
    }

    /// Rollback: ends an open transaction (releasing its locks). A transaction that already
    /// ended (committed, aborted, expired) answers OK too; an unknown id, or one of another
    /// database, is INVALID_ARGUMENT.
    func rollback(_ id: [UInt8], database: DatabaseID, now: Int64) throws(EmulatorError) {
        let result = state.withLock { s -> Result<[(LockWait, EmulatorError?)], EmulatorError> in
            var out = sweep(&s, now)
            if let e = s.open[id] {
                guard e.database == database else { return .failure(.invalidArgument(Self.invalidMessage)) }
                out += finish(&s, id, now)
                return .success(out)
            }
            guard let e = s.ended[id], e.database == database else { return .failure(.invalidArgument(Self.invalidMessage)) }
            return .success(out)
        }
        resolve(try result.get())
    }

    /// Forgets every transaction of `database` (after the emulator's clear endpoint); their
    /// locks go and their waits fail.
    func removeAll(_ database: DatabaseID) {
        removeAll { $0 == database }
    }

    /// Forgets every transaction of the databases `matching` picks (all of them by default).
    func removeAll(where matching: (DatabaseID) -> Bool = { _ in true }) {
        let settled = state.withLock { s in
            var out: [(LockWait, EmulatorError?)] = []
            for (id, e) in s.open where matching(e.database) {
                s.open.removeValue(forKey: id)
                out += s.tickets([LockTable.Resolution(owner: e.owner, error: .aborted(Self.invalidMessage))])
                out += s.tickets(s.locks.release(e.owner))
            }
            s.ended = s.ended.filter { !matching($0.value.database) }
            return out
        }
        resolve(settled)
    }

    // MARK: Locks

    /// Takes `keys` for `owner`. Granted: returns. Must wait: inside a ``LockAttempt`` the
    /// request parks (this throws ``LockAttempt/parked`` and the attempt runs the request again once
    /// the wait ends); outside one (nothing could resume it) it fails with the lock timeout.
    func acquire(
        _ owner: UInt64, age: UInt64, _ keys: [LockTable.Key: LockTable.Mode], woundable: Bool, finishing: Bool = false
    ) throws(EmulatorError) {
        let attempt = LockAttempt.current
        if let failure = attempt?.takeFailure() { throw failure }
        if keys.isEmpty && !woundable { return }
        let now = clock()
        let (outcome, settled, ticket, tick) = state.withLock {
            s -> (LockTable.Outcome, [(LockWait, EmulatorError?)], LockWait?, Int64?) in
            var out = sweep(&s, now)
            let (outcome, resolutions) = s.locks.acquire(
                owner, age: age, keys, woundable: woundable, finishing: finishing,
                deadline: attempt == nil ? nil : now + lockTimeout)
            out += s.tickets(resolutions)
            guard outcome == .waiting else { return (outcome, out, nil, nil) }
            let ticket = LockWait()
            s.tickets[owner, default: []].append(ticket)
            return (outcome, out, ticket, plan(&s, now))
        }
        resolve(settled)
        if let tick { schedule(tick, now: now) }
        switch outcome {
        case .granted: return
        case .failed(let e): throw e
        case .waiting:
            guard let attempt, let ticket else { throw LockTable.timeout }
            attempt.park(ticket, owner: owner, registry: self)
            throw LockAttempt.parked
        }
    }

    /// Admits a write outside any transaction: with no transaction holding or waiting for a lock,
    /// without per-document bookkeeping (true: call ``releaseBlanket()`` after the commit).
    func admitBlanket() -> Bool { state.withLock { $0.locks.admitBlanket() } }

    func releaseBlanket() { resolve(state.withLock { s in s.tickets(s.locks.releaseBlanket()) }) }

    /// Drops every lock and wait of `owner` (a one-shot writer done, a commit applied).
    func release(_ owner: UInt64) { resolve(state.withLock { s in s.tickets(s.locks.release(owner)) }) }

    /// Withdraws `owner`'s wait (its client went away); its ticket resolves with CANCELLED.
    func cancelWait(_ owner: UInt64) {
        resolve(
            state.withLock { s in
                var out = s.tickets([LockTable.Resolution(owner: owner, error: EmulatorError(.cancelled, "The request was cancelled."))])
                out += s.tickets(s.locks.cancelWait(owner))
                return out
            })
    }

    /// What the lock table looks like (tests).
    func snapshot() -> LockTable { state.withLock { $0.locks } }

    /// Whether `id` is open (tests).
    func isOpen(_ id: [UInt8]) -> Bool { state.withLock { $0.open[id] != nil } }

    // MARK: Internals (lock held unless noted)

    /// Ends open transactions past their lifetime or idle too long, releasing their locks.
    private func sweep(_ s: inout State, _ now: Int64) -> [(LockWait, EmulatorError?)] {
        if now - s.lastEndedPrune >= 1_000_000 || s.ended.count > Self.maxEnded { pruneEnded(&s, now) }
        guard now >= s.nextExpiry else { return [] }
        var out: [(LockWait, EmulatorError?)] = []
        var next = Int64.max
        for (id, e) in s.open {
            let expiry = min(e.started + lifetime, e.lastUsed + idleLifetime)
            if now >= expiry {
                out += finish(&s, id, now)
            } else {
                next = min(next, expiry)
            }
        }
        s.nextExpiry = next
        return out
    }

    private func pruneEnded(_ s: inout State, _ now: Int64) {
        s.lastEndedPrune = now
        s.ended = s.ended.filter { now - $0.value.at < lifetime }
        if s.ended.count > Self.maxEnded {
            let keep = s.ended.sorted { $0.value.at > $1.value.at }.prefix(Self.maxEnded / 2)
            s.ended = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
        }
    }

    /// Ends an open transaction now: releases its locks, fails its wait, remembers the id.
    private func finish(_ s: inout State, _ id: [UInt8], _ now: Int64) -> [(LockWait, EmulatorError?)] {
        guard let e = s.open.removeValue(forKey: id) else { return [] }
        remember(&s, id, e, now)
        var out = s.tickets([LockTable.Resolution(owner: e.owner, error: .invalidArgument(Self.invalidMessage))])
        out += s.tickets(s.locks.release(e.owner))
        return out
    }

    private func remember(_ s: inout State, _ id: [UInt8], _ e: Entry, _ now: Int64) {
        s.ended[id] = Ended(database: e.database, age: e.age, at: now)
    }

    /// When the timer must next look: the first wait deadline, or the first expiry of a
    /// transaction while someone waits. Nil when a timer at or before it is already planned.
    private func plan(_ s: inout State, _ now: Int64) -> Int64? {
        guard var at = s.locks.earliestDeadline else { return nil }
        at = min(at, s.nextExpiry)
        if let planned = s.tickAt, planned <= at, planned >= now { return nil }
        s.tickAt = at
        return at
    }

    /// Runs ``tick()`` at `at` on Dispatch's global queue (lock not held).
    private func schedule(_ at: Int64, now: Int64) {
        let delay = max(1_000, at - now)
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .microseconds(Int(min(delay, Int64(Int32.max))))) {
            [weak self] in self?.tick()
        }
    }

    /// Expires transactions and waits whose time came, and plans the next look.
    func tick() {
        let now = clock()
        let (settled, next) = state.withLock { s -> ([(LockWait, EmulatorError?)], Int64?) in
            s.tickAt = nil
            var out = sweep(&s, now)
            out += s.tickets(s.locks.expire(now: now))
            return (out, plan(&s, now))
        }
        resolve(settled)
        if let next { schedule(next, now: now) }
    }

    /// Resolves tickets (lock not held).
    private func resolve(_ settled: [(LockWait, EmulatorError?)]) {
        for (ticket, error) in settled { ticket.resolve(error) }
    }
}
