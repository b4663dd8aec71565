import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf
import Synchronization

/// One Write stream, the mobile SDKs' write pipeline (googleapis
/// `google/firestore/v1/firestore.proto`, `WriteRequest`/`WriteResponse`; the JS SDK's
/// `packages/firestore/src/remote/persistent_stream.ts` is the client side): the first request
/// names the database and gets a stream id and token; every later request is one atomic commit
/// answered with a new token, its write results and the commit time.
final class FirestoreWriteCall: GRPCStreamingCall {
    struct State {
        var database: DatabaseID?
        var streamID = ""
        var counter: UInt64 = 0
        var ended = false
    }

    let service: FirestoreService
    let caller: FirestoreCaller
    let writer: any GRPCMessageWriter
    private let state = Mutex(State())

    init(service: FirestoreService, caller: FirestoreCaller, writer: any GRPCMessageWriter) {
        self.service = service
        self.caller = caller
        self.writer = writer
    }

    func received(_ message: [UInt8]) {
        state.withLock { s in
            guard !s.ended else { return }
            do throws(EmulatorError) {
                try handle(message, &s)
            } catch {
                s.ended = true
                writer.finish(FirestoreGRPC.status(error))
            }
        }
    }

    func halfClosed() {
        state.withLock { s in
            guard !s.ended else { return }
            s.ended = true
            writer.finish(.ok)
        }
    }

    func cancelled() { state.withLock { $0.ended = true } }

    private func token(_ s: inout State) -> [UInt8] {
        s.counter += 1
        return (0..<8).map { UInt8(truncatingIfNeeded: s.counter >> (56 - 8 * UInt64($0))) }
    }

    private func handle(_ message: [UInt8], _ s: inout State) throws(EmulatorError) {
        var r = ProtoReader(message)
        var databaseName = ""
        var writes: [Write] = []
        var hasToken = false
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); databaseName = try r.string()
            case 3: try r.expect(w, .lengthDelimited, f); writes.append(try ProtoDecoding.write(r.message()))
            case 4: try r.expect(w, .lengthDelimited, f); hasToken = !(try r.bytes()).isEmpty
            default: try r.skip(w)
            }
        }
        guard let database = s.database else {
            s.database = try ProtoDecoding.database(databaseName)
            if !writes.isEmpty { throw .invalidArgument("The first request of a Write stream must not contain writes.") }
            s.streamID = FirestoreService.autoID()
            let t = token(&s)
            var w = ProtoWriter()
            w.string(1, s.streamID)
            w.bytes(2, t)
            writer.send(w.bytes)
            return
        }
        if !hasToken { throw .invalidArgument("A Write request after the handshake must carry the stream token.") }
        var w = ProtoWriter()
        if writes.isEmpty {
            w.bytes(2, token(&s))
            writer.send(w.bytes)
            return
        }
        let result = try service.commit(database, writes: writes, caller: caller)
        w.bytes(2, token(&s))
        for r in result.writeResults { w.message(3) { FirestoreGRPC.write(r, to: &$0) } }
        ProtoValue.writeTimestamp(4, microseconds: result.commitTime, to: &w)
        writer.send(w.bytes)
    }
}
