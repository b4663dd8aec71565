import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf

/// The gRPC framing of a Listen stream: protobuf `ListenRequest`s in, protobuf
/// `ListenResponse`s out, everything else in ``ListenStream``.
final class FirestoreListenCall: GRPCStreamingCall {
    let stream: ListenStream

    init(service: FirestoreService, caller: FirestoreCaller, writer: any GRPCMessageWriter) {
        stream = ListenStream(service: service, caller: caller, sink: Sink(writer: writer))
    }

    private struct Sink: ListenEventSink {
        let writer: any GRPCMessageWriter
        func send(_ event: ListenEvent) { writer.send(ListenResponse.encode(event)) }
        func finish(_ error: EmulatorError?) { writer.finish(error.map(FirestoreGRPC.status) ?? .ok) }
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
