import Glibc

/// A value that threads change and a test waits on: ``wait(seconds:until:)`` wakes on each change
/// (no polling timer), and gives up after a bound so a broken path fails the test instead of
/// hanging it.
///
/// ```swift
/// let started = Watched(0)
/// hook = { started.update { $0 += 1 } }
/// #expect(started.wait { $0 >= 2 })
/// ```
package final class Watched<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is read and written only with `mutex` held, and `condition` is only
    // waited on with it; both pthread objects live in their own allocations (stable addresses).
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// The value now.
    package var current: Value {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return value
    }

    /// Changes the value and wakes every waiter.
    @discardableResult
    package func update<R>(_ body: (inout Value) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return body(&value)
    }

    /// Waits until `condition` holds for the value, for at most `seconds`; whether it held.
    @discardableResult
    package func wait(seconds: Double = 10, until satisfied: (Value) -> Bool) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + Int(seconds.truncatingRemainder(dividingBy: 1) * 1e9)
        deadline.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !satisfied(value) {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { return satisfied(value) }
        }
        return true
    }
}
