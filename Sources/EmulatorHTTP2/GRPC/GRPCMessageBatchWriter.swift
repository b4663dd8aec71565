/// A writer that can put several messages of a call on the wire at once: one lock, one DATA
/// write and one wake-up of the connection's loop instead of one per message (a Listen refresh
/// sends a document per changed document).
package protocol GRPCMessageBatchWriter: GRPCMessageWriter {
    /// Sends `messages` in order; false once the call has ended.
    @discardableResult func send(contentsOf messages: [[UInt8]]) -> Bool
}

extension GRPCServerConnection.CallWriter: GRPCMessageBatchWriter {
    @discardableResult package func send(contentsOf messages: [[UInt8]]) -> Bool {
        messages.isEmpty ? isOpen : connection.respond(stream, messages, status: nil)
    }
}
