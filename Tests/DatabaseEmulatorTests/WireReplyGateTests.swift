import EmulatorTestSupport
import EmulatorSupport
import EmulatorStorage
import Testing

@testable import DatabaseEmulator

/// With a reply gate (live data directory), a write's `ok` waits for durability without blocking
/// the session's thread, and replies keep request order.
@Suite struct WireReplyGateTests {
    typealias P = WireSessionProbe

    /// A client whose engine logs to a held `HeldCommitLog`, after `setUp` ran unlogged.
    static func start(setUp: (DatabaseTestClient) -> Void = { _ in }) -> (DatabaseTestClient, HeldCommitLog) {
        let db = DatabaseTestClient(replyGate: HeldCommitLog.gate)
        setUp(db)
        let log = HeldCommitLog()
        db.storage.setCommitLog(log)
        return (db, log)
    }

    @Test func aWritesOkWaitsForDurabilityAndLaterRepliesWaitBehindIt() {
        let (db, log) = Self.start { $0.put("/a.json?ns=w", "1") }
        let probe = P(db)
        probe.request(1, "p", #"{"p":"/a","d":2}"#)
        probe.request(2, "g", #"{"p":"/a","q":{}}"#)
        probe.request(3, "m", #"{"p":"/b","d":{"x":1}}"#)
        // Nothing blocked: the commits returned, the read sees the write, and no reply went out.
        #expect(log.blockingWaits == 0)
        #expect(log.appended == 2)
        #expect(probe.take().isEmpty)
        log.release()
        #expect(probe.take() == [P.reply(1), P.reply(2, "ok", "2"), P.reply(3)])
        // Once durable, replies go out at once again.
        probe.request(4, "g", #"{"p":"/b/x","q":{}}"#)
        #expect(probe.take() == [P.reply(4, "ok", "1")])
    }

    @Test func aTransactionsOkIsHeldAndAStaleOneIsAnsweredInOrder() {
        let (db, log) = Self.start()
        let probe = P(db)
        // `h` of an empty location is "".
        probe.request(1, "p", #"{"p":"/t","d":5,"h":""}"#)
        probe.request(2, "p", #"{"p":"/t","d":6,"h":""}"#)
        #expect(probe.take().isEmpty)
        log.release()
        let replies = probe.take()
        #expect(replies.count == 2)
        #expect(replies.first == P.reply(1))
        #expect(replies.last?.contains(#""r":2,"b":{"s":"datastale""#) == true)
    }

    @Test func listenersSeeTheWriteBeforeTheWritersOk() {
        let (db, log) = Self.start()
        let watcher = P(db)
        watcher.request(1, "q", #"{"p":"/room","h":""}"#)
        _ = watcher.take()
        let writer = P(db)
        writer.request(7, "p", #"{"p":"/room/title","d":"Hall"}"#)
        #expect(watcher.take() == [P.push("d", "room", #"{"title":"Hall"}"#)])
        #expect(writer.take().isEmpty)
        log.release()
        #expect(writer.take() == [P.reply(7)])
    }

    @Test func heldRepliesOfAClosedSessionAreDroppedAndOnDisconnectDoesNotBlock() {
        let (db, log) = Self.start()
        let probe = P(db)
        probe.request(1, "o", #"{"p":"/presence/alice","d":null}"#)
        #expect(probe.take() == [P.reply(1)])
        probe.request(2, "p", #"{"p":"/presence/alice","d":true}"#)
        probe.session.closed()
        // The onDisconnect delete ran without waiting for its sync.
        #expect(log.blockingWaits == 0)
        #expect(log.appended == 2)
        log.release()
        #expect(probe.take().isEmpty)
        #expect(db.value("/presence/alice.json?ns=w") == .null)
    }
}
