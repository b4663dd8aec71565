import Synchronization

/// Lets a caller that can answer later (an HTTP handler on a transport with deferred responses)
/// collect the durability waits of the commits it makes instead of blocking on each one.
///
/// Inside ``collect(_:)`` a commit on the same thread returns once its changes are visible (and
/// journaled, not yet durable); the scope remembers the log and the latest token, and the caller
/// must not acknowledge the write before ``whenDurable(_:)`` runs its action. Outside a scope (or on
/// another thread) commits wait as before.
///
/// ```swift
/// let (response, scope) = DurabilityScope.collect { router.respond(to: request) }
/// guard let scope else { return response }         // nothing to wait for
/// let deferred = HTTPDeferredResponse()
/// scope.whenDurable { deferred.complete(response) }
/// return .deferred(deferred)
/// ```
package final class DurabilityScope: Sendable {
    @TaskLocal private static var current: DurabilityScope?

    private let pending = Mutex<(log: (any CommitLog)?, token: UInt64)>((nil, 0))

    private init() {}

    /// Runs `body` with commits on this thread deferring their durability wait to the returned
    /// scope; the scope is `nil` when no commit needs waiting for.
    package static func collect<R>(_ body: () throws -> R) rethrows -> (R, DurabilityScope?) {
        let scope = DurabilityScope()
        let result = try $current.withValue(scope) { try body() }
        return (result, scope.pending.withLock { $0.log == nil } ? nil : scope)
    }

    /// Runs `action` once every commit collected is durable: at once on this thread if they
    /// already are, else on the log's thread (keep it short).
    package func whenDurable(_ action: @escaping @Sendable () -> Void) {
        let (log, token) = pending.withLock { ($0.log, $0.token) }
        guard let log else { return action() }
        log.whenDurable(token, action)
    }

    /// Blocks until every commit collected is durable.
    package func waitUntilDurable() {
        let (log, token) = pending.withLock { ($0.log, $0.token) }
        log?.waitUntilDurable(token)
    }

    /// Called by the engine after a commit appended `token` to `log`: defers to the current
    /// scope, or waits.
    static func awaitDurable(_ log: any CommitLog, _ token: UInt64) {
        if let scope = current {
            scope.pending.withLock { pending in
                // One log per engine; a later token covers every earlier one.
                pending.log = log
                pending.token = max(pending.token, token)
            }
        } else {
            log.waitUntilDurable(token)
        }
    }
}
