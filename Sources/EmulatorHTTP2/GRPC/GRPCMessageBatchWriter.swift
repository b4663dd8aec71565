/// A writer that can put several messages of a call on the wire at once: one lock, one DATA
/// write and one wake-up of the connection's loop instead of one per message (a Listen refresh
/// sends a document per changed document).
package protocol GRPCMessageBatchWriter: GRPCMessageWriter {
    /// Sends `messages` in order; false once the call has ended.
    @discardableResult func send(contentsOf messages: [[UInt8]]) -> Bool
    /// Sends messages already framed one after another in `framed` (``GRPCFramedMessages``).
    @discardableResult func send(framed: GRPCFramedMessages) -> Bool
}

/// Messages framed for the wire as they are written: each the 5-byte gRPC prefix and the message,
/// in one buffer, so a batch of many small messages is one allocation.
package struct GRPCFramedMessages: Sendable {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    package var isEmpty: Bool { bytes.isEmpty }

    /// Makes room for `capacity` bytes at once (a batch about to take many messages grows
    /// without copying what it holds).
    package mutating func reserve(_ capacity: Int) { bytes.reserveCapacity(capacity) }

    /// Appends one message, which `body` writes at the end of the buffer it is handed.
    package mutating func append(_ body: (inout [UInt8]) -> Void) {
        let start = bytes.count
        // The 5-byte header (compressed flag, length), filled in below.
        for _ in 0..<5 { bytes.append(0) }
        body(&bytes)
        let n = UInt32(truncatingIfNeeded: bytes.count - start - 5)
        bytes[start + 1] = UInt8(n >> 24)
        bytes[start + 2] = UInt8(truncatingIfNeeded: n >> 16)
        bytes[start + 3] = UInt8(truncatingIfNeeded: n >> 8)
        bytes[start + 4] = UInt8(truncatingIfNeeded: n)
    }
}

extension GRPCServerConnection.CallWriter: GRPCMessageBatchWriter {
    @discardableResult package func send(contentsOf messages: [[UInt8]]) -> Bool {
        messages.isEmpty ? isOpen : connection.respond(stream, messages, status: nil)
    }

    @discardableResult package func send(framed: GRPCFramedMessages) -> Bool {
        framed.isEmpty ? isOpen : connection.respond(stream, [framed.bytes], framed: true, status: nil)
    }
}
