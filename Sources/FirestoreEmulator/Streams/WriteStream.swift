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
/// SDKs fail that write and open a new stream for the next ones. A commit that must wait for a
/// document lock (a server SDK's transaction read the document) parks without holding the thread;
/// the requests after it queue, in order, until it went through.
final class WriteStream: Sendable {
    struct State {
        var database: DatabaseID?
        var streamID = ""
        var counter: UInt64 = 0
        var ended = false
        /// The commit waiting for a lock; requests that arrive meanwhile queue behind it.
        var waiting: LockAttempt?
        var queued: [WriteRequest] = []
        /// The client half-closed while requests were still waiting.
        var finishWhenDrained = false
    }

    /// Requests queued behind a waiting commit at most (more ends the stream).
    static let maxQueued = 1_000
    typealias Outcome = Result<CommitResponse, EmulatorError>

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
        let parked = state.withLock { s -> LockAttempt.Pending<Outcome>? in
            guard !s.ended else { return nil }
            do throws(EmulatorError) {
                let request = try decode()
                if s.waiting != nil {
                    guard s.queued.count < Self.maxQueued else {
                        throw .resourceExhausted("Too many Write requests wait behind a commit waiting for a lock.")
                    }
                    s.queued.append(request)
                    return nil
                }
                return try handle(request, &s)
            } catch {
                s.ended = true
                sink.finish(error)
                return nil
            }
        }
        parked?.onResult { [self] in resumed($0) }
    }

    /// The waiting commit finished: answer it, then the requests queued behind it.
    private func resumed(_ outcome: Outcome) {
        let parked = state.withLock { s -> LockAttempt.Pending<Outcome>? in
            s.waiting = nil
            guard !s.ended else { return nil }
            do throws(EmulatorError) {
                answer(try outcome.get(), &s)
                while s.waiting == nil, !s.queued.isEmpty {
                    if let next = try handle(s.queued.removeFirst(), &s) { return next }
                }
                if s.finishWhenDrained {
                    s.ended = true
                    sink.finish(nil)
                }
            } catch {
                s.ended = true
                sink.finish(error)
            }
            return nil
        }
        parked?.onResult { [self] in resumed($0) }
    }

    func halfClose() {
        state.withLock { s in
            guard !s.ended else { return }
            if s.waiting != nil {
                s.finishWhenDrained = true
                return
            }
            s.ended = true
            sink.finish(nil)
        }
    }

    func cancel() {
        let waiting = state.withLock { s in
            s.ended = true
            s.queued = []
            return s.waiting
        }
        waiting?.cancel()
    }

    private func token(_ s: inout State) -> [UInt8] {
        s.counter += 1
        return (0..<8).map { UInt8(truncatingIfNeeded: s.counter >> (56 - 8 * UInt64($0))) }
    }

    /// Handles one request; returns the pending outcome of a commit that parked on a lock wait
    /// (then `s.waiting` is set; register on it once the lock is released).
    private func handle(_ request: WriteRequest, _ s: inout State) throws(EmulatorError) -> LockAttempt.Pending<Outcome>? {
        guard let database = s.database else {
            s.database = try ProtoDecoding.database(request.database)
            if !request.writes.isEmpty { throw .invalidArgument("The first request of a Write stream must not contain writes.") }
            s.streamID = FirestoreService.autoID()
            sink.send(.handshake(streamID: s.streamID, token: token(&s)))
            return nil
        }
        if !request.hasToken { throw .invalidArgument("A Write request after the handshake must carry the stream token.") }
        if request.writes.isEmpty {
            sink.send(.committed(token: token(&s), results: [], commitTime: nil))
            return nil
        }
        let (service, caller, writes) = (service, caller, request.writes)
        let attempt = LockAttempt()
        switch attempt.run({ () -> Outcome in
            Result { () throws(EmulatorError) in try service.commit(database, writes: writes, caller: caller) }
        }) {
        case .now(let outcome):
            answer(try outcome.get(), &s)
            return nil
        case .later(let pending):
            s.waiting = attempt
            return pending
        }
    }

    private func answer(_ result: CommitResponse, _ s: inout State) {
        sink.send(.committed(token: token(&s), results: result.writeResults, commitTime: result.commitTime))
    }
}
