/// What the connection knows about one open stream.
struct HTTP2StreamState: Sendable {
    enum Outbound: Sendable {
        case data([UInt8], endStream: Bool)
        case trailers([HeaderField])
        /// Trailers already encoded as a header block (see ``HTTP2Connection/sendTrailers(stream:block:)``).
        case encodedTrailers([UInt8])
    }

    /// The peer sent END_STREAM.
    var remoteClosed = false
    /// We sent END_STREAM (trailers or a final DATA frame).
    var localClosed = false
    /// How many bytes we may still send on this stream.
    var sendWindow: Int
    /// How many bytes the peer may still send on this stream.
    var receiveWindow: Int
    /// Data and trailers waiting for flow-control window, in order.
    var pending: [Outbound] = []
    /// Offset into the head of `pending` when it is partially sent.
    var pendingOffset = 0
    /// DATA bytes in `pending` not yet sent.
    var pendingBytes = 0

    init(sendWindow: Int, receiveWindow: Int) {
        self.sendWindow = sendWindow
        self.receiveWindow = receiveWindow
    }
}
