import Glibc

/// A mutex with two condition variables (Synchronization's `Mutex` has no wait), for the
/// journal's group commit: committers wait on one for the flush that covers them; the syncer
/// thread waits on the other for work, so waking it does not wake every waiting committer.
///
/// `@unchecked Sendable`: the pthread objects live at stable heap addresses for the lifetime of
/// the instance and are only used through the pthread calls, which are thread-safe.
final class JournalLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private let work: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        work = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        pthread_cond_init(work, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_cond_destroy(work)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
        work.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    /// Waits (the lock held on entry and on return) until `broadcast`.
    func wait() { pthread_cond_wait(condition, mutex) }
    func broadcast() { pthread_cond_broadcast(condition) }
    /// Waits (the lock held on entry and on return) until `signalWork`.
    func waitForWork() { pthread_cond_wait(work, mutex) }
    func signalWork() { pthread_cond_signal(work) }

    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
