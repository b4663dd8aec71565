import EmulatorHTTP2
import EmulatorModel
import Foundation
import Synchronization
import Testing

@testable import FirestoreEmulator

/// A gRPC Listen whose client is behind keeps its commits back and sends them folded, under one
/// global snapshot, once the connection says the client caught up (instead of queueing every
/// change until the stream is reset).
@Suite struct GRPCListenBacklogTests {
    /// Collects messages like ``CollectingWriter`` and plays the connection's backlog: behind
    /// until ``catchUp()``, which runs the handler the stream left.
    final class BackloggedWriter: GRPCBacklogWriter {
        let collected = CollectingWriter()
        private struct State {
            var behind = false
            /// Behind again once this many messages were sent.
            var behindAt: Int?
            var handler: (@Sendable () -> Void)?
            var asked = 0
        }
        private let state = Mutex(State())

        func send(_ message: [UInt8]) -> Bool { collected.send(message) }
        func finish(_ status: GRPCStatus) { collected.finish(status) }
        var isOpen: Bool { collected.isOpen }
        var isBehind: Bool {
            let (behind, at) = state.withLock { ($0.behind, $0.behindAt) }
            return behind || at.map { collected.messages.count >= $0 } ?? false
        }
        /// How many times the stream asked to hear of the catch-up.
        var asked: Int { state.withLock { $0.asked } }

        func whenCaughtUp(_ handler: @escaping @Sendable () -> Void) {
            let behind = isBehind
            let now = state.withLock { s -> Bool in
                s.asked += 1
                if !behind { return true }
                s.handler = handler
                return false
            }
            if now { handler() }
        }

        func fallBehind() { state.withLock { $0.behind = true } }

        /// Caught up, and (`behindAt`) behind again once that many messages were sent.
        func catchUp(behindAt: Int? = nil) {
            let handler = state.withLock { s in
                s.behind = false
                s.behindAt = behindAt
                defer { s.handler = nil }
                return s.handler
            }
            handler?()
        }
    }

    /// Every look at a backed-up client hands the connection the same wake-up, not one wrapped
    /// again: a closure kept bare as a `Mutex`'s value gains two reabstraction thunks per
    /// `withLock` read, and a Listen behind for half an hour built a chain whose release
    /// overflowed the stack (the soak's crash). With that chain 200,000 looks make 400,000
    /// nested thunks: calling the last handler, or releasing it, overflows the stack.
    @Test func manyLooksAtABackedUpClientKeepItsWakeUpFlat() async throws {
        let client = GRPCTestClient()
        let writer = BackloggedWriter()
        let call = FirestoreListenCall(service: client.service, caller: .owner, writer: writer)
        call.received(GRPCListenTests.addQuery(client, id: 7, collection: "c"))
        #expect(try await GRPCListenTests.responses(writer.collected, count: 3).count == 3)
        writer.fallBehind()
        for _ in 0..<200_000 { call.refresh() }
        #expect(writer.asked >= 200_000)
        writer.catchUp()
        call.cancelled()
    }

    @Test func commitsWhileBehindGoOutFoldedWhenTheClientCatchesUp() async throws {
        let client = GRPCTestClient()
        let writer = BackloggedWriter()
        let call = FirestoreListenCall(service: client.service, caller: .owner, writer: writer)
        defer { call.cancelled() }
        client.set([("c/a", ["n": .integer(1)])])
        call.received(GRPCListenTests.addQuery(client, id: 7, collection: "c"))
        #expect(try await GRPCListenTests.responses(writer.collected, count: 4).count == 4)

        writer.fallBehind()
        client.set([("c/b", ["n": .integer(1)])])
        client.set([("c/b", ["n": .integer(2)]), ("c/e", ["n": .integer(3)])])
        client.set([("c/a", ["n": .integer(4)])])
        // The worker looked at the commits and left a handler instead of sending.
        let deadline = ContinuousClock.now + .seconds(10)
        while writer.asked == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(writer.asked >= 1)
        try await Task.sleep(for: .milliseconds(50))
        #expect(writer.collected.messages.count == 4, "nothing is sent while the client is behind")

        writer.catchUp()
        var after: [GRPCListenTests.Response] = []
        for _ in 0..<2_000 {
            after = Array(try await GRPCListenTests.responses(writer.collected, count: 5).dropFirst(4))
            if after.last == .target(type: 0, ids: [], hasReadTime: true) { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        let globals = after.filter { $0 == .target(type: 0, ids: [], hasReadTime: true) }
        #expect(globals.count == 1, "one global snapshot for the three commits: \(after)")
        let changed = Set(after.compactMap { if case .change(let name, _) = $0 { name } else { nil } })
        #expect(changed == Set(["c/a", "c/b", "c/e"].map { client.root + "/" + $0 }))
    }

    /// A client that falls behind again while a backlog goes out gets the commits up to there,
    /// with their own global snapshot; the rest follow when it catches up again.
    @Test func aBacklogGoesOutInCommitsWhileTheClientKeepsUp() async throws {
        let client = GRPCTestClient()
        let writer = BackloggedWriter()
        let call = FirestoreListenCall(service: client.service, caller: .owner, writer: writer)
        defer { call.cancelled() }
        call.received(GRPCListenTests.addQuery(client, id: 7, collection: "c"))
        #expect(try await GRPCListenTests.responses(writer.collected, count: 3).count == 3)

        writer.fallBehind()
        for name in ["b", "e", "f"] { client.set([("c/" + name, ["n": .integer(1)])]) }
        let deadline = ContinuousClock.now + .seconds(10)
        while writer.asked == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(writer.collected.messages.count == 3)

        // Behind again as soon as the first commit's change went out.
        let global = GRPCListenTests.Response.target(type: 0, ids: [], hasReadTime: true)
        writer.catchUp(behindAt: 4)
        let first = Array(try await GRPCListenTests.responses(writer.collected, count: 5).dropFirst(3))
        #expect(first == [.change(name: client.root + "/c/b", ids: [7]), global])
        try await Task.sleep(for: .milliseconds(50))
        #expect(writer.collected.messages.count == 5, "the other commits wait")

        writer.catchUp()
        let rest = Array(try await GRPCListenTests.responses(writer.collected, count: 8).dropFirst(5))
        #expect(rest == [.change(name: client.root + "/c/e", ids: [7]), .change(name: client.root + "/c/f", ids: [7]), global])
    }
}
