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
