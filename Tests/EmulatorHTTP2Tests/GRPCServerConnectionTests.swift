import EmulatorHTTP
import Synchronization
import Testing

@testable import EmulatorHTTP2

/// Captures what a ``GRPCServerConnection`` writes.
final class CapturingWriter: UpgradedConnectionWriter {
    private let state = Mutex<(bytes: [UInt8], closed: Bool)>(([], false))
    func write(_ bytes: [UInt8]) -> Bool { state.withLock { $0.bytes += bytes; return !$0.closed } }
    func close() { state.withLock { $0.closed = true } }
    var isOpen: Bool { state.withLock { !$0.closed } }
    func take() -> [UInt8] { state.withLock { s in defer { s.bytes = [] }; return s.bytes } }
}

/// Echoes each message back and finishes when the client half-closes.
final class EchoCall: GRPCStreamingCall {
    let writer: any GRPCMessageWriter
    init(writer: any GRPCMessageWriter) { self.writer = writer }
    func received(_ message: [UInt8]) { writer.send(message.reversed()) }
    func halfClosed() { writer.finish(GRPCStatus(0)) }
    func cancelled() {}
}

/// Answers each message with one message per byte, framed together in one batch.
final class FramedEchoCall: GRPCStreamingCall {
    let writer: any GRPCMessageWriter
    init(writer: any GRPCMessageWriter) { self.writer = writer }
    func received(_ message: [UInt8]) {
        var framed = GRPCFramedMessages()
        for b in message { framed.append { $0 += [UInt8](repeating: b, count: Int(b)) } }
        (writer as? any GRPCMessageBatchWriter)?.send(framed: framed)
    }
    func halfClosed() { writer.finish(GRPCStatus(0)) }
    func cancelled() {}
}

@Suite("gRPC over an in-process HTTP/2 connection")
struct GRPCServerConnectionTests {
    static var router: GRPCRouter {
        var r = GRPCRouter()
        r.register("test.Echo", "Unary", .unary { _, request in .success(request + [0xFF]) })
        r.register("test.Echo", "Fail", .unary { _, _ in .failure(GRPCStatus(5, "No document to update: é 100%")) })
        r.register("test.Echo", "Auth", .unary { context, _ in .success(Array((context.metadata.first("authorization") ?? "").utf8)) })
        r.register("test.Echo", "Stream", .serverStreaming { _, request, writer in
            for b in request { writer.send([b]) }
            return GRPCStatus(0)
        })
        r.register("test.Echo", "Bidi", .bidirectional { _, writer in EchoCall(writer: writer) })
        r.register("test.Echo", "Framed", .bidirectional { _, writer in FramedEchoCall(writer: writer) })
        return r
    }

    static func start() throws -> (GRPCServerConnection, CapturingWriter, TestPeer) {
        try TestPeer.connect(router)
    }

    /// Response messages and trailers of `stream` among `events`.
    static func call(_ events: [TestPeer.Event], stream: UInt32) -> (headers: [HeaderField]?, messages: [[UInt8]], trailers: [HeaderField]?) {
        var headers: [HeaderField]?
        var trailers: [HeaderField]?
        var deframer = GRPCMessageDeframer()
        var messages: [[UInt8]] = []
        for e in events {
            switch e {
            case .headers(stream, let fields, let end):
                if end { trailers = fields; if headers == nil { headers = fields } } else { headers = fields }
            case .data(stream, let payload, _):
                deframer.append(payload)
                while let m = try? deframer.next() { messages.append(m) }
            default: break
            }
        }
        return (headers, messages, trailers)
    }

    @Test func unaryCallAnswersMessageAndOkTrailers() throws {
        var (connection, out, peer) = try Self.start()
        connection.received(peer.request(stream: 1, path: "/test.Echo/Unary") + TestPeer.message(stream: 1, [1, 2]))
        let result = Self.call(try peer.read(out.take()), stream: 1)
        #expect(result.headers?.first(":status") == "200")
        #expect(result.headers?.first("content-type") == "application/grpc")
        #expect(result.messages == [[1, 2, 0xFF]])
        #expect(result.trailers == [HeaderField("grpc-status", "0")])
    }

    @Test func errorsAreTrailersOnlyWithPercentEncodedMessage() throws {
        var (connection, out, peer) = try Self.start()
        connection.received(peer.request(stream: 1, path: "/test.Echo/Fail") + TestPeer.message(stream: 1, []))
        let result = Self.call(try peer.read(out.take()), stream: 1)
        #expect(result.messages.isEmpty)
        #expect(result.trailers?.first("grpc-status") == "5")
        #expect(result.trailers?.first("grpc-message") == "No document to update: %C3%A9 100%25")
        #expect(result.trailers?.first(":status") == "200")
    }

    @Test func unknownMethodIsUnimplemented() throws {
        var (connection, out, peer) = try Self.start()
        connection.received(peer.request(stream: 1, path: "/google.firestore.v1.Firestore/Nope") + TestPeer.message(stream: 1, []))
        let result = Self.call(try peer.read(out.take()), stream: 1)
        #expect(result.trailers?.first("grpc-status") == "12")
        #expect(result.trailers?.first("grpc-message") == "Method not found: google.firestore.v1.Firestore/Nope")
    }

