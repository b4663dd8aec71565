import EmulatorHTTP
import Foundation
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
        let (connection, out, connected) = try TestPeer.connect(Self.router(calls))
        var peer = connected
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

    /// A bidirectional call that answers each request with `count` messages of 1 MiB, sending
    /// under its own lock, which its cancellation takes too (as a Listen stream does).
    final class Flood: GRPCStreamingCall {
        let writer: any GRPCMessageWriter
        let ended: Counter
        let lock = Mutex(0)
        init(writer: any GRPCMessageWriter, ended: Counter) {
            self.writer = writer
            self.ended = ended
        }
        func received(_ message: [UInt8]) {
            let chunk = [UInt8](repeating: 9, count: 1 << 20)
            lock.withLock { _ in for _ in 0..<Int(message.first ?? 0) { writer.send(chunk) } }
        }
        func halfClosed() { writer.finish(GRPCStatus(GRPCStatus.Code.ok, "")) }
        func cancelled() { lock.withLock { _ in _ = ended.value.add(1, ordering: .relaxed) } }
    }

    /// A long-lived stream whose client reads slowly (its stream window stays shut while the
    /// connection's is open) neither holds up other calls on the connection nor grows without
    /// bound: past its backlog bound it is reset with ENHANCE_YOUR_CALM (RESOURCE_EXHAUSTED).
    @Test func aSlowStreamDoesNotHoldUpOtherCallsAndIsResetPastItsBound() throws {
        let calls = Counter()
        let ended = Counter()
        var router = Self.router(calls)
        router.register("test.Flood", "Watch", .bidirectional { _, writer in Flood(writer: writer, ended: ended) })
        let (connection, out, connected) = try TestPeer.connect(router)
        var peer = connected
        // The connection window is open; the watch stream's stays at its initial 64 KiB.
        connection.received(HTTP2FrameEncoder.encode(.windowUpdate(stream: 0, increment: 1 << 30)))
        connection.received(peer.request(stream: 1, path: "/test.Flood/Watch") + TestPeer.message(stream: 1, [8], endStream: false))
        _ = try peer.read(out.take())
        // 8 MiB wait behind the watch stream's window; a unary call still runs and completes.
        connection.received(peer.request(stream: 3, path: "/test.Big/Get") + TestPeer.message(stream: 3, [1]))
        var events = try peer.read(out.take())
        connection.received(HTTP2FrameEncoder.encode(.windowUpdate(stream: 3, increment: 1 << 21)))
        events += try peer.read(out.take())
        #expect(calls.value.load(ordering: .relaxed) == 1)
        #expect(events.contains { if case .headers(3, let f, endStream: true) = $0 { f.contains(HeaderField("grpc-status", "0")) } else { false } })
        #expect(ended.value.load(ordering: .relaxed) == 0)

        // More than the bound waits on the watch stream: it is reset, the call ends.
        connection.received(TestPeer.message(stream: 1, [30], endStream: false))
        let after = try peer.read(out.take())
        #expect(after.contains { $0 == .frame(.rstStream(stream: 1, code: .enhanceYourCalm)) })
        // The call hears of it on another thread (it was sending under its own lock).
        let deadline = ContinuousClock.now + .seconds(5)
        while ended.value.load(ordering: .relaxed) == 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
        #expect(ended.value.load(ordering: .relaxed) == 1)
    }

    /// A bidirectional call that sends `message.first` MiB per request and keeps its writer, so
    /// the test can ask whether its client is behind.
    final class Backlogged: GRPCStreamingCall {
        let writer: any GRPCMessageWriter
        var backlog: (any GRPCBacklogWriter)? { writer as? any GRPCBacklogWriter }
        init(writer: any GRPCMessageWriter) { self.writer = writer }
        func received(_ message: [UInt8]) {
            for _ in 0..<Int(message.first ?? 0) { writer.send([UInt8](repeating: 5, count: 1 << 20)) }
        }
        func halfClosed() { writer.finish(GRPCStatus(GRPCStatus.Code.ok, "")) }
        func cancelled() {}
    }

    /// A call can learn that its client is behind and be told once when it has caught up: after
    /// the WINDOW_UPDATEs that let its backlog out, not before; a call that ends drops the handler.
    @Test func aCallLearnsWhenItsClientIsBehindAndWhenItCaughtUp() throws {
        let made = Mutex<[Backlogged]>([])
        var router = GRPCRouter()
        router.register("test.Slow", "Watch", .bidirectional { _, writer in
            let call = Backlogged(writer: writer)
            made.withLock { $0.append(call) }
            return call
        })
        let (connection, out, connected) = try TestPeer.connect(router)
        var peer = connected
        connection.received(HTTP2FrameEncoder.encode(.windowUpdate(stream: 0, increment: 1 << 30)))
        for stream: UInt32 in [1, 3] {
            connection.received(peer.request(stream: stream, path: "/test.Slow/Watch") + TestPeer.message(stream: stream, [2], endStream: false))
        }
        _ = try peer.read(out.take())
        let bodies = made.withLock { $0 }
        try #require(bodies.count == 2)
        let calls = try bodies.map { try #require($0.backlog) }
        #expect(calls[0].isBehind && calls[1].isBehind)

        let caughtUp = Counter(), dropped = Counter()
        calls[0].whenCaughtUp { caughtUp.value.add(1, ordering: .relaxed) }
        calls[1].whenCaughtUp { dropped.value.add(1, ordering: .relaxed) }
        // The client resets the second call; then reads half of the first one's backlog: still behind.
        connection.received(HTTP2FrameEncoder.encode(.rstStream(stream: 3, code: .cancel)))
        connection.received(HTTP2FrameEncoder.encode(.windowUpdate(stream: 1, increment: 1 << 20)))
        _ = try peer.read(out.take())
        #expect(caughtUp.value.load(ordering: .relaxed) == 0)
        #expect(!calls[0].isBehind)  // 1 MiB left: not more than the bound
        // It reads the rest: the handler runs once.
        connection.received(HTTP2FrameEncoder.encode(.windowUpdate(stream: 1, increment: 1 << 20)))
        connection.received(HTTP2FrameEncoder.encode(.windowUpdate(stream: 1, increment: 1 << 20)))
        _ = try peer.read(out.take())
        #expect(caughtUp.value.load(ordering: .relaxed) == 1)
        #expect(dropped.value.load(ordering: .relaxed) == 0)
        // Caught up already: a new handler runs at once.
        calls[0].whenCaughtUp { caughtUp.value.add(1, ordering: .relaxed) }
        #expect(caughtUp.value.load(ordering: .relaxed) == 2)
    }
}
