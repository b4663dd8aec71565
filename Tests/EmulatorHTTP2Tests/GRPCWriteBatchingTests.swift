import EmulatorHTTP
import Synchronization
import Testing

@testable import EmulatorHTTP2

/// Counts the writes a ``GRPCServerConnection`` makes and keeps their bytes.
final class CountingWriter: UpgradedConnectionWriter {
    private let state = Mutex<(writes: Int, bytes: [UInt8])>((0, []))
    func write(_ bytes: [UInt8]) -> Bool {
        state.withLock { $0.writes += 1; $0.bytes += bytes }
        return true
    }
    func close() {}
    var isOpen: Bool { true }
    /// The writes since the last ``take()``.
    var writesSoFar: Int { state.withLock { $0.writes } }
    /// The writes and bytes since the last call.
    func take() -> (writes: Int, bytes: [UInt8]) {
        state.withLock { s in
            defer { s = (0, []) }
            return s
        }
    }
}

/// What each call saw of the writes made before it ran.
final class WritesSeen: Sendable {
    let counts = Mutex<[Int]>([])
}

@Suite("gRPC: the answers to one read go out in a few writes")
struct GRPCWriteBatchingTests {
    @Test func unaryCallsArrivingTogetherAreAnsweredInRunsOfEight() throws {
        let out = CountingWriter()
        // Each call notes how many writes went out before it ran.
        let seen = WritesSeen()
        var router = GRPCRouter()
        router.register("test.Echo", "Unary", .unary { _, request in
            seen.counts.withLock { $0.append(out.writesSoFar) }
            return .success(request + [0xFF])
        })
        let connection = GRPCServerConnection(router: router, output: out)
        connection.received(TestPeer.preface)
        var peer = TestPeer()
        _ = try peer.read(out.take().bytes)
        var requests: [UInt8] = []
        for i in 0..<32 {
            let stream = UInt32(2 * i + 1)
            requests += peer.request(stream: stream, path: "/test.Echo/Unary") + TestPeer.message(stream: stream, [UInt8(i)])
        }
        connection.received(requests)
        let (writes, bytes) = out.take()
        // The first 8 answers are on their way while the 9th call runs: the client need not
        // wait for all 32 before it sends more.
        #expect(writes == 4)
        let runs: [Int] = (0..<32).map { $0 / 8 }
        #expect(seen.counts.withLock { $0 } == runs)
        let events = try peer.read(bytes)
        for i in 0..<32 {
            let call = GRPCServerConnectionTests.call(events, stream: UInt32(2 * i + 1))
            #expect(call.messages == [[UInt8(i), 0xFF]])
            #expect(call.trailers == [HeaderField("grpc-status", "0")])
        }
        // In the order the calls ran.
        let ends = events.compactMap { event -> UInt32? in
            if case .headers(let stream, _, endStream: true) = event { return stream }
            return nil
        }
        let streams: [UInt32] = (0..<32).map { UInt32(2 * $0 + 1) }
        #expect(ends == streams)
    }

    @Test func outputPastTheBoundIsWrittenWithoutWaitingForTheEnd() throws {
        var router = GRPCRouter()
        let big = [UInt8](repeating: 7, count: 40 << 10)
        router.register("test.Big", "Unary", .unary { _, _ in .success(big) })
        let out = CountingWriter()
        let connection = GRPCServerConnection(router: router, output: out)
        // Windows wide enough for every answer, so only the hold bound splits the output.
        connection.received(
            HTTP2Connection.preface
                + HTTP2FrameEncoder.encode(.settings(ack: false, [HTTP2Setting(HTTP2Setting.initialWindowSize, 4 << 20)]))
                + HTTP2FrameEncoder.encode(.windowUpdate(stream: 0, increment: 4 << 20)))
        var peer = TestPeer()
        _ = try peer.read(out.take().bytes)
        var requests: [UInt8] = []
        for i in 0..<8 {
            let stream = UInt32(2 * i + 1)
            requests += peer.request(stream: stream, path: "/test.Big/Unary") + TestPeer.message(stream: stream, [])
        }
        connection.received(requests)
        let (writes, bytes) = out.take()
        // 8 answers of 40 KiB with 64 KiB held at most: several writes, none holding everything.
        #expect(writes >= 4)
        let events = try peer.read(bytes)
        for i in 0..<8 {
            #expect(GRPCServerConnectionTests.call(events, stream: UInt32(2 * i + 1)).trailers == [HeaderField("grpc-status", "0")])
        }
    }
}
