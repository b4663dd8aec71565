import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf
import EmulatorStorage
import Synchronization

/// The gRPC framing of a Listen stream: protobuf `ListenRequest`s in, protobuf
/// `ListenResponse`s out, everything else in ``ListenStream``.
final class FirestoreListenCall: GRPCStreamingCall {
    let stream: ListenStream

    init(service: FirestoreService, caller: FirestoreCaller, writer: any GRPCMessageWriter) {
        let sink = Sink(writer: writer)
        stream = ListenStream(service: service, caller: caller, sink: sink)
        sink.listening(to: stream)
    }

    /// Collects the messages of one answer or refresh (up to 64 KiB) and hands them to the
    /// connection together, when the writer takes batches. Called under the stream's lock, so
    /// the buffer's own lock is never contended.
    ///
    /// A client more than ``GRPCServerConnection/behindBytes`` behind is backed up: its stream's
    /// commits wait in the inbox and go out folded into one snapshot when the connection says
    /// it caught up, instead of queueing until the stream is reset.
    private final class Sink: ListenEventSink {
        let writer: any GRPCMessageWriter
        let batches: (any GRPCMessageBatchWriter)?
        let backlog: (any GRPCBacklogWriter)?
        /// Wakes the stream's worker (set once, right after the stream is made). Kept in a struct:
        /// a closure held bare as a `Mutex`'s value comes back from every `withLock` wrapped in two
        /// more reabstraction thunks, and a stream behind for half an hour (one read per look)
        /// built a chain whose release overflowed the stack.
        private let wake = Mutex<Wake?>(nil)
        private struct Wake: Sendable {
            let run: @Sendable () -> Void
        }
        private struct Pending {
            var framed = GRPCFramedMessages()
            var names = ListenResponse.DocumentNames()
        }
        private let pending = Mutex(Pending())
        static let limit = 64 * 1024

        init(writer: any GRPCMessageWriter) {
            self.writer = writer
            self.batches = writer as? any GRPCMessageBatchWriter
            self.backlog = writer as? any GRPCBacklogWriter
        }

        func listening(to stream: ListenStream) {
            wake.withLock { $0 = Wake { [weak stream] in stream?.wake() } }
        }

        var isBackedUp: Bool {
            guard let backlog, backlog.isBehind, let wake = wake.withLock({ $0 }) else { return false }
            backlog.whenCaughtUp(wake.run)
            return true
        }

        func send(_ event: ListenEvent) {
            guard batches != nil else {
                let message = pending.withLock { ListenResponse.encode(event, names: &$0.names) }
                writer.send(message)
                return
            }
            // Each message is written, framed, at the end of the batch's one buffer.
            let full = pending.withLock { p -> Bool in
                var names = p.names
                p.framed.append { buffer in
                    var w = ProtoWriter()
                    swap(&w.bytes, &buffer)
                    ListenResponse.write(event, names: &names, to: &w)
                    swap(&w.bytes, &buffer)
                }
                p.names = names
                return p.framed.bytes.count >= Self.limit
            }
            if full { flush() }
        }

        func sendStored(_ entry: StoredEntry, database: DatabaseID, target: Int32) {
            guard batches != nil else {
                send(.documentChange(.stored(entry), database: database, targets: [target]))
                return
            }
            let full = pending.withLock { p -> Bool in
                let prefix = p.names.prefix(database)
                // Documents come in runs: the batch takes up to its limit in one buffer.
                if p.framed.isEmpty { p.framed.reserve(Self.limit + 4096) }
                p.framed.append { buffer in
                    var w = ProtoWriter()
                    swap(&w.bytes, &buffer)
                    ListenResponse.write(entry, prefix: prefix, target: target, to: &w)
                    swap(&w.bytes, &buffer)
                }
                return p.framed.bytes.count >= Self.limit
            }
            if full { flush() }
        }

        func flush() {
            guard let batches else { return }
            let framed = pending.withLock { p in
                defer { p.framed = GRPCFramedMessages() }
                return p.framed
            }
            if !framed.isEmpty { batches.send(framed: framed) }
        }

        func finish(_ error: EmulatorError?) {
            flush()
            writer.finish(error.map(FirestoreGRPC.status) ?? .ok)
        }
    }

    func received(_ message: [UInt8]) {
        stream.receive { () throws(EmulatorError) in try Self.decode(message) }
    }

    func halfClosed() { stream.halfClose() }

    func cancelled() { stream.cancel() }

    /// Re-evaluates the targets now (tests drive the worker's step directly).
    func refresh() { stream.refresh() }

    static func decode(_ message: [UInt8]) throws(EmulatorError) -> ListenRequest {
        var r = ProtoReader(message)
        var request = ListenRequest(database: "")
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); request.database = try r.string()
            case 2: try r.expect(w, .lengthDelimited, f); request.addTarget = try ListenTarget(r.message())
            case 3: try r.expect(w, .varint, f); request.removeTarget = try r.int32()
            default: try r.skip(w)
            }
        }
        return request
    }
}
