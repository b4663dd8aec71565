/// Decides whether the replies of a piece of handler work may go out at once or only later (for
/// example once the writes the work made are durable). Transports that answer on a taken-over
/// connection (gRPC streams, WebSocket messages) run each request's work through the gate and,
/// when it says "later", hold that reply and every later one of the same stream or socket until
/// the gate releases it; other streams and connections go on.
///
/// The transport only learns that a reply completes later, never why.
///
/// ```swift
/// let gate = ReplyGate { work in
///     let ((), scope) = DurabilityScope.collect(work)
///     return scope.map { scope in { action in scope.whenDurable(action) } }
/// }
/// if let release = gate.run({ handle(message) }) {
///     release { writer.execute { sendHeldReplies() } }   // hop back to the connection's thread
/// }
/// ```
package struct ReplyGate: Sendable {
    /// Registers the action to run once the held replies may go out (on any thread, at most once).
    package typealias Release = @Sendable (@escaping @Sendable () -> Void) -> Void

    private let body: @Sendable (() -> Void) -> Release?

    /// `body` runs the work it is given (exactly once, on the calling thread) and returns nil when
    /// the replies may go out now, else how to wait for the moment they may.
    package init(_ body: @escaping @Sendable (() -> Void) -> Release?) {
        self.body = body
    }

    /// Runs `work`; nil means its replies may go out now.
    package func run(_ work: () -> Void) -> Release? {
        body(work)
    }
}
