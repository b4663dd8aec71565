import Dispatch
import Glibc
import EmulatorModel
import EmulatorStorage
import Synchronization

/// One request that may have to wait for a document lock, across its runs.
///
/// Transports run each Firestore request through ``run(_:finish:)``. A lock that cannot be
/// granted at once does not block the thread: ``TransactionRegistry/acquire(_:age:_:woundable:finishing:)``
/// parks the attempt and unwinds the request with ``parked``; the transport answers later
/// (a deferred HTTP response, a gRPC call that stays open). When the wait ends (granted, wounded,
/// timed out) the request runs again, from the start, on Dispatch's global queue: the locks it
/// waited for are now its own, so it goes through (or it meets the failure the wait ended with).
/// What a run must not repeat is kept here: the transaction a `new_transaction` read began, and
/// the lock owner (and age, hence its place in the queue) of a write outside a transaction.
final class LockAttempt: Sendable {
    /// The attempt whose request runs on this thread: set by ``run(_:resumable:)`` around the
    /// request, nil elsewhere. Kept per thread, not per task: a request runs synchronously on
    /// one thread, and a task-local's push and pop cost hundreds of instructions a request.
    static var current: LockAttempt? {
        guard let raw = pthread_getspecific(currentKey) else { return nil }
        return Unmanaged<LockAttempt>.fromOpaque(raw).takeUnretainedValue()
    }

    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        // Fails only when the process has used up its keys (1,024) or memory; a key that is not
        // ours would then carry another library's values, so stop here instead.
        let created = pthread_key_create(&key, nil)
        precondition(created == 0, "LockAttempt: pthread_key_create failed (\(created))")
        return key
    }()

    /// Runs `body` with `self` as ``current`` on this thread (the caller holds `self`, so the
    /// unretained reference stays valid throughout), then restores what was current.
    private func withCurrent<R>(_ body: () -> R) -> R {
        let previous = pthread_getspecific(Self.currentKey)
        pthread_setspecific(Self.currentKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.currentKey, previous) }
        return body()
    }

    /// Thrown through the request when it parked; the transport never sends it.
    static let parked = EmulatorError(.unavailable, "The request is waiting for a document lock.")

    private enum Phase { case running, parked, done }

    private struct State {
        var phase = Phase.running
        var cancelled = false
        var ticket: LockWait?
        var registry: TransactionRegistry?
        /// The owner whose wait the attempt is parked on.
        var waitingOwner: UInt64?
        /// The one-shot owner of a write outside a transaction (with its age), once made.
        var oneShot: (owner: UInt64, age: UInt64)?
        var blanket = false
        var failure: EmulatorError?
        var begunTransaction: [UInt8]?
        var begunDatabase: DatabaseID?
    }

    private let state = Mutex(State())

    init() {}

    // MARK: Used by the service

    /// The failure the last wait ended with, once.
    func takeFailure() -> EmulatorError? {
        state.withLock { s in
            defer { s.failure = nil }
            return s.failure
        }
    }

    /// The transaction a `new_transaction` read of an earlier run began.
    var begunTransaction: [UInt8]? { state.withLock { $0.begunTransaction } }

    /// Remembers the transaction this request began: a later run reuses it, and a cancelled
    /// request rolls it back (its client never learnt the id, so nobody else could).
    func noteBegun(_ id: [UInt8], database: DatabaseID, registry: TransactionRegistry) {
        state.withLock { s in
            s.begunTransaction = id
            s.begunDatabase = database
            s.registry = registry
        }
    }

    /// The lock owner of this request's writes outside a transaction (made on first use: its age
    /// is the request's arrival).
    func oneShotOwner(_ registry: TransactionRegistry) -> (owner: UInt64, age: UInt64) {
        if let made = state.withLock({ $0.oneShot }) { return made }
        let serial = registry.nextSerial()
        return state.withLock { s in
            if let made = s.oneShot { return made }
            s.oneShot = (serial, serial)
            s.registry = registry
            return (serial, serial)
        }
    }

    var hasOneShotOwner: Bool { state.withLock { $0.oneShot != nil } }

    /// Whether the one-shot write was admitted without per-document locks (released at the end).
    func noteBlanket(_ registry: TransactionRegistry) {
        state.withLock {
            $0.blanket = true
            $0.registry = registry
        }
    }

    func park(_ ticket: LockWait, owner: UInt64, registry: TransactionRegistry) {
        state.withLock { s in
            s.ticket = ticket
            s.waitingOwner = owner
            s.registry = registry
        }
    }

    // MARK: Used by transports

    /// Runs `body` with this attempt current. Returns its result, or a ``Pending`` when it
    /// parked: then `body` runs again once the wait ends (and again if it parks again), and the
    /// pending result is delivered after the commits of that run are durable.
    func run<R: Sendable>(_ body: @escaping @Sendable () -> R) -> Outcome<R> {
        run(body, resumable: { body })
    }

    /// ``run(_:)`` for a caller whose first run needs no escaping closure: `body` runs now, and
    /// `resumable` is asked for the closure that runs again only if the request parked (a REST
    /// request then copies itself into a closure once, instead of on every request).
    func run<R: Sendable>(_ body: () -> R, resumable: () -> @Sendable () -> R) -> Outcome<R> {
        let result = withCurrent(body)
        let (ticket, cancelledMeanwhile) = state.withLock { s -> (LockWait?, Bool) in
            guard let ticket = s.ticket else {
                s.phase = .done
                return (nil, false)
            }
            s.ticket = nil
            s.phase = s.cancelled ? .done : .parked
            return (ticket, s.cancelled)
        }
        guard let ticket else {
            releaseOwnLocks()
            return .now(result)
        }
        if cancelledMeanwhile {
            // The client left while the request ran: nobody will take the answer.
            withdraw()
            return .now(result)
        }
        let pending = Pending<R>()
        resume(after: ticket, resumable(), pending)
        return .later(pending)
    }

    private func resume<R: Sendable>(after ticket: LockWait, _ body: @escaping @Sendable () -> R, _ pending: Pending<R>) {
        ticket.onResolve { [self] error in
            let go = state.withLock { s -> Bool in
                s.waitingOwner = nil
                if let error { s.failure = error }
                guard !s.cancelled, s.phase == .parked else { return false }
                s.phase = .running
                return true
            }
            guard go else { return }
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                let (outcome, scope) = DurabilityScope.collect { run(body) }
                switch outcome {
                case .now(let result):
                    if let scope { scope.whenDurable { pending.deliver(result) } } else { pending.deliver(result) }
                case .later(let next):
                    next.onResult { pending.deliver($0) }
                }
            }
        }
    }

    /// The client went away (connection or stream closed) while the request waited: withdraws
    /// the wait and releases the locks of a write outside a transaction. A running request
    /// finishes on its own.
    func cancel() {
        let (registry, waiting, release) = state.withLock { s -> (TransactionRegistry?, UInt64?, Bool) in
            s.cancelled = true
            guard s.phase == .parked else { return (nil, nil, false) }
            s.phase = .done
            return (s.registry, s.waitingOwner, true)
        }
        guard release else { return }
        if let registry, let waiting { registry.cancelWait(waiting) }
        releaseOwnLocks()
        rollBackBegun()
    }

    private func rollBackBegun() {
        let (registry, id, database) = state.withLock { ($0.registry, $0.begunTransaction, $0.begunDatabase) }
        guard let registry, let id, let database else { return }
        try? registry.rollback(id, database: database, now: registry.clock())
    }

    private func withdraw() {
        let (registry, waiting) = state.withLock { ($0.registry, $0.waitingOwner) }
        if let registry, let waiting { registry.cancelWait(waiting) }
        releaseOwnLocks()
        rollBackBegun()
    }

    private func releaseOwnLocks() {
        let (registry, oneShot, blanket) = state.withLock { s -> (TransactionRegistry?, UInt64?, Bool) in
            defer {
                s.oneShot = nil
                s.blanket = false
            }
            return (s.registry, s.oneShot?.owner, s.blanket)
        }
        if let oneShot { registry?.release(oneShot) }
        if blanket { registry?.releaseBlanket() }
    }
}

extension LockAttempt {
    enum Outcome<R: Sendable> {
        case now(R)
        case later(Pending<R>)
    }

    /// The result of a request that waited, delivered once from any thread to the one handler.
    final class Pending<R: Sendable>: Sendable {
        private let state = Mutex<(result: R?, handler: (@Sendable (R) -> Void)?)>((nil, nil))

        func deliver(_ result: R) {
            let handler = state.withLock { s -> (@Sendable (R) -> Void)? in
                guard let handler = s.handler else {
                    s.result = result
                    return nil
                }
                s.handler = nil
                return handler
            }
            handler?(result)
        }

        func onResult(_ handler: @escaping @Sendable (R) -> Void) {
            let ready = state.withLock { s -> R? in
                guard let result = s.result else {
                    s.handler = handler
                    return nil
                }
                s.result = nil
                return result
            }
            if let ready { handler(ready) }
        }
    }
}
