package import EmulatorHTTP
import EmulatorStorage

/// Wraps an HTTP handler so a write is acknowledged only once its commit is durable, without
/// blocking the transport thread that ran the handler.
///
/// With a `--data-dir` journal, each commit waits for the group-commit sync before it
/// returns. On an event-loop transport that wait would stall every connection of the loop (so at
/// most one sync per loop would be in flight). Inside the wrapper the commits made by the handler
/// only record what they wait for; the response goes back as an `HTTPDeferredResponse` that
/// the journal's syncer completes after the sync covering them. Requests that commit nothing are
/// answered directly.
package enum DurableAcknowledgement {
    /// `handler`, acknowledging writes after they are durable through deferred responses. Use
    /// only with a transport that completes deferred responses (``ListenerFactory``).
    ///
    /// ```swift
    /// let handler = DurableAcknowledgement.deferring(router.respond(to:))
    /// ```
    package static func deferring(_ handler: @escaping HTTPHandler) -> HTTPHandler {
        { request in
            let (response, scope) = DurabilityScope.collect { handler(request) }
            guard let scope else { return response }
            if case .bytes = response.body {} else {
                // Streams and upgrades start now; keep the blocking guarantee for them.
                scope.waitUntilDurable()
                return response
            }
            let deferred = HTTPDeferredResponse()
            scope.whenDurable { deferred.complete(response) }
            return .deferred(deferred, status: response.status)
        }
    }

    /// The gate for taken-over connections (gRPC streams, RTDB WebSockets): a reply whose work
    /// committed waits until those commits are durable; the transport keeps later replies of the
    /// same stream or socket behind it. Work that commits nothing passes at once.
    ///
    /// ```swift
    /// FirestoreGRPC(service: service).connectionFactory(gate: DurableAcknowledgement.replyGate)
    /// ```
    package static let replyGate = ReplyGate { work in
        let ((), scope) = DurabilityScope.collect(work)
        guard let scope else { return nil }
        return { action in scope.whenDurable(action) }
    }
}
