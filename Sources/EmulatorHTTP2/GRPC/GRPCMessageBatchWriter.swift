/// A writer that can put several messages of a call on the wire at once: one lock, one DATA
/// write and one wake-up of the connection's loop instead of one per message (a Listen refresh
/// sends a document per changed document).
package protocol GRPCMessageBatchWriter: GRPCMessageWriter {
    /// Sends `messages` in order; false once the call has ended.
    @discardableResult func send(contentsOf messages: [[UInt8]]) -> Bool
    /// Sends messages already framed one after another in `framed` (``GRPCFramedMessages``).
    @discardableResult func send(framed: GRPCFramedMessages) -> Bool
}

/// A writer that says when its client falls behind: a long-lived call (Listen) can then hold
/// back what it would send and send it folded together once the client has read its backlog,
/// instead of queueing every message (past ``GRPCServerConnection/maxStreamingBacklogBytes`` the
/// stream is reset).
package protocol GRPCBacklogWriter: GRPCMessageWriter {
    /// Whether more than ``GRPCServerConnection/behindBytes`` of this call wait for the client.
    var isBehind: Bool { get }
    /// Runs `handler` once when the call's backlog is down to ``GRPCServerConnection/caughtUpBytes``
    /// (at once if it is), on the thread that learns it; replaces a handler set before; dropped
    /// if the call ends first.
    func whenCaughtUp(_ handler: @escaping @Sendable () -> Void)
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

extension GRPCServerConnection.CallWriter: GRPCBacklogWriter {
    package var isBehind: Bool { connection.isBehind(stream) }
    package func whenCaughtUp(_ handler: @escaping @Sendable () -> Void) { connection.whenCaughtUp(stream, handler) }
}

extension GRPCServerConnection.CallWriter: GRPCMessageBatchWriter {
    @discardableResult package func send(contentsOf messages: [[UInt8]]) -> Bool {
        messages.isEmpty ? isOpen : connection.respond(stream, messages, status: nil)
    }

    @discardableResult package func send(framed: GRPCFramedMessages) -> Bool {
        framed.isEmpty ? isOpen : connection.respond(stream, [framed.bytes], framed: true, status: nil)
    }
}
