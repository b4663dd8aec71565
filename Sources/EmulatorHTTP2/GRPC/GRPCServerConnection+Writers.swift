import Synchronization

extension GRPCServerConnection {
    /// The writer handed to handlers: a call id on this connection.
    final class CallWriter: GRPCCallWriter {
        let connection: GRPCServerConnection
        let stream: UInt32

        init(connection: GRPCServerConnection, stream: UInt32) {
            self.connection = connection
            self.stream = stream
        }

        @discardableResult func send(_ message: [UInt8]) -> Bool { connection.send(stream, message) }
        func finish(_ status: GRPCStatus) { connection.finish(stream, status) }
        func respond(_ message: [UInt8]) { connection.respondOK(stream, message) }
        var isOpen: Bool { connection.isOpen(stream) }
        func onCancel(_ handler: @escaping @Sendable () -> Void) { connection.onCancel(stream, handler) }
    }

    /// The writer of server-streaming handlers: collects messages and writes them in batches of
    /// up to 64 KiB, the last batch together with the trailers. Handlers run synchronously, so
    /// batching only delays bytes until the handler returns or the batch fills.
    final class BatchingWriter: GRPCPacedWriter {
        let connection: GRPCServerConnection
        let stream: UInt32
        private let batch = Mutex<(messages: [[UInt8]], bytes: Int, done: Bool)>(([], 0, false))
        static let limit = 64 * 1024

        init(connection: GRPCServerConnection, stream: UInt32) {
            self.connection = connection
            self.stream = stream
        }

        @discardableResult func send(_ message: [UInt8]) -> Bool {
            let full = batch.withLock { b -> [[UInt8]]? in
                guard !b.done else { return nil }
                b.messages.append(message)
                b.bytes += message.count + 5
                guard b.bytes >= Self.limit else { return [] }
                defer { b.messages = []; b.bytes = 0 }
                return b.messages
            }
            guard let full else { return false }
            return full.isEmpty ? connection.isOpen(stream) : connection.respond(stream, full, status: nil)
        }

        func finish(_ status: GRPCStatus) {
            let rest = batch.withLock { b -> [[UInt8]]? in
                guard !b.done else { return nil }
                b.done = true
                return b.messages
            }
            if let rest { _ = connection.respond(stream, rest, status: status) }
        }

        var isOpen: Bool { !batch.withLock { $0.done } && connection.isOpen(stream) }

        func respond(_ message: [UInt8]) {
            send(message)
            finish(.ok)
        }

        func onCancel(_ handler: @escaping @Sendable () -> Void) { connection.onCancel(stream, handler) }

        /// Sends what is batched, then hands the call to `next` (see ``GRPCPacedWriter``).
        func produce(_ next: @escaping @Sendable () -> GRPCProducerStep) {
            let rest = batch.withLock { b -> [[UInt8]]? in
                guard !b.done else { return nil }
                b.done = true
                return b.messages
            }
            guard let rest else { return }
            if !rest.isEmpty, !connection.respond(stream, rest, status: nil) { return }
            connection.produce(stream, next)
        }
    }
}
