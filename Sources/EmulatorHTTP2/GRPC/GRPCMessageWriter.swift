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
