import Glibc

/// A mutex with three condition variables (Synchronization's `Mutex` has no wait), for the
/// journal's group commit. Committers wait on one of two batch conditions: the one of the flush
/// in progress if that flush covers them, else the one of the next flush, so finishing a flush
/// wakes only the committers it covers (not those already waiting for the next one). The syncer
/// thread waits on the third for work, so waking it does not wake any waiting committer.
///
/// `@unchecked Sendable`: the pthread objects live at stable heap addresses for the lifetime of
/// the instance and are only used through the pthread calls, which are thread-safe.
final class JournalLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Two batch conditions: batch `n` uses `conditions[n & 1]`.
    private let conditions: UnsafeMutablePointer<pthread_cond_t>
    private let work: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        conditions = .allocate(capacity: 2)
        work = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(conditions, nil)
        pthread_cond_init(conditions + 1, nil)
        pthread_cond_init(work, nil)
    }

    deinit {
        pthread_cond_destroy(conditions)
        pthread_cond_destroy(conditions + 1)
        pthread_cond_destroy(work)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        conditions.deallocate()
        work.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    /// Waits (the lock held on entry and on return) until `broadcast(batch:)` of the same batch
    /// parity or `broadcastAll` (or spuriously: callers re-check their condition).
    func wait(batch: UInt64) { pthread_cond_wait(conditions + Int(batch & 1), mutex) }
    /// Wakes the committers waiting for `batch`.
    func broadcast(batch: UInt64) { pthread_cond_broadcast(conditions + Int(batch & 1)) }
    /// Wakes every waiting committer.
    func broadcastAll() {
        pthread_cond_broadcast(conditions)
        pthread_cond_broadcast(conditions + 1)
    }
    /// Waits (the lock held on entry and on return) until `signalWork`.
    func waitForWork() { pthread_cond_wait(work, mutex) }
    func signalWork() { pthread_cond_signal(work) }
    /// Waits for work (the lock held on entry and on return) at most `milliseconds`.
    func waitForWork(milliseconds: Int) {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let nanos = Int(deadline.tv_nsec) + milliseconds % 1000 * 1_000_000
        deadline.tv_sec += milliseconds / 1000 + nanos / 1_000_000_000
        deadline.tv_nsec = nanos % 1_000_000_000
        pthread_cond_timedwait(work, mutex, &deadline)
    }

    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
