/// Splits a request body into gRPC length-prefixed messages: 1 byte compressed flag, 4 bytes
/// big-endian length, then the message.
///
/// ```swift
/// var deframer = GRPCMessageDeframer()
/// deframer.append([0, 0, 0, 0, 2, 0x08, 0x01])
/// let message = try deframer.next()  // [0x08, 0x01]
/// ```
package struct GRPCMessageDeframer: Sendable {
    private var buffer: [UInt8] = []
    package var maxMessageSize: Int

    package init(maxMessageSize: Int = 64 << 20) { self.maxMessageSize = maxMessageSize }

    package mutating func append(_ bytes: [UInt8]) { buffer.append(contentsOf: bytes) }

    /// Whether bytes of an incomplete message remain.
    package var hasPartialMessage: Bool { !buffer.isEmpty }

    /// The next complete message, nil if more bytes are needed. A compressed message is
    /// UNIMPLEMENTED (this server negotiates only `identity`); an oversized one RESOURCE_EXHAUSTED.
    package mutating func next() throws(GRPCStatus) -> [UInt8]? {
        guard buffer.count >= 5 else { return nil }
        let length = Int(buffer[1]) << 24 | Int(buffer[2]) << 16 | Int(buffer[3]) << 8 | Int(buffer[4])
        if buffer[0] != 0 {
            throw GRPCStatus(GRPCStatus.Code.unimplemented, "Compressed messages are not supported (grpc-encoding identity only).")
        }
        if length > maxMessageSize {
            throw GRPCStatus(GRPCStatus.Code.resourceExhausted, "Received message larger than max (\(length) vs. \(maxMessageSize))")
        }
        guard buffer.count >= 5 + length else { return nil }
        let message = Array(buffer[5..<(5 + length)])
        buffer.removeFirst(5 + length)
        return message
    }

    /// Frames `message` uncompressed.
    package static func frame(_ message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(5 + message.count)
        appendFrame(message, to: &out)
        return out
    }

    /// Appends `message`, framed uncompressed, to `out`.
    package static func appendFrame(_ message: [UInt8], to out: inout [UInt8]) {
        let n = UInt32(truncatingIfNeeded: message.count)
        out.append(0)
        out.append(UInt8(n >> 24))
        out.append(UInt8(truncatingIfNeeded: n >> 16))
        out.append(UInt8(truncatingIfNeeded: n >> 8))
        out.append(UInt8(truncatingIfNeeded: n))
        out.append(contentsOf: message)
    }
}
