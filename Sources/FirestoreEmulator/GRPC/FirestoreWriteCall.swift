import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf

/// The gRPC framing of a Write stream: protobuf `WriteRequest`s in, protobuf `WriteResponse`s
/// out, everything else in ``WriteStream``.
final class FirestoreWriteCall: GRPCStreamingCall {
    let stream: WriteStream

    init(service: FirestoreService, caller: FirestoreCaller, writer: any GRPCMessageWriter) {
        stream = WriteStream(service: service, caller: caller, sink: Sink(writer: writer))
    }

    private struct Sink: WriteEventSink {
        let writer: any GRPCMessageWriter
        func send(_ event: WriteEvent) {
            var w = ProtoWriter()
            switch event {
            case .handshake(let streamID, let token):
                w.string(1, streamID)
                w.bytes(2, token)
            case .committed(let token, let results, let commitTime):
                w.bytes(2, token)
                for r in results { w.message(3) { FirestoreGRPC.write(r, to: &$0) } }
                if let commitTime { ProtoValue.writeTimestamp(4, microseconds: commitTime, to: &w) }
            }
            writer.send(w.bytes)
        }
        func finish(_ error: EmulatorError?) { writer.finish(error.map(FirestoreGRPC.status) ?? .ok) }
    }

    func received(_ message: [UInt8]) {
        stream.receive { () throws(EmulatorError) in try Self.decode(message) }
    }

    func halfClosed() { stream.halfClose() }

    func cancelled() { stream.cancel() }

    static func decode(_ message: [UInt8]) throws(EmulatorError) -> WriteRequest {
        var r = ProtoReader(message)
        var request = WriteRequest(database: "", writes: [], hasToken: false)
        while let (f, w) = try r.next() {
            switch f {
            case 1: try r.expect(w, .lengthDelimited, f); request.database = try r.string()
            case 3: try r.expect(w, .lengthDelimited, f); request.writes.append(try ProtoDecoding.write(r.message()))
            case 4: try r.expect(w, .lengthDelimited, f); request.hasToken = !(try r.bytes()).isEmpty
            default: try r.skip(w)
            }
        }
        return request
    }
}
