import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf
import Synchronization

/// The responses of a server-streaming call made a batch at a time (see ``GRPCPacedWriter``; the
/// REST routes use it for the elements of their JSON arrays, ``FirestoreREST/pacedArray``):
/// `prefix` first, then one message per item, encoded only when the connection asks for more.
/// Items are pulled one at a time (a list drops each once encoded; RunQuery's ``QueryCursor``
/// decodes each only then), so a large result's memory goes down as it goes out, and a client
/// that reads nothing holds at most a few batches of encoded bytes.
final class PacedResponses<Item: Sendable>: Sendable {
    /// Encoded bytes per batch handed to the connection.
    static var batchBytes: Int { 64 * 1024 }

    private let state: Mutex<(prefix: [[UInt8]], next: Int, done: Bool)>
    private let pull: @Sendable () -> (Item, Bool)?
    private let encode: @Sendable (_ item: Item, _ index: Int, _ isLast: Bool) -> [UInt8]
    private let status: @Sendable () -> GRPCStatus

    /// - Parameters:
    ///   - pull: the next item and whether it is the last; nil when there is none.
    ///   - status: the call's status, asked once the last item is encoded.
    init(
        prefix: [[UInt8]], pull: @escaping @Sendable () -> (Item, Bool)?, status: @escaping @Sendable () -> GRPCStatus = { .ok },
        encode: @escaping @Sendable (Item, Int, Bool) -> [UInt8]
    ) {
        state = Mutex((prefix, 0, false))
        self.pull = pull
        self.status = status
        self.encode = encode
    }

    /// The items of a list, each dropped once encoded.
    convenience init(prefix: [[UInt8]], items: [Item], encode: @escaping @Sendable (Item, Int, Bool) -> [UInt8]) {
        let rest = ItemStack(items)
        self.init(prefix: prefix, pull: { rest.pop() }, encode: encode)
    }

    /// The next batch: `.end` with the last one.
    func step() -> GRPCProducerStep {
        let (messages, isLast) = next()
        return isLast ? .end(messages, status()) : .more(messages)
    }

    /// The next batch of messages (about `batchBytes`), and whether it is the last.
    func next() -> (messages: [[UInt8]], isLast: Bool) {
        state.withLock { s in
            var out = s.prefix
            s.prefix = []
            var bytes = out.reduce(0) { $0 + $1.count }
            while !s.done, bytes < Self.batchBytes {
                guard let (item, isLast) = pull() else {
                    s.done = true
                    break
                }
                let message = encode(item, s.next, isLast)
                bytes += message.count + 5
                out.append(message)
                s.next += 1
                if isLast { s.done = true }
            }
            return (out, s.done)
        }
    }
}

/// A list handed out from its front, each item dropped as it goes.
private final class ItemStack<Item: Sendable>: Sendable {
    private let reversed: Mutex<[Item]>

    init(_ items: [Item]) { reversed = Mutex(items.reversed()) }

    func pop() -> (Item, Bool)? {
        reversed.withLock { r in r.popLast().map { ($0, r.isEmpty) } }
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
