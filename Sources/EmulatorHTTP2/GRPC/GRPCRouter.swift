/// What a handler knows about its call: the method path and the request metadata.
package struct GRPCCallContext: Sendable {
    /// `/package.Service/Method`.
    package var path: String
    /// Request headers other than pseudo-headers (`authorization`, `google-cloud-resource-prefix`, …).
    package var metadata: [HeaderField]
    /// The client's `grpc-timeout`, in nanoseconds, when it sent one.
    package var timeoutNanoseconds: Int64?

    package init(path: String, metadata: [HeaderField], timeoutNanoseconds: Int64? = nil) {
        self.path = path
        self.metadata = metadata
        self.timeoutNanoseconds = timeoutNanoseconds
    }
}

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

/// A method implementation.
package enum GRPCMethod: Sendable {
    /// One request, one response.
    case unary(@Sendable (GRPCCallContext, [UInt8]) -> Result<[UInt8], GRPCStatus>)
    /// One request, any number of responses sent on the writer, then the returned status.
    case serverStreaming(@Sendable (GRPCCallContext, [UInt8], any GRPCMessageWriter) -> GRPCStatus)
    /// Streams both ways: the call object receives requests and answers on the writer.
    case bidirectional(@Sendable (GRPCCallContext, any GRPCMessageWriter) -> any GRPCStreamingCall)
}

/// Method paths to implementations. Unknown paths answer UNIMPLEMENTED.
///
/// ```swift
/// var router = GRPCRouter()
/// router.register("google.firestore.v1.Firestore", "Commit", .unary { context, request in … })
/// ```
package struct GRPCRouter: Sendable {
    private var methods: [String: GRPCMethod] = [:]

    package init() {}

    package mutating func register(_ service: String, _ method: String, _ implementation: GRPCMethod) {
        methods["/\(service)/\(method)"] = implementation
    }

    package func method(for path: String) -> GRPCMethod? { methods[path] }
}
