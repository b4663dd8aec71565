import EmulatorModel
import Synchronization

/// One `WriteRequest`, decoded from whichever wire carried it.
struct WriteRequest: Sendable {
    /// The `database` field as sent.
    var database: String
    var writes: [Write]
    /// Whether a non-empty `stream_token` came with it.
    var hasToken: Bool
}

/// One `WriteResponse` a ``WriteStream`` sends, before any wire encoding.
enum WriteEvent: Sendable {
    /// The answer to the handshake: the stream id and the first token.
    case handshake(streamID: String, token: [UInt8])
    /// The answer to one commit (no results and no commit time for a token-only request).
    case committed(token: [UInt8], results: [WriteResult], commitTime: Int64?)
}

/// Where a Write stream's responses go: the transport encodes and sends them.
protocol WriteEventSink: Sendable {
    func send(_ event: WriteEvent)
    /// Ends the stream: OK when `error` is nil, else that status.
    func finish(_ error: EmulatorError?)
}

/// One Write stream, whatever carries it: the mobile and web SDKs' write pipeline (googleapis
/// `google/firestore/v1/firestore.proto`, `WriteRequest`/`WriteResponse`; the JS SDK's
/// `packages/firestore/src/remote/persistent_stream.ts` is the client side). The first request names the database and gets a stream id and token; every later
/// request is one atomic commit answered with a new token, its write results and the commit time.
/// A failed commit (a rules denial, a failed precondition) ends the stream with its status: the
/// SDKs fail that write and open a new stream for the next ones.
final class WriteStream: Sendable {
    struct State {
        var database: DatabaseID?
        var streamID = ""
        var counter: UInt64 = 0
        var ended = false
    }

    let service: FirestoreService
    let caller: FirestoreCaller
    let sink: any WriteEventSink
    private let state = Mutex(State())

    init(service: FirestoreService, caller: FirestoreCaller, sink: any WriteEventSink) {
        self.service = service
        self.caller = caller
        self.sink = sink
    }

    /// Handles one client message: `decode` turns the transport's bytes into a request (its error,
    /// like any error of the request, ends the stream with that status).
    func receive(_ decode: () throws(EmulatorError) -> WriteRequest) {
        state.withLock { s in
            guard !s.ended else { return }
            do throws(EmulatorError) {
                try handle(decode(), &s)
            } catch {
                s.ended = true
                sink.finish(error)
            }
        }
    }

    func halfClose() {
        state.withLock { s in
            guard !s.ended else { return }
            s.ended = true
            sink.finish(nil)
        }
    }

    func cancel() { state.withLock { $0.ended = true } }

    private func token(_ s: inout State) -> [UInt8] {
        s.counter += 1
        return (0..<8).map { UInt8(truncatingIfNeeded: s.counter >> (56 - 8 * UInt64($0))) }
    }

    private func handle(_ request: WriteRequest, _ s: inout State) throws(EmulatorError) {
        guard let database = s.database else {
            s.database = try ProtoDecoding.database(request.database)
            if !request.writes.isEmpty { throw .invalidArgument("The first request of a Write stream must not contain writes.") }
            s.streamID = FirestoreService.autoID()
            sink.send(.handshake(streamID: s.streamID, token: token(&s)))
            return
        }
        if !request.hasToken { throw .invalidArgument("A Write request after the handshake must carry the stream token.") }
        if request.writes.isEmpty {
            sink.send(.committed(token: token(&s), results: [], commitTime: nil))
            return
        }
        let result = try service.commit(database, writes: request.writes, caller: caller)
        sink.send(.committed(token: token(&s), results: result.writeResults, commitTime: result.commitTime))
    }
}
