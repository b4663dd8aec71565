/// A method implementation.
package enum GRPCMethod: Sendable {
    /// One request, one response.
    case unary(@Sendable (GRPCCallContext, [UInt8]) -> Result<[UInt8], GRPCStatus>)
    /// One request, any number of responses sent on the writer, then the returned status.
    case serverStreaming(@Sendable (GRPCCallContext, [UInt8], any GRPCMessageWriter) -> GRPCStatus)
    /// Streams both ways: the call object receives requests and answers on the writer.
    case bidirectional(@Sendable (GRPCCallContext, any GRPCMessageWriter) -> any GRPCStreamingCall)
}
