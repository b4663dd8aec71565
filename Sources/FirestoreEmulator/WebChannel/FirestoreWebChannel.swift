package import EmulatorHTTP
import EmulatorModel
import EmulatorSupport
import Synchronization

/// Firestore's WebChannel face (the JS SDK's transport for Listen and Write in browsers):
/// `/google.firestore.v1.Firestore/{Listen,Write}/channel`. ``WebChannelServer`` does the
/// sessions; this type decodes ProtoJSON `ListenRequest` / `WriteRequest` messages into the same
/// ``ListenStream`` / ``WriteStream`` gRPC drives, and encodes their events as ProtoJSON. A stream
/// that ends with an error sends `{"error":{"code","message","status"}}`, which the SDK turns into
/// a `FirestoreError` with that status.
///
/// ```swift
/// FirestoreWebChannel(service: service).register(on: &router)
/// ```
package struct FirestoreWebChannel: Sendable {
    package static let listenPath = "/google.firestore.v1.Firestore/Listen/channel"
    package static let writePath = "/google.firestore.v1.Firestore/Write/channel"

    package let listen: WebChannelServer
    package let write: WebChannelServer

    package init(service: FirestoreService, configuration: WebChannelServer.Configuration = .init(), gate: ReplyGate? = nil) {
        listen = WebChannelServer(configuration: configuration, gate: gate) { opening, output in
            ListenChannel(service: service, caller: Self.caller(opening), output: output)
        }
        write = WebChannelServer(configuration: configuration, gate: gate) { opening, output in
            WriteChannel(service: service, caller: Self.caller(opening), output: output)
        }
    }

    /// Adds both channel paths, open to credentialed browser requests.
    package func register(on router: inout Router, cors: CORSPolicy = CORSPolicy()) {
        let listen = self.listen
        let write = self.write
        router.add(nil, Self.listenPath, handler: cors.wrap { listen.respond(to: $0) })
        router.add(nil, Self.writePath, handler: cors.wrap { write.respond(to: $0) })
    }

    /// The caller from the `Authorization` the SDK puts in the opening form's headers.
    static func caller(_ opening: WebChannelOpening) -> FirestoreCaller {
        FirestoreCaller(authorization: opening.header("Authorization"))
    }

    /// Parses one message's JSON as `message`, as a REST body is parsed.
    static func object(_ bytes: [UInt8], _ message: RESTMessage) throws(EmulatorError) -> JSONObject {
        try FirestoreREST.object(bytes, message)
    }

    /// `{"error":{"code","message","status"}}`.
    static func error(_ e: EmulatorError) -> [UInt8] { RESTEncoding.error(e) }
}

/// One Listen session: ProtoJSON in and out around a ``ListenStream``.
final class ListenChannel: WebChannelStream {
    let stream: ListenStream

    init(service: FirestoreService, caller: FirestoreCaller, output: WebChannelOutput) {
        stream = ListenStream(service: service, caller: caller, sink: Sink(output: output))
    }

    /// Collects the events of one answer or refresh, so the back channel gets them in one write.
    /// Called under the stream's lock; the buffer's own lock is never contended.
    private final class Sink: ListenEventSink {
        let output: WebChannelOutput
        private let pending = Mutex<[[UInt8]]>([])

        init(output: WebChannelOutput) { self.output = output }

        func send(_ event: ListenEvent) {
            let json = ListenJSON.encode(event)
            pending.withLock { $0.append(json) }
        }

        func flush() {
            output.send(contentsOf: pending.withLock { p in
                defer { p.removeAll() }
                return p
            })
        }

        func finish(_ error: EmulatorError?) {
            flush()
            if let error { output.send(FirestoreWebChannel.error(error)) }
        }

        var isBackedUp: Bool { output.isBackedUp }
    }

    func receive(_ message: [UInt8]) {
        stream.receive { () throws(EmulatorError) in try ListenJSON.request(message) }
    }

    func close() { stream.cancel() }

    /// Commits waited while the client had no back channel: fold them in now.
    func backChannelAttached() { stream.wake() }
}

/// One Write session: ProtoJSON in and out around a ``WriteStream``.
final class WriteChannel: WebChannelStream {
    let stream: WriteStream

    init(service: FirestoreService, caller: FirestoreCaller, output: WebChannelOutput) {
        stream = WriteStream(service: service, caller: caller, sink: Sink(output: output))
    }

    private struct Sink: WriteEventSink {
        let output: WebChannelOutput
        func send(_ event: WriteEvent) { output.send(WriteJSON.encode(event)) }
        func finish(_ error: EmulatorError?) {
            if let error { output.send(FirestoreWebChannel.error(error)) }
        }
    }

    func receive(_ message: [UInt8]) {
        stream.receive { () throws(EmulatorError) in try WriteJSON.request(message) }
    }

    func close() { stream.cancel() }
}
