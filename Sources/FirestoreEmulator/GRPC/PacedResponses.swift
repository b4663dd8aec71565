import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf
import Synchronization

/// The responses of a server-streaming call made a batch at a time (see ``GRPCPacedWriter``; the
/// REST routes use it for the elements of their JSON arrays, ``FirestoreREST/pacedArray``):
/// `prefix` first, then one message per item, encoded only when the connection asks for more.
/// Each item is dropped once encoded, so a large result's memory goes down as it goes out, and
/// a client that reads nothing holds at most a few batches of encoded bytes.
final class PacedResponses<Item: Sendable>: Sendable {
    /// Encoded bytes per batch handed to the connection.
    static var batchBytes: Int { 64 * 1024 }

    private let state: Mutex<(prefix: [[UInt8]], next: Int, items: [Item?])>
    private let encode: @Sendable (_ item: Item, _ index: Int, _ count: Int) -> [UInt8]

    init(prefix: [[UInt8]], items: [Item], encode: @escaping @Sendable (Item, Int, Int) -> [UInt8]) {
        state = Mutex((prefix, 0, items.map { Optional($0) }))
        self.encode = encode
    }

    /// The next batch: `.end` with the last one.
    func step() -> GRPCProducerStep {
        let (messages, isLast) = next()
        return isLast ? .end(messages, .ok) : .more(messages)
    }

    /// The next batch of messages (about `batchBytes`), and whether it is the last.
    func next() -> (messages: [[UInt8]], isLast: Bool) {
        state.withLock { s in
            var out = s.prefix
            s.prefix = []
            var bytes = out.reduce(0) { $0 + $1.count }
            let count = s.items.count
            while s.next < count, bytes < Self.batchBytes {
                guard let item = s.items[s.next] else { break }
                s.items[s.next] = nil
                let message = encode(item, s.next, count)
                bytes += message.count + 5
                out.append(message)
                s.next += 1
            }
            return (out, s.next >= count)
        }
    }
}

extension FirestoreGRPC {
    typealias Paced = @Sendable (ProtoReader, FirestoreCaller) throws(EmulatorError) -> @Sendable () -> GRPCProducerStep

    /// A server-streaming method whose responses are produced as the client reads them
    /// (``GRPCPacedWriter``); the service call itself (reads, locks, one read time for the whole
    /// stream) runs first and waits for locks as ``unary(_:)`` does.
    func paced(_ body: @escaping Paced) -> GRPCMethod {
        .serverStreamingLater { context, request, writer in
            let attempt = LockAttempt()
            let run: @Sendable () -> Result<@Sendable () -> GRPCProducerStep, GRPCStatus> = {
                do throws(EmulatorError) { return .success(try body(ProtoReader(request), Self.caller(context))) } catch {
                    return .failure(Self.status(error))
                }
            }
            let answer: @Sendable (Result<@Sendable () -> GRPCProducerStep, GRPCStatus>) -> Void = { result in
                switch result {
                case .failure(let status): writer.finish(status)
                case .success(let next): Self.drive(writer, next)
                }
            }
            switch attempt.run(run) {
            case .now(let result): answer(result)
            case .later(let pending):
                writer.onCancel { attempt.cancel() }
                pending.onResult(answer)
            }
        }
    }

    /// Hands `next` to a paced writer; other writers (in-process callers) take every batch now.
    static func drive(_ writer: any GRPCCallWriter, _ next: @escaping @Sendable () -> GRPCProducerStep) {
        if let paced = writer as? any GRPCPacedWriter {
            paced.produce(next)
            return
        }
        while true {
            switch next() {
            case .more(let messages):
                for m in messages where !writer.send(m) { return }
            case .end(let messages, let status):
                for m in messages where !writer.send(m) { return }
                writer.finish(status)
                return
            }
        }
    }
}
