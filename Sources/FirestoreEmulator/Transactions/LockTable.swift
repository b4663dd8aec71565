import EmulatorModel

/// The document locks of pessimistic read-write transactions, as production runs the server
/// SDKs' transactions: a transaction's reads take shared locks, a commit takes exclusive locks on
/// what it writes, and a conflicting request waits for the holder instead of failing.
///
/// Deadlocks are avoided by wound-wait: every owner has an age (smaller is older). A request that
/// conflicts only with younger transactions *wounds* them (their locks go at once, their waits
/// and next calls fail with ABORTED, which the clients retry keeping their age); a request that
/// conflicts with an older owner, or with an older request already waiting for the same
/// document, waits. Waits therefore only ever point from younger to older, so they never form a
/// cycle, and an old transaction is never starved by younger ones.
///
/// A pure state machine (no clock, no threads): `TransactionRegistry` runs it under its lock,
/// passes the time in and carries out the ``Resolution``s it returns.
struct LockTable: Sendable {
    typealias Owner = UInt64

    struct Key: Hashable, Sendable {
        var database: DatabaseID
        var path: ResourcePath
    }

    enum Mode: Sendable, Equatable {
        case shared, exclusive

        func conflicts(with other: Mode) -> Bool { self == .exclusive || other == .exclusive }
    }

    /// The end of a wait: the owner's requested locks were granted, or the wait failed.
    struct Resolution: Sendable, Equatable {
        var owner: Owner
        var error: EmulatorError?
    }

    enum Outcome: Sendable, Equatable {
        case granted
        case waiting
        case failed(EmulatorError)
    }

    struct Wait: Sendable {
        var keys: [Key: Mode]
        var deadline: Int64
        /// Granting it makes the owner unwoundable (a commit about to run).
        var finishing: Bool
    }

    struct OwnerState: Sendable {
        var age: UInt64
        /// Transactions between calls may be wounded; one-shot writers and committing
        /// transactions hold their locks only while they run, so they are waited for.
        var woundable: Bool
        var held: [Key: Mode] = [:]
        var wait: Wait?
    }

    static let timeout = EmulatorError.aborted("Transaction lock timeout.")
    static let wounded = EmulatorError.aborted("Too much contention on these documents. Please try again.")

    private(set) var owners: [Owner: OwnerState] = [:]
    private var holders: [Key: [Owner: Mode]] = [:]
    private var waiting: Set<Owner> = []
    /// Wounded transactions (out of `owners`: they hold nothing) until their end is reported.
    private var wounded: Set<Owner> = []
    /// One-shot writers admitted while no transaction held or waited for anything: they hold the
    /// whole table (no per-document bookkeeping on the plain write path); transactions wait for them.
    private(set) var blanketWriters = 0

    var isIdle: Bool { owners.isEmpty && blanketWriters == 0 }
    var hasWaiters: Bool { !waiting.isEmpty }

    /// The earliest deadline of a wait, if any.
    var earliestDeadline: Int64? { waiting.compactMap { owners[$0]?.wait?.deadline }.min() }

    func isWounded(_ owner: Owner) -> Bool { wounded.contains(owner) }
    func holds(_ owner: Owner, _ key: Key) -> Mode? { owners[owner]?.held[key] }
    func isWaiting(_ owner: Owner) -> Bool { waiting.contains(owner) }

    /// Admits a one-shot writer (a write outside any transaction) without per-document
    /// bookkeeping when no transaction holds or waits for a lock; the caller must call
    /// ``releaseBlanket()`` once its commit ran. False when it must ``acquire(_:age:_:woundable:finishing:deadline:)``.
    mutating func admitBlanket() -> Bool {
        guard owners.isEmpty else { return false }
        blanketWriters += 1
        return true
    }

    mutating func releaseBlanket() -> [Resolution] {
        blanketWriters = max(0, blanketWriters - 1)
        return blanketWriters == 0 ? regrant() : []
    }

    /// Requests `keys` for `owner` (registered now if new, with `age`). All or nothing: either
    /// every key is granted, or the owner waits (until `deadline`) holding only what it held
    /// before. Without a deadline the owner cannot wait and the request fails instead. Also returns
    /// the waits that ended because this request wounded their owners.
    mutating func acquire(
        _ owner: Owner, age: UInt64, _ keys: [Key: Mode], woundable: Bool, finishing: Bool = false, deadline: Int64?
    ) -> (Outcome, [Resolution]) {
        if wounded.contains(owner) { return (.failed(Self.wounded), []) }
        if owners[owner] == nil { owners[owner] = OwnerState(age: age, woundable: woundable) }
        guard let state = owners[owner] else { return (.failed(Self.timeout), []) }
        if var wait = state.wait {
            // Another request of the same transaction while one waits: one wait for both.
            guard let deadline else { return (.failed(Self.timeout), []) }
            for (key, mode) in keys where state.held[key] != .exclusive && wait.keys[key] != .exclusive {
                if mode == .exclusive || state.held[key] == nil { wait.keys[key] = mode }
            }
            wait.deadline = min(wait.deadline, deadline)
            wait.finishing = wait.finishing || finishing
            owners[owner]?.wait = wait
            return (.waiting, [])
        }
        let needed = keys.filter { key, mode in
            guard let have = state.held[key] else { return true }
            return have == .shared && mode == .exclusive
        }
        let (blocked, victims) = evaluate(owner, needed)
        if !blocked {
            var resolutions: [Resolution] = []
            for v in victims { resolutions += wound(v) }
            grant(owner, needed, finishing: finishing)
            return (.granted, resolutions)
        }
        guard let deadline else { return (.failed(Self.timeout), []) }
        owners[owner]?.wait = Wait(keys: needed, deadline: deadline, finishing: finishing)
        waiting.insert(owner)
        return (.waiting, [])
    }

