import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf
import Synchronization

/// One Listen stream. (Placeholder until the change feed is wired: answers UNIMPLEMENTED.)
final class FirestoreListenCall: GRPCStreamingCall {
    let service: FirestoreService
    let caller: FirestoreCaller
    let writer: any GRPCMessageWriter

    init(service: FirestoreService, caller: FirestoreCaller, writer: any GRPCMessageWriter) {
        self.service = service
        self.caller = caller
        self.writer = writer
    }

    func received(_ message: [UInt8]) {
        writer.finish(GRPCStatus(GRPCStatus.Code.unimplemented, "Listen is not implemented yet."))
    }

    func halfClosed() { writer.finish(.ok) }
    func cancelled() {}
}
