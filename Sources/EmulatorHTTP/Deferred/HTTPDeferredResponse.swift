import Glibc

/// A response that a handler hands back now and completes later, from any thread.
///
/// The transport keeps the connection's place: on HTTP/1.1 the requests pipelined behind it wait
/// (responses stay in order) while the event loop goes on serving other connections. The first
/// ``complete(_:)`` wins; later calls are ignored. A completion that arrives after the connection
/// closed is dropped.
///
/// ```swift
/// let deferred = HTTPDeferredResponse()
/// journal.whenDurable(token) { deferred.complete(.json(body)) }
/// return .deferred(deferred)
/// ```
package final class HTTPDeferredResponse: @unchecked Sendable {
    // @unchecked Sendable: `state` is only read or written with `mutex` held; the pthread objects
    // live at stable heap addresses for the lifetime of the instance.

    private enum State {
        case pending((@Sendable (HTTPResponse) -> Void)?)
        case completed(HTTPResponse)
        /// The completion went to the transport's handler (or the transport gave up).
        case delivered
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var state: State = .pending(nil)
    private var finalResponse: HTTPResponse?
    private var cancelHandler: (@Sendable () -> Void)?
    private var cancelled = false

    package init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    /// Completes the exchange with `response` (any thread; the first call wins). A deferred body
    /// in `response` is followed in turn.
    package func complete(_ response: HTTPResponse) {
        pthread_mutex_lock(mutex)
        guard case .pending(let handler) = state else {
            pthread_mutex_unlock(mutex)
            return
        }
        finalResponse = response
        cancelHandler = nil
        if let handler {
            state = .delivered
            pthread_mutex_unlock(mutex)
            handler(response)
        } else {
            state = .completed(response)
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
    }

    /// Whether ``complete(_:)`` has been called.
    package var isCompleted: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return finalResponse != nil
    }

    // MARK: - Transport side

    /// Takes the response if it is already complete (then no handler will run).
    package func takeIfCompleted() -> HTTPResponse? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard case .completed(let response) = state else { return nil }
        state = .delivered
        return response
    }

    /// Registers the one handler that receives the response: at once (on the caller's thread) if
    /// already complete, else on the completing thread. Only the transport calls this, once.
    package func onComplete(_ handler: @escaping @Sendable (HTTPResponse) -> Void) {
        pthread_mutex_lock(mutex)
        switch state {
        case .pending:
            state = .pending(handler)
            pthread_mutex_unlock(mutex)
        case .completed(let response):
            state = .delivered
            pthread_mutex_unlock(mutex)
            handler(response)
        case .delivered:
            pthread_mutex_unlock(mutex)
        }
    }

    /// The transport no longer wants the response (its connection closed): drops the handler
    /// (and what it holds); a later ``complete(_:)`` is ignored.
    package func cancel() {
        pthread_mutex_lock(mutex)
        var handler: (@Sendable () -> Void)?
        if case .pending = state {
            state = .delivered
            cancelled = true
            handler = cancelHandler
        }
        cancelHandler = nil
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
        handler?()
    }

    /// Runs `handler` if the transport gives the exchange up (its connection closed) before it
    /// was completed: at once if that already happened, else on the thread that cancels. The
    /// producer uses it to stop work nobody will receive.
    package func onCancel(_ handler: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        if cancelled {
            pthread_mutex_unlock(mutex)
            return handler()
        }
        if case .pending = state { cancelHandler = handler }
        pthread_mutex_unlock(mutex)
    }

    /// Blocks until completed and returns the response (in-process callers; never on an event
    /// loop). Returns `nil` if the exchange was cancelled first.
    package func wait() -> HTTPResponse? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            switch state {
            case .pending:
                pthread_cond_wait(condition, mutex)
            case .completed(let response):
                return response
            case .delivered:
                return finalResponse
            }
        }
    }
}
