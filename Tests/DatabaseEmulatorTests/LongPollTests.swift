import Dispatch
import EmulatorTestSupport
import EmulatorHTTP
import EmulatorStorage
import EmulatorSupport
import Foundation
import Testing

@testable import DatabaseEmulator

/// RTDB long-polling (`/.lp`) through the router: the JS SDK's BrowserPollConnection exchange, the
/// same wire-protocol session as `/.ws`, held polls, expiry and onDisconnect, bad input.
@Suite struct LongPollTests {
    typealias P = WireSessionProbe

    static func request(_ r: Int, _ action: String, _ body: String) -> String {
        #"{"t":"d","d":{"r":\#(r),"a":"\#(action)","b":\#(body)}}"#
    }

    @Test func startAnswersTheCommandAndTheHelloAsPacketZero() throws {
        let probe = LongPollProbe()
        let (connection, answer) = probe.start(callback: "42")
        #expect(answer.text.hasPrefix(#"(function(){var f=parent.window["pLPCommand42"];if(f)f("start",""#))
        #expect(connection.id.utf8.count == 22 && connection.password.utf8.count == 22)
        #expect(answer.packets.map(\.number) == [0])
        let hello = try #require(answer.packets.first?.messages.first)
        #expect(hello.hasPrefix(#"{"t":"c","d":{"t":"h","d":{"ts":1700000000000,"v":"5","h":"127.0.0.1:9000","s":"emulator-"#))
        #expect(answer.close == nil)
        #expect(probe.emulator.longPollCount == 1)
        #expect(probe.emulator.webSocketCount == 1)  // the registry of wire sessions counts it too
    }

