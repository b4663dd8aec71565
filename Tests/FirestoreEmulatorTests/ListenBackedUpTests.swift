import EmulatorModel
import Synchronization
import Testing

@testable import FirestoreEmulator

/// A Listen stream whose client is behind (its transport is backed up): commits wait and go out
/// together with one global snapshot, and a global snapshot never skips a waiting commit.
@Suite struct ListenBackedUpTests {
    typealias T = IncrementalListenTests

    /// Records events; `backedUp` is what the stream asks before a refresh.
    final class Sink: ListenEventSink {
        let events = Mutex<[ListenEvent]>([])
        let backedUp = Mutex(false)
        func send(_ event: ListenEvent) { events.withLock { $0.append(event) } }
        func finish(_ error: EmulatorError?) {}
        var isBackedUp: Bool { backedUp.withLock { $0 } }
        var all: [ListenEvent] { events.withLock { $0 } }
    }

    static func isGlobalSnapshot(_ e: ListenEvent) -> Bool {
        if case .targetChange(.noChange, let targets, let readTime, _, _) = e { return targets.isEmpty && readTime != nil }
        return false
    }

    static func changedPaths(_ events: some Sequence<ListenEvent>, target: Int32) -> [String] {
        events.compactMap { e -> String? in
            guard case .documentChange(let d, _, let targets, _) = e, targets.contains(target) else { return nil }
            return d.document.path.segments.joined(separator: "/")
        }
    }

    /// A stream without a worker (each test refreshes it) watching collection `c` as target 1, and
    /// how many events its sink held after the target's first answer.
    static func watchCollectionC(_ service: FirestoreService, _ sink: Sink) -> (ListenStream, start: Int) {
        let stream = ListenStream(service: service, caller: .owner, sink: sink, startsWorker: false)
        stream.receive { () throws(EmulatorError) in ListenRequest(database: T.database.name, addTarget: T.queryTarget(1, T.query("c"))) }
        return (stream, sink.all.count)
    }

    @Test func commitsWhileBackedUpGoOutWithOneGlobalSnapshot() throws {
        let service = FirestoreService()
        let sink = Sink()
        let (stream, start) = Self.watchCollectionC(service, sink)
        defer { stream.cancel() }
        sink.backedUp.withLock { $0 = true }
        for name in ["x", "y", "z"] {
            try T.set(service, [("c/\(name)", ["a": 1])])
            stream.refresh()
        }
        #expect(sink.all.count == start)

        sink.backedUp.withLock { $0 = false }
        stream.refresh()
        let sent = Array(sink.all[start...])
        #expect(Self.changedPaths(sent, target: 1) == ["c/x", "c/y", "c/z"])
        #expect(sent.filter(Self.isGlobalSnapshot).count == 1)
        #expect(sent.last.map(Self.isGlobalSnapshot) == true)
    }

    @Test(arguments: [false, true])
    func aTargetAddedWhileCommitsWaitHasTheirChangesBeforeItsGlobalSnapshot(backedUp: Bool) throws {
        let service = FirestoreService()
        let sink = Sink()
        let (stream, start) = Self.watchCollectionC(service, sink)
        defer { stream.cancel() }
        sink.backedUp.withLock { $0 = backedUp }
        // Not refreshed: the commit waits (for the worker, or for the client).
        try T.set(service, [("c/x", ["a": 1]), ("d/y", ["a": 2])])
        stream.receive { () throws(EmulatorError) in ListenRequest(database: T.database.name, addTarget: T.queryTarget(2, T.query("d"))) }
        let sent = Array(sink.all[start...])
        let global = try #require(sent.firstIndex(where: Self.isGlobalSnapshot))
        #expect(Self.changedPaths(sent[..<global], target: 1) == ["c/x"])
        #expect(Self.changedPaths(sent[..<global], target: 2) == ["d/y"])
        // Nothing is sent twice once the client catches up.
        sink.backedUp.withLock { $0 = false }
        stream.refresh()
        #expect(sink.all.count == start + sent.count)
    }
}
