import EmulatorHTTP
import Synchronization
import Testing

@testable import EmulatorHTTP2

/// A paced server-streaming call produces its responses as the peer opens its windows: a peer
/// that reads nothing costs a bounded number of encoded bytes, one that reads gets everything in
/// order.
@Suite struct GRPCPacedWriterTests {
    final class Produced: Sendable {
        let batches = Atomic<Int>(0)
        let next = Mutex(0)
    }

    /// `Big/Stream`: 400 messages of 32 KiB (12.5 MiB), two per batch; byte 0..3 number them.
    static func router(_ produced: Produced) -> GRPCRouter {
        var r = GRPCRouter()
        r.register("test.Big", "Stream", .serverStreamingLater { _, _, writer in
            guard let paced = writer as? any GRPCPacedWriter else {
                writer.finish(GRPCStatus(13, "not paced"))
                return
            }
            paced.produce {
                produced.batches.add(1, ordering: .relaxed)
                return produced.next.withLock { n in
                    var batch: [[UInt8]] = []
                    for _ in 0..<2 where n < 400 {
                        var m = [UInt8](repeating: 9, count: 32 * 1024)
                        m[0] = UInt8(n >> 8)
                        m[1] = UInt8(n & 0xFF)
                        batch.append(m)
                        n += 1
                    }
                    return n >= 400 ? .end(batch, .ok) : .more(batch)
                }
            }
        })
        return r
    }

    @Test func aPeerThatDoesNotReadHoldsBoundedBytesAndAReaderGetsAllInOrder() throws {
        let produced = Produced()
        let (connection, out, connected) = try TestPeer.connect(Self.router(produced))
        var peer = connected
        connection.received(peer.request(stream: 1, path: "/test.Big/Stream") + TestPeer.message(stream: 1, [1]))

        // The default windows (64 KiB) let almost nothing out; the producer stops at its bound.
        var written = out.take()
        let held = connection.state.withLock { $0.connection.queuedBytes }
        #expect(held + written.count <= GRPCServerConnection.maxQueuedBytesPerPacedCall + 2 * 64 * 1024 + 4096,
                "\(held + written.count) bytes held for a peer that reads nothing")
        #expect(produced.batches.load(ordering: .relaxed) <= 6)

        // The peer reads: windows open step by step, every message arrives, in order.
        var payload: [UInt8] = []
        var ended = false
        for _ in 0..<2000 where !ended {
            for event in try peer.read(written) {
                switch event {
                case .data(1, let bytes, _): payload += bytes
                case .headers(1, let fields, endStream: true): ended = fields.contains(HeaderField("grpc-status", "0"))
                default: break
                }
            }
            connection.received(
                HTTP2FrameEncoder.encode(.windowUpdate(stream: 0, increment: 1 << 20))
                    + HTTP2FrameEncoder.encode(.windowUpdate(stream: 1, increment: 1 << 20)))
            written = out.take()
        }
        #expect(ended)
        var numbers: [Int] = []
        var deframer = GRPCMessageDeframer()
        deframer.append(payload)
        while let m = try deframer.next() { numbers.append(Int(m[0]) << 8 | Int(m[1])) }
        #expect(numbers == Array(0..<400))
    }

    @Test func aResetCallStopsProducing() throws {
        let produced = Produced()
        let (connection, _, connected) = try TestPeer.connect(Self.router(produced))
        var peer = connected
        connection.received(peer.request(stream: 1, path: "/test.Big/Stream") + TestPeer.message(stream: 1, [1]))
        let before = produced.batches.load(ordering: .relaxed)
        connection.received(HTTP2FrameEncoder.encode(.rstStream(stream: 1, code: .cancel)))
        connection.received(
            HTTP2FrameEncoder.encode(.windowUpdate(stream: 0, increment: 1 << 30)))
        #expect(produced.batches.load(ordering: .relaxed) == before)
        #expect(connection.state.withLock { $0.paced.isEmpty && $0.calls.isEmpty })
    }
}
