import EmulatorHTTP
import Synchronization
import Testing

@testable import EmulatorHTTP2

/// A client that sends many calls and does not read (gives no window) cannot make the server
/// produce every response: calls wait while more than a bound is queued behind the windows.
@Suite struct GRPCBackPressureTests {
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    static func router(_ calls: Counter) -> GRPCRouter {
        var r = GRPCRouter()
        let big = [UInt8](repeating: 7, count: 1 << 20)
        r.register("test.Big", "Get", .unary { _, _ in
            calls.value.add(1, ordering: .relaxed)
            return .success(big)
        })
        return r
    }

    @Test func unaryCallsWaitForWindowAndRunWhenItOpens() throws {
        let calls = Counter()
        let out = CapturingWriter()
        let connection = GRPCServerConnection(router: Self.router(calls), output: out)
        connection.received(TestPeer.preface)
        var peer = TestPeer()
        _ = try peer.read(out.take())
        var requests: [UInt8] = []
        for i in 0..<40 {
            let stream = UInt32(2 * i + 1)
            requests += peer.request(stream: stream, path: "/test.Big/Get")
            requests += TestPeer.message(stream: stream, [1])
        }
        connection.received(requests)
        // The default windows (64 KiB) let almost nothing out: before, all 40 MiB were produced.
        let first = calls.value.load(ordering: .relaxed)
        #expect(first >= 1)
        #expect(first <= 6, "\(first) of 40 calls ran for a client that reads nothing")

        // The client reads: it opens the connection window and every stream's window; the
        // waiting calls run and all 40 responses complete.
        var completed = Set<UInt32>()
        var events = try peer.read(out.take())
        for _ in 0..<200 where completed.count < 40 {
            var updates = HTTP2FrameEncoder.encode(.windowUpdate(stream: 0, increment: 1 << 30))
            for i in 0..<40 { updates += HTTP2FrameEncoder.encode(.windowUpdate(stream: UInt32(2 * i + 1), increment: 1 << 21)) }
            connection.received(updates)
            events += try peer.read(out.take())
            for case .headers(let stream, let fields, endStream: true) in events where fields.contains(HeaderField("grpc-status", "0")) {
                completed.insert(stream)
            }
            events.removeAll()
        }
        #expect(calls.value.load(ordering: .relaxed) == 40)
        #expect(completed.count == 40)
    }
}
