/// A method implementation.
package enum GRPCMethod: Sendable {
    /// One request, one response.
    case unary(@Sendable (GRPCCallContext, [UInt8]) -> Result<[UInt8], GRPCStatus>)
    /// One request, any number of responses sent on the writer, then the returned status.
    case serverStreaming(@Sendable (GRPCCallContext, [UInt8], any GRPCMessageWriter) -> GRPCStatus)
    /// One request, answered on the writer now or later, from any thread (``GRPCCallWriter/respond(_:)``
    /// or ``GRPCMessageWriter/finish(_:)``): for handlers that wait without holding the thread.
    case unaryLater(@Sendable (GRPCCallContext, [UInt8], any GRPCCallWriter) -> Void)
    /// One request, any number of responses sent on the writer now or later, then `finish`.
    case serverStreamingLater(@Sendable (GRPCCallContext, [UInt8], any GRPCCallWriter) -> Void)
    /// Streams both ways: the call object receives requests and answers on the writer.
    case bidirectional(@Sendable (GRPCCallContext, any GRPCMessageWriter) -> any GRPCStreamingCall)
}