    @Test func pollsCarryRequestsAndAnswerWithNumberedPackets() {
        let probe = LongPollProbe()
        let (connection, _) = probe.start()
        let first = connection.exchange([
            Self.request(1, "s", #"{"c":{"sdk.js.10-12-2":1}}"#), Self.request(2, "p", #"{"p":"/a","d":{"x":"\#(String(repeating: "y", count: 5000))"}}"#),
        ])
        #expect(first.packets.map(\.number) == [1])
        #expect(first.messages == [P.reply(1), P.reply(2)])
        let second = connection.exchange([Self.request(3, "g", #"{"p":"/a/x","q":{}}"#)])
        #expect(second.packets.map(\.number) == [2])
        #expect(second.messages == [P.reply(3, "ok", #""\#(String(repeating: "y", count: 5000))""#)])
        #expect(probe.value("/a/x") == .string(String(repeating: "y", count: 5000)))
    }

    @Test func aHeldPollCarriesAnotherClientsWrite() {
        let probe = LongPollProbe()
        let (connection, _) = probe.start()
        let listened = connection.exchange([Self.request(1, "q", #"{"p":"/room","h":""}"#)])
        #expect(listened.messages == [P.push("d", "room", "null"), P.reply(1, "ok", "{}")])
        let held = connection.poll()
        #expect(held.writer.isOpen)
        #expect(held.headers["Content-Type"] == "application/javascript; charset=utf-8")
        probe.put("/room/title", #""Lobby""#)
        #expect(!held.writer.isOpen)
        let answer = LongPollAnswer(held.writer.text)
        #expect(answer.packets.map(\.number) == [2])
        #expect(answer.messages == [P.push("d", "room", #"{"title":"Lobby"}"#)])
    }

    @Test func aNewPollEndsTheHeldOneAndSegmentsMayCrossBetweenPolls() {
        let probe = LongPollProbe()
        let (connection, _) = probe.start()
        let held = connection.poll()
        #expect(held.writer.isOpen)
        // The SDK's second poll (it has data to send): the first one ends, empty.
        let segments = connection.segments([Self.request(1, "p", #"{"p":"/n","d":1}"#), Self.request(2, "g", #"{"p":"/n","q":{}}"#)])
        let later = connection.poll(segments: Array(segments.dropFirst()))
        #expect(!held.writer.isOpen && held.writer.text.isEmpty)
        #expect(later.writer.isOpen)  // the request it carries waits for the one before
        let earlier = connection.poll(segments: Array(segments.prefix(1)))
        #expect(!later.writer.isOpen && later.writer.text.isEmpty)
        #expect(LongPollAnswer(earlier.writer.text).messages == [P.reply(1), P.reply(2, "ok", "1")])
    }

    @Test func aHeldPollEndsEmptyAfterThePollTimeout() {
        let probe = LongPollProbe()
        let (connection, _) = probe.start()
        let held = connection.poll()
        probe.advance(seconds: 10)
        #expect(held.writer.isOpen)
        probe.advance(seconds: 11)
        #expect(!held.writer.isOpen && held.writer.text.isEmpty)
        #expect(probe.emulator.longPollCount == 1)
    }

    @Test func anIdleConnectionExpiresAndRunsItsOnDisconnect() {
        let probe = LongPollProbe()
        let (connection, _) = probe.start()
        #expect(connection.exchange([Self.request(1, "o", #"{"p":"/presence/me","d":"gone"}"#)]).messages == [P.reply(1)])
        probe.advance(seconds: 29)
        #expect(probe.value("/presence/me") == .null)
        probe.advance(seconds: 2)
        #expect(probe.value("/presence/me") == .string("gone"))
        #expect(probe.emulator.longPollCount == 0)
        #expect(probe.emulator.webSocketCount == 0)
        let late = connection.poll()
        #expect(late.status == .notFound)
    }

    @Test func aHeldPollKeepsTheConnectionAlive() {
        let probe = LongPollProbe()
        let (connection, _) = probe.start()
        _ = connection.poll()
        probe.advance(seconds: 19)
        _ = connection.poll()  // answers the first; this one is held
        probe.advance(seconds: 19)
        #expect(probe.emulator.longPollCount == 1)
    }

    @Test func aPollDroppedByThePeerEndsTheConnectionAfterTheGrace() throws {
        let probe = LongPollProbe()
        let (connection, _) = probe.start()
        _ = connection.exchange([Self.request(1, "o", #"{"p":"/presence/me","d":"gone"}"#)])
        let held = connection.poll()
        held.writer.close()  // the browser went away mid-poll
        #expect(probe.emulator.longPolls.lostCount == 1)
        probe.advance(seconds: 4)
        #expect(probe.value("/presence/me") == .null)
        probe.advance(seconds: 2)
        #expect(probe.value("/presence/me") == .string("gone"))
    }

    @Test func aDroppedPollCountsAsLostBeforeItsCloseReturns() {
        // Noted on the closing thread, no hop to the server's queue (a hop left its block
        // allocated past the fuzz target's input): the queue is kept busy meanwhile.
        let probe = LongPollProbe()
        let busy = DispatchSemaphore(value: 0)
        probe.emulator.longPolls.queue.async { busy.wait() }
        defer { busy.signal() }
        for round in 1...3 {
            let (connection, _) = probe.start()
            let held = connection.poll()
            #expect(held.writer.isOpen)
            held.writer.close()
            #expect(probe.emulator.longPolls.lostCount == round)
        }
    }

    @Test func aPollAnsweredUnderTheOutboxLockIsNotTakenForLost() {
        // The in-process writer runs its close handlers inside `finish`, which the outbox calls
        // under its lock: the handler must neither take that lock again nor mark a newer poll lost.
        let probe = LongPollProbe()
        let (connection, _) = probe.start()
        _ = connection.exchange([Self.request(1, "l", #"{"p":"/a","h":""}"#)])
        let first = connection.poll()
        let second = connection.poll()  // answers the first (empty, under the lock); held
        #expect(!first.writer.isOpen && second.writer.isOpen)
        #expect(probe.emulator.longPolls.lostCount == 0)
        probe.put("/a", "1")  // the push answers the held poll, under the lock, inside the commit
        #expect(!second.writer.isOpen)
        #expect(LongPollAnswer(second.writer.text).messages.contains { $0.contains(#""a":"d""#) })
        #expect(probe.emulator.longPolls.lostCount == 0)
        let third = connection.poll()
        #expect(third.writer.isOpen)
        third.writer.close()
        #expect(probe.emulator.longPolls.lostCount == 1)
        _ = connection.poll()  // a request clears the loss
        #expect(probe.emulator.longPolls.lostCount == 0)
    }

    @Test func theDisconnectFrameEndsTheConnectionAtOnce() {
        let probe = LongPollProbe()
        let (connection, _) = probe.start()
        _ = connection.exchange([Self.request(1, "o", #"{"p":"/presence/me","d":"gone"}"#)])
        let held = connection.poll()
        let frame = probe.client.get("/.lp?dframe=t&id=\(connection.id)&pw=\(connection.password)&ns=lp")
        #expect(frame.status == .ok)
        #expect(frame.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(String(decoding: frame.bodyBytes, as: UTF8.self).contains("/.lp?disconn=t&id=\(connection.id)&pw=\(connection.password)"))
        // What the frame's page sends as it unloads (sendBeacon: a POST).
        let gone = probe.client.post("/.lp?disconn=t&id=\(connection.id)&pw=\(connection.password)", body: "")
        #expect(gone.status == .ok)
        #expect(probe.value("/presence/me") == .string("gone"))
        #expect(!held.writer.isOpen)
        #expect(LongPollAnswer(held.writer.text).close == .some(1))
        #expect(probe.emulator.longPollCount == 0)
    }

    @Test func unknownConnectionsAndWrongPasswordsGet404() {
        let probe = LongPollProbe()
        let (connection, _) = probe.start()
        for target in [
            "/.lp?id=nope&pw=\(connection.password)&ser=1", "/.lp?id=\(connection.id)&pw=wrong&ser=1",
            "/.lp?id=\(connection.id)&ser=1", "/.lp?dframe=t&id=nope&pw=x",
        ] {
            let response = probe.client.get(target)
            #expect(response.status == (target.contains("&ser=1") && !target.contains("pw=") ? .badRequest : .notFound), "\(target)")
        }
        // Nothing of the real connection changed: a wrong password does not end it.
        #expect(probe.client.post("/.lp?disconn=t&id=\(connection.id)&pw=wrong", body: "").status == .ok)
        #expect(probe.emulator.longPollCount == 1)
    }

    @Test(arguments: [
        ("/.lp?start=t&cb=1%3Balert(1)&v=5", HTTPStatus.badRequest, "/* The long-poll callback id (cb) must be a number. */"),
        ("/.lp", HTTPStatus.badRequest, "/* A long poll names its connection with id and pw, or starts one with start=t. */"),
        ("/.lp?id=a&pw=b&seg0=1&ts0=x&d0=e30.", HTTPStatus.badRequest, "/* Long-poll segment 0 needs a numeric seg0 and ts0, and d0. */"),
    ])
    func malformedRequestsGet400(_ target: String, _ status: HTTPStatus, _ body: String) {
        let response = LongPollProbe().client.get(target)
        #expect(response.status == status)
        #expect(String(decoding: response.bodyBytes, as: UTF8.self) == body)
    }

    @Test func aBadNamespaceIsAnErrorMessageAndAClose() {
        let probe = LongPollProbe()
        let response = probe.client.get("/.lp?start=t&cb=3&v=5&ns=a%2Fb")
        let answer = LongPollAnswer(String(decoding: response.bodyBytes, as: UTF8.self))
        #expect(answer.start != nil)
        #expect(answer.packets.map(\.number) == [0])
        #expect(answer.messages.first?.hasPrefix(#"{"t":"c","d":{"t":"e","d":"Invalid namespace"#) == true)
        #expect(answer.close == .some(0))
        #expect(probe.emulator.longPollCount == 0)
    }

    @Test(arguments: [
        ("e30*", "The long-poll message ending at segment 1 is not base64."),
        ("_w..", "The long-poll message ending at segment 1 is not UTF-8 text."),
    ])
    func garbledSegmentsEndTheConnectionWithAnErrorAndAClose(_ data: String, _ message: String) throws {
        let probe = LongPollProbe()
        let (connection, _) = probe.start()
        _ = connection.exchange([Self.request(1, "o", #"{"p":"/presence/me","d":"gone"}"#)])
        let response = connection.poll(segments: [DatabaseLongPollSegment(number: 1, total: 1, data: data)])
        let answer = LongPollAnswer(response.writer.text)
        #expect(answer.packets.map(\.number) == [2])
        #expect(answer.messages == [#"{"t":"c","d":{"t":"e","d":"\#(message)"}}"#])
        #expect(answer.close == .some(2))
        #expect(probe.value("/presence/me") == .string("gone"))
        #expect(probe.emulator.longPollCount == 0)
    }

    @Test func aGapThatNeverFillsEndsTheConnection() {
        let probe = LongPollProbe { $0.segmentLimits = .init(maxMessageBytes: 1 << 20, maxWaitingSegments: 2, maxWaitingCharacters: 1 << 20) }
        let (connection, _) = probe.start()
        for n in 5...6 {
            let held = connection.poll(segments: [DatabaseLongPollSegment(number: n, total: 1, data: "e30.")])
            #expect(held.writer.isOpen)
        }
        let last = connection.poll(segments: [DatabaseLongPollSegment(number: 7, total: 1, data: "e30.")])
        let answer = LongPollAnswer(last.writer.text)
        #expect(answer.messages == [#"{"t":"c","d":{"t":"e","d":"Long-poll segments are missing from 0: 3 later segments are waiting, more than allowed."}}"#])
        #expect(answer.close != nil)
        #expect(probe.emulator.longPollCount == 0)
    }

    @Test func rulesApplyAsOverTheWebSocket() throws {
        let probe = LongPollProbe()
        try probe.emulator.setRules(Array(#"{"rules":{"open":{".read":true,".write":true}}}"#.utf8), namespace: "lp")
        let (connection, _) = probe.start()
        let answer = connection.exchange([
            Self.request(1, "p", #"{"p":"/open/x","d":1}"#), Self.request(2, "p", #"{"p":"/closed/x","d":1}"#),
            Self.request(3, "g", #"{"p":"/closed","q":{}}"#),
        ])
        #expect(answer.messages == [P.reply(1), P.reply(2, "permission_denied", #""Permission denied""#), P.reply(3, "permission_denied", #""Permission denied""#)])
    }

    @Test func theOldestConnectionMakesRoomWhenTheTableIsFull() {
        let probe = LongPollProbe { $0.maxConnections = 3 }
        let (first, _) = probe.start()
        _ = first.exchange([Self.request(1, "o", #"{"p":"/evicted","d":true}"#)])
        probe.clock.set(probe.clock.now + 1_000_000)
        for _ in 0..<3 { _ = probe.start() }
        #expect(probe.emulator.longPollCount == 3)
        #expect(probe.value("/evicted") == .bool(true))
        #expect(first.poll().status == .notFound)
    }

    @Test func tenThousandAbandonedConnectionsExpire() {
        let probe = LongPollProbe()
        for _ in 0..<10_000 { _ = probe.start() }
        #expect(probe.emulator.longPollCount == 10_000)
        let (alive, _) = probe.start()
        probe.advance(seconds: 20)
        let held = alive.poll()  // this one keeps polling
        probe.advance(seconds: 11)
        #expect(probe.emulator.longPollCount == 1)
        #expect(probe.emulator.webSocketCount == 1)
        #expect(held.writer.isOpen)
        #expect(alive.exchange([Self.request(1, "g", #"{"p":"/","q":{}}"#)]).messages == [P.reply(1, "ok", "null")])
    }

    @Test func serverMessagesAClientNeverReadsAreBounded() {
        let probe = LongPollProbe { $0.maxQueuedBytes = 10_000 }
        let (connection, _) = probe.start()
        _ = connection.exchange([Self.request(1, "q", #"{"p":"/big","h":""}"#)])
        for i in 0..<5 { probe.put("/big/\(i)", #""\#(String(repeating: "z", count: 3000))""#) }
        let answer = LongPollAnswer(connection.poll().writer.text)
        #expect(answer.messages == [#"{"t":"c","d":{"t":"e","d":"The long-poll client left more than 10000 bytes unread."}}"#])
        #expect(answer.close != nil)
        #expect(probe.emulator.longPollCount == 0)
    }

    @Test func theClientsEndOfTransmissionWithoutAnUpgradeIsIgnored() {
        let probe = LongPollProbe()
        let (connection, _) = probe.start()
        let answer = connection.exchange([#"{"t":"c","d":{"t":"n","d":{}}}"#, Self.request(1, "g", #"{"p":"/","q":{}}"#)])
        #expect(answer.messages == [P.reply(1, "ok", "null")])
        #expect(answer.close == nil)
    }

    @Test func withADataDirectoryAWritesOkWaitsForDurabilityOnAHeldPoll() {
        let probe = LongPollProbe(replyGate: HeldCommitLog.gate)
        let log = HeldCommitLog()
        probe.storage.setCommitLog(log)
        let (connection, _) = probe.start()
        let held = connection.poll([Self.request(1, "p", #"{"p":"/a","d":1}"#), Self.request(2, "g", #"{"p":"/a","q":{}}"#)])
        #expect(held.writer.isOpen)  // the ok (and the reply behind it) wait; nothing blocked
        #expect(log.blockingWaits == 0)
        log.release()
        #expect(!held.writer.isOpen)
        // The first released reply answers the held poll; the next poll takes the rest.
        #expect(LongPollAnswer(held.writer.text).messages == [P.reply(1)])
        #expect(connection.exchange([]).messages == [P.reply(2, "ok", "1")])
    }

    @Test func pingsOverLongPollingArePonged() {
        let probe = LongPollProbe()
        let (connection, _) = probe.start()
        #expect(connection.exchange([#"{"t":"c","d":{"t":"p","d":{}}}"#]).messages == [#"{"t":"c","d":{"t":"o","d":{}}}"#])
    }
}