    @Test func compressedMessagesAreUnimplemented() throws {
        var (connection, out, peer) = try Self.start()
        connection.received(peer.request(stream: 1, path: "/test.Echo/Unary") + TestPeer.message(stream: 1, [1], compressed: true))
        #expect(Self.call(try peer.read(out.take()), stream: 1).trailers?.first("grpc-status") == "12")
    }

    @Test func metadataReachesTheHandler() throws {
        var (connection, out, peer) = try Self.start()
        connection.received(
            peer.request(stream: 1, path: "/test.Echo/Auth", extra: [HeaderField("authorization", "Bearer owner"), HeaderField("grpc-timeout", "5S")])
                + TestPeer.message(stream: 1, []))
        #expect(Self.call(try peer.read(out.take()), stream: 1).messages == [Array("Bearer owner".utf8)])
    }

    @Test func serverStreamingSendsEachMessage() throws {
        var (connection, out, peer) = try Self.start()
        connection.received(peer.request(stream: 1, path: "/test.Echo/Stream") + TestPeer.message(stream: 1, [7, 8, 9]))
        let result = Self.call(try peer.read(out.take()), stream: 1)
        #expect(result.messages == [[7], [8], [9]])
        #expect(result.trailers?.first("grpc-status") == "0")
    }

    @Test func bidirectionalCallsInterleave() throws {
        var (connection, out, peer) = try Self.start()
        connection.received(peer.request(stream: 1, path: "/test.Echo/Bidi") + TestPeer.message(stream: 1, [1, 2], endStream: false))
        #expect(Self.call(try peer.read(out.take()), stream: 1).messages == [[2, 1]])
        connection.received(TestPeer.message(stream: 1, [3, 4, 5], endStream: false))
        #expect(Self.call(try peer.read(out.take()), stream: 1).messages == [[5, 4, 3]])
        connection.received(HTTP2FrameEncoder.encode(.data(stream: 1, payload: [], endStream: true, flowControlledLength: 0)))
        #expect(Self.call(try peer.read(out.take()), stream: 1).trailers == [HeaderField("grpc-status", "0")])
    }

    @Test func framedBatchesArriveAsTheirMessages() throws {
        var (connection, out, peer) = try Self.start()
        connection.received(peer.request(stream: 1, path: "/test.Echo/Framed") + TestPeer.message(stream: 1, [0, 1, 3, 200], endStream: false))
        #expect(Self.call(try peer.read(out.take()), stream: 1).messages == [[], [1], [3, 3, 3], [UInt8](repeating: 200, count: 200)])
    }

    @Test func messagesSplitAcrossDataFramesAreReassembled() throws {
        var (connection, out, peer) = try Self.start()
        let framed = GRPCMessageDeframer.frame([UInt8](repeating: 3, count: 40_000))
        var bytes = peer.request(stream: 1, path: "/test.Echo/Unary")
        var rest = framed[...]
        while !rest.isEmpty {
            let chunk = Array(rest.prefix(16_384))
            rest = rest.dropFirst(chunk.count)
            bytes += HTTP2FrameEncoder.encode(.data(stream: 1, payload: chunk, endStream: rest.isEmpty, flowControlledLength: 0))
        }
        connection.received(bytes)
        let events = try peer.read(out.take())
        let result = Self.call(events, stream: 1)
        #expect(result.messages.count == 1)
        #expect(result.messages.first?.count == 40_001)
        // Every DATA frame was given back to the connection window.
        let returned = events.reduce(0) { n, e in if case .frame(.windowUpdate(0, let i)) = e { n + Int(i) } else { n } }
        #expect(returned == framed.count)
    }

    @Test func concurrentStreamsOnOneConnection() throws {
        var (connection, out, peer) = try Self.start()
        connection.received(
            peer.request(stream: 1, path: "/test.Echo/Bidi") + TestPeer.message(stream: 1, [1], endStream: false)
                + peer.request(stream: 3, path: "/test.Echo/Unary") + TestPeer.message(stream: 3, [2]))
        let events = try peer.read(out.take())
        #expect(Self.call(events, stream: 1).messages == [[1]])
        #expect(Self.call(events, stream: 3).messages == [[2, 0xFF]])
        #expect(Self.call(events, stream: 1).trailers == nil)
    }

    @Test func nonGRPCContentTypeIs415() throws {
        var (connection, out, peer) = try Self.start()
        let block = peer.encoder.encode([
            HeaderField(":method", "POST"), HeaderField(":path", "/test.Echo/Unary"), HeaderField("content-type", "application/json"),
        ])
        connection.received(HTTP2FrameEncoder.encode(.headers(stream: 1, block: block, endStream: true, endHeaders: true)))
        #expect(Self.call(try peer.read(out.take()), stream: 1).headers?.first(":status") == "415")
    }

    @Test(arguments: [("5S", Int64(5_000_000_000)), ("100m", 100_000_000), ("1H", 3_600_000_000_000), ("12", nil), ("x1S", nil)])
    func grpcTimeouts(text: String, nanoseconds: Int64?) {
        #expect(GRPCRequestHead.parseTimeout(text) == nanoseconds)
    }
}