    /// Drops everything of `owner` (its transaction ended, or its one-shot write ran) and grants
    /// what that makes grantable.
    mutating func release(_ owner: Owner) -> [Resolution] {
        wounded.remove(owner)
        guard let state = owners.removeValue(forKey: owner) else { return [] }
        waiting.remove(owner)
        for key in state.held.keys { removeHolder(owner, key) }
        return regrant()
    }

    /// Withdraws `owner`'s wait (its client went away); what it already held stays.
    mutating func cancelWait(_ owner: Owner) -> [Resolution] {
        guard owners[owner]?.wait != nil else { return [] }
        cancelWaitOnly(owner)
        return regrant()
    }

    /// Fails the waits whose deadline passed.
    mutating func expire(now: Int64) -> [Resolution] {
        var out: [Resolution] = []
        for owner in waiting.sorted() {
            guard let deadline = owners[owner]?.wait?.deadline, deadline <= now else { continue }
            cancelWaitOnly(owner)
            out.append(Resolution(owner: owner, error: Self.timeout))
        }
        return out.isEmpty ? out : out + regrant()
    }

    // MARK: Internals

    private mutating func cancelWaitOnly(_ owner: Owner) {
        owners[owner]?.wait = nil
        waiting.remove(owner)
    }

    private mutating func removeHolder(_ owner: Owner, _ key: Key) {
        holders[key]?.removeValue(forKey: owner)
        if holders[key]?.isEmpty == true { holders.removeValue(forKey: key) }
    }

    /// Whether `owner` must wait for `needed`, and which younger transactions stand in its way.
    private func evaluate(_ owner: Owner, _ needed: [Key: Mode]) -> (blocked: Bool, victims: Set<Owner>) {
        guard !needed.isEmpty else { return (false, []) }
        if blanketWriters > 0 { return (true, []) }
        let age = owners[owner]?.age ?? .max
        var victims = Set<Owner>()
        var blocked = false
        for (key, mode) in needed {
            for (holder, held) in holders[key] ?? [:] where holder != owner && mode.conflicts(with: held) {
                guard let h = owners[holder] else { continue }
                if h.woundable && h.age > age { victims.insert(holder) } else { blocked = true }
            }
            for other in waiting where other != owner {
                guard let o = owners[other], o.age < age, let wanted = o.wait?.keys[key], mode.conflicts(with: wanted) else { continue }
                blocked = true
            }
        }
        return (blocked, blocked ? [] : victims)
    }

    private mutating func grant(_ owner: Owner, _ needed: [Key: Mode], finishing: Bool) {
        for (key, requested) in needed {
            // Never a downgrade: an exclusive lock stays exclusive.
            let mode = owners[owner]?.held[key] == .exclusive ? .exclusive : requested
            owners[owner]?.held[key] = mode
            holders[key, default: [:]][owner] = mode
        }
        if finishing { owners[owner]?.woundable = false }
    }

    /// Aborts a younger transaction: its locks go now, its wait fails; its next call fails too.
    private mutating func wound(_ victim: Owner) -> [Resolution] {
        guard let state = owners.removeValue(forKey: victim) else { return [] }
        for key in state.held.keys { removeHolder(victim, key) }
        wounded.insert(victim)
        guard state.wait != nil else { return [] }
        waiting.remove(victim)
        return [Resolution(owner: victim, error: Self.wounded)]
    }

    /// Grants waits that became grantable, oldest first, until nothing changes.
    private mutating func regrant() -> [Resolution] {
        var out: [Resolution] = []
        var changed = true
        while changed && !waiting.isEmpty {
            changed = false
            let ordered = waiting.sorted { (owners[$0]?.age ?? .max, $0) < (owners[$1]?.age ?? .max, $1) }
            for owner in ordered {
                guard let wait = owners[owner]?.wait else { continue }
                let (blocked, victims) = evaluate(owner, wait.keys)
                if blocked { continue }
                for v in victims { out += wound(v) }
                cancelWaitOnly(owner)
                grant(owner, wait.keys, finishing: wait.finishing)
                out.append(Resolution(owner: owner, error: nil))
                changed = true
                break
            }
        }
        return out
    }
}
