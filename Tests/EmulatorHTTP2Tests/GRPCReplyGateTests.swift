import EmulatorHTTP
import Synchronization
import Testing

@testable import EmulatorHTTP2

/// A gate that holds the reply of any work during which ``holdThis()`` was called, until the test
/// releases it (as the journal's syncer would, later and from elsewhere).
final class ManualGate: Sendable {
    private let state = Mutex<(hold: Bool, waiting: [@Sendable () -> Void])>((false, []))

    func holdThis() { state.withLock { $0.hold = true } }

    var gate: ReplyGate {
        ReplyGate { [self] work in
            state.withLock { $0.hold = false }
            work()
            guard state.withLock({ $0.hold }) else { return nil }
            return { action in self.state.withLock { $0.waiting.append(action) } }
        }
    }

    var heldCount: Int { state.withLock { $0.waiting.count } }

    /// Runs the oldest held release; false when none is held.
    @discardableResult func releaseOldest() -> Bool {
        let action = state.withLock { s -> (@Sendable () -> Void)? in s.waiting.isEmpty ? nil : s.waiting.removeFirst() }
        action?()
        return action != nil
    }

    /// Runs the newest held release.
    func releaseNewest() {
        state.withLock { s -> (@Sendable () -> Void)? in s.waiting.popLast() }?()
    }
}

/// Echoes reversed messages; a message starting with 0xEE holds its reply.
final class HoldingEchoCall: GRPCStreamingCall {
    let writer: any GRPCMessageWriter
    let gate: ManualGate
    init(writer: any GRPCMessageWriter, gate: ManualGate) {
        self.writer = writer
        self.gate = gate
    }
    func received(_ message: [UInt8]) {
        if message.first == 0xEE { gate.holdThis() }
        writer.send(message.reversed())
    }
    func halfClosed() { writer.finish(GRPCStatus(0)) }
    func cancelled() {}
}

@Suite("gRPC replies held by a ReplyGate")
struct GRPCReplyGateTests {
    static func start() throws -> (GRPCServerConnection, CapturingWriter, TestPeer, ManualGate) {
        let gate = ManualGate()
        var router = GRPCRouter()
        router.register("test.Echo", "Unary", .unary { _, request in .success(request + [0xFF]) })
        router.register("test.Echo", "Held", .unary { _, request in
            gate.holdThis()
            return .success(request + [0xEE])
        })
        router.register("test.Echo", "Bidi", .bidirectional { _, writer in HoldingEchoCall(writer: writer, gate: gate) })
        let (connection, out, peer) = try TestPeer.connect(router, gate: gate.gate)
        return (connection, out, peer, gate)
    }

    @Test func aHeldUnaryReplyDoesNotStopAnotherStream() throws {
        var (connection, out, peer, gate) = try Self.start()
        connection.received(peer.request(stream: 1, path: "/test.Echo/Held") + TestPeer.message(stream: 1, [1]))
        connection.received(peer.request(stream: 3, path: "/test.Echo/Unary") + TestPeer.message(stream: 3, [2]))
        var events = try peer.read(out.take())
        #expect(GRPCServerConnectionTests.call(events, stream: 1).headers == nil)
        #expect(GRPCServerConnectionTests.call(events, stream: 3).messages == [[2, 0xFF]])
        #expect(GRPCServerConnectionTests.call(events, stream: 3).trailers == [HeaderField("grpc-status", "0")])
        #expect(gate.releaseOldest())
        events = try peer.read(out.take())
        let held = GRPCServerConnectionTests.call(events, stream: 1)
        #expect(held.messages == [[1, 0xEE]])
        #expect(held.trailers == [HeaderField("grpc-status", "0")])
    }

    @Test func laterRepliesOnAStreamWaitForAnEarlierHeldOne() throws {
        var (connection, out, peer, gate) = try Self.start()
        connection.received(peer.request(stream: 1, path: "/test.Echo/Bidi") + TestPeer.message(stream: 1, [0xEE, 1], endStream: false))
        connection.received(TestPeer.message(stream: 1, [2, 3], endStream: false))
        connection.received(TestPeer.message(stream: 1, [0xEE, 4], endStream: false))
        connection.received(HTTP2FrameEncoder.encode(.data(stream: 1, payload: [], endStream: true, flowControlledLength: 0)))
        #expect(GRPCServerConnectionTests.call(try peer.read(out.take()), stream: 1).headers == nil)
        #expect(gate.heldCount == 2)
        // The second hold is released first: still nothing may pass the first.
        gate.releaseNewest()
        #expect(GRPCServerConnectionTests.call(try peer.read(out.take()), stream: 1).headers == nil)
        gate.releaseOldest()
        let call = GRPCServerConnectionTests.call(try peer.read(out.take()), stream: 1)
        #expect(call.messages == [[1, 0xEE], [3, 2], [4, 0xEE]])
        #expect(call.trailers == [HeaderField("grpc-status", "0")])
    }

    @Test func aStreamKeepsAnsweringAfterItsHeldReplyIsReleased() throws {
        var (connection, out, peer, gate) = try Self.start()
        connection.received(peer.request(stream: 1, path: "/test.Echo/Bidi") + TestPeer.message(stream: 1, [0xEE], endStream: false))
        gate.releaseOldest()
        #expect(GRPCServerConnectionTests.call(try peer.read(out.take()), stream: 1).messages == [[0xEE]])
        connection.received(TestPeer.message(stream: 1, [5, 6], endStream: false))
        #expect(GRPCServerConnectionTests.call(try peer.read(out.take()), stream: 1).messages == [[6, 5]])
    }

    @Test func aReleaseAfterThePeerResetTheStreamIsDropped() throws {
        var (connection, out, peer, gate) = try Self.start()
        connection.received(peer.request(stream: 1, path: "/test.Echo/Held") + TestPeer.message(stream: 1, [1]))
        connection.received(HTTP2FrameEncoder.encode(.rstStream(stream: 1, code: .cancel)))
        _ = out.take()
        gate.releaseOldest()
        #expect(out.take().isEmpty)
        // The connection is still usable.
        connection.received(peer.request(stream: 3, path: "/test.Echo/Unary") + TestPeer.message(stream: 3, [2]))
        #expect(GRPCServerConnectionTests.call(try peer.read(out.take()), stream: 3).messages == [[2, 0xFF]])
    }

    @Test func aReleaseAfterTheConnectionClosedWritesNothing() throws {
        var (connection, out, peer, gate) = try Self.start()
        connection.received(peer.request(stream: 1, path: "/test.Echo/Held") + TestPeer.message(stream: 1, [1]))
        _ = out.take()
        connection.closed()
        gate.releaseOldest()
        #expect(out.take().isEmpty)
        _ = peer
    }
}
