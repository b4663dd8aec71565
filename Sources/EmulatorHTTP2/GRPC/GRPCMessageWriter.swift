/// Sends response messages on a call. Safe to use from any thread; messages after ``finish(_:)``
/// or after the call ended are dropped.
package protocol GRPCMessageWriter: Sendable {
    /// Sends one message; false once the call has ended.
    @discardableResult func send(_ message: [UInt8]) -> Bool
    /// Ends the call with `status`.
    func finish(_ status: GRPCStatus)
    /// Whether the call is still open.
    var isOpen: Bool { get }
}

/// The writer of a call answered later: it can also answer in one piece and learn that the
/// client went away.
package protocol GRPCCallWriter: GRPCMessageWriter {
    /// Sends one message and ends the call with OK.
    func respond(_ message: [UInt8])
    /// Runs `handler` once if the call is reset or its connection closes before it finished (at
    /// once if that already happened). A call that finished drops it.
    func onCancel(_ handler: @escaping @Sendable () -> Void)
}

/// One bidirectional-streaming call in progress. Its methods run on the connection's thread, one
/// at a time.
package protocol GRPCStreamingCall: Sendable {
    /// A request message arrived.
    func received(_ message: [UInt8])
    /// The client half-closed its side.
    func halfClosed()
    /// The call ended (finished, reset or connection gone): release resources.
    func cancelled()
}

/// What a paced producer hands over each time the connection asks it for more.
package enum GRPCProducerStep: Sendable {
    /// More messages (a batch of some tens of KiB); the call goes on.
    case more([[UInt8]])
    /// The last messages and the call's status.
    case end([[UInt8]], GRPCStatus)
}

/// A writer that produces a server-streaming call's responses as the peer takes them: the
/// connection asks `next` for a batch only while little of the call (and of the connection) is
/// queued behind the peer's flow-control windows, and again when a WINDOW_UPDATE makes room. A
/// client that does not read holds a bounded number of encoded bytes, whatever the result's size.
package protocol GRPCPacedWriter: GRPCCallWriter {
    /// Hands the rest of the call to `next` (called on one thread at a time, never under the
    /// connection's lock). A call that is reset or whose connection closes drops `next`.
    func produce(_ next: @escaping @Sendable () -> GRPCProducerStep)
}
