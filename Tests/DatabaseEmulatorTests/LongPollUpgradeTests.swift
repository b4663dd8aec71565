import EmulatorHTTP
import EmulatorSupport
import Synchronization
import Testing

@testable import DatabaseEmulator

/// The SDK's upgrade of a long-poll connection to a WebSocket (`/.ws?s=<session>`), through the
/// router with an in-memory socket: the same wire session moves over once the client's end of
/// transmission arrives on long-polling.
@Suite struct LongPollUpgradeTests {
    typealias P = WireSessionProbe

    /// The server's side of an upgraded connection, kept in memory.
    final class Socket: UpgradedConnectionWriter {
        private let state = Mutex<(bytes: [UInt8], closed: Bool)>(([], false))
        func write(_ bytes: [UInt8]) -> Bool {
            state.withLock { s in
                guard !s.closed else { return false }
                s.bytes += bytes
                return true
            }
        }
        func close() { state.withLock { $0.closed = true } }
        var isOpen: Bool { state.withLock { !$0.closed } }

        /// The text messages sent so far (each taken once).
        func take() -> [String] {
            let bytes = state.withLock { s -> [UInt8] in
                defer { s.bytes = [] }
                return s.bytes
            }
            var decoder = WebSocketFrameDecoder(requireMasked: false)
            decoder.append(bytes)
            var out: [String] = []
            while case .frame(let frame)? = decoder.next() {
                if frame.opcode == .text { out.append(String(decoding: frame.payload, as: UTF8.self)) }
            }
            return out
        }
    }

    /// A client's masked text frame.
    static func frame(_ text: String) -> [UInt8] {
        WebSocketFrame(opcode: .text, payload: Array(text.utf8)).encoded(maskingKey: (1, 2, 3, 4))
    }

    /// Opens the upgrade socket for the hello's session; nil when the router did not upgrade.
    static func upgrade(_ probe: LongPollProbe, session: String?) -> (Socket, any UpgradedConnectionHandler)? {
        let response = probe.client.send(
            HTTPRequest(
                method: .get, target: "/.ws?v=5\(session.map { "&s=\($0)" } ?? "")&ns=lp",
                headers: HTTPHeaders([
                    ("Host", "127.0.0.1:9000"), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
                    ("Sec-WebSocket-Version", "13"), ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
                ])))
        guard case .upgrade(let upgrade) = response.body else { return nil }
        let socket = Socket()
        return (socket, upgrade.makeHandler(socket))
    }

    static func sessionID(_ hello: String?) -> String {
        guard let hello, case .string(let s)? = (try? JSONReader.parse(hello))?[member: "d"]?[member: "d"]?[member: "s"] else { return "" }
        return s
    }

    static let ping = #"{"t":"c","d":{"t":"p","d":{}}}"#
    static let pong = #"{"t":"c","d":{"t":"o","d":{}}}"#
    static let end = #"{"t":"c","d":{"t":"n","d":{}}}"#

    @Test func theSessionMovesToTheSocketAtTheEndOfTransmission() throws {
        let probe = LongPollProbe()
        let (connection, start) = probe.start()
        _ = connection.exchange([LongPollTests.request(1, "o", #"{"p":"/presence/me","d":"gone"}"#)])
        let (socket, handler) = try #require(Self.upgrade(probe, session: Self.sessionID(start.messages.first)))
        #expect(socket.take() == [#"{"t":"c","d":{"t":"a","d":{}}}"#])
        handler.received(Self.frame(Self.ping) + Self.frame(Self.ping))
        #expect(socket.take() == [Self.pong, Self.pong])
        handler.received(Self.frame(#"{"t":"c","d":{"t":"a","d":{}}}"#))
        // The client sends on the socket from now on; long-polling still carries what it had.
        handler.received(Self.frame(LongPollTests.request(2, "p", #"{"p":"/x","d":2}"#)))
        #expect(socket.take().isEmpty)
        let held = connection.poll()
        let last = connection.poll([Self.end])
        #expect(!held.writer.isOpen)
        let answer = LongPollAnswer(held.writer.text + last.writer.text)
        #expect(answer.messages == [Self.end])
        #expect(answer.close != nil)
        #expect(socket.take() == [P.reply(2)])
        #expect(probe.value("/x") == .int(2))
        // Long-polling is done: its disconnect does not end the session, the socket's close does.
        #expect(probe.emulator.longPollCount == 0)
        _ = probe.client.post("/.lp?disconn=t&id=\(connection.id)&pw=\(connection.password)", body: "")
        #expect(probe.value("/presence/me") == .null)
        handler.received(Self.frame(LongPollTests.request(3, "g", #"{"p":"/x","q":{}}"#)))
        #expect(socket.take() == [P.reply(3, "ok", "2")])
        handler.closed()
        #expect(probe.value("/presence/me") == .string("gone"))
        #expect(probe.emulator.webSocketCount == 0)
    }

    @Test func aSocketThatClosesBeforeTheSwitchLeavesLongPollingAsItWas() throws {
        let probe = LongPollProbe()
        let (connection, start) = probe.start()
        let (socket, handler) = try #require(Self.upgrade(probe, session: Self.sessionID(start.messages.first)))
        _ = socket.take()
        handler.received(Self.frame(LongPollTests.request(5, "p", #"{"p":"/early","d":1}"#)))
        handler.closed()
        // The message the socket got before the switch is dropped with it; long-polling goes on.
        #expect(connection.exchange([LongPollTests.request(1, "g", #"{"p":"/early","q":{}}"#)]).messages == [P.reply(1, "ok", "null")])
        #expect(probe.emulator.longPollCount == 1)
        // A second upgrade attempt may follow.
        let again = try #require(Self.upgrade(probe, session: Self.sessionID(start.messages.first)))
        #expect(again.0.take() == [#"{"t":"c","d":{"t":"a","d":{}}}"#])
    }

    @Test func anUnknownSessionGetsASocketThatClosesAtOnce() throws {
        let probe = LongPollProbe()
        let (socket, handler) = try #require(Self.upgrade(probe, session: "emulator-0-0"))
        #expect(socket.take().isEmpty)
        #expect(!socket.isOpen)
        // Nothing it sends is read as a request.
        handler.received(Self.frame(LongPollTests.request(1, "p", #"{"p":"/stray","d":1}"#)))
        #expect(probe.value("/stray") == .null)
        // Without `s` the socket is the ordinary realtime connection.
        let (plain, _) = try #require(Self.upgrade(probe, session: nil))
        #expect(plain.take().first?.hasPrefix(#"{"t":"c","d":{"t":"h","d":"#) == true)
    }

    @Test func aSecondSocketForTheSameSessionIsRefused() throws {
        let probe = LongPollProbe()
        let (connection, start) = probe.start()
        let session = Self.sessionID(start.messages.first)
        let first = try #require(Self.upgrade(probe, session: session))
        #expect(first.0.take().count == 1)
        let second = try #require(Self.upgrade(probe, session: session))
        #expect(second.0.take().isEmpty)
        #expect(!second.0.isOpen)
        // What the refused socket sends never reaches the session, even once it switches.
        second.1.received(Self.frame(LongPollTests.request(9, "p", #"{"p":"/intruder","d":1}"#)))
        first.1.received(Self.frame(LongPollTests.request(2, "p", #"{"p":"/mine","d":1}"#)))
        _ = connection.exchange([Self.end])
        #expect(first.0.take() == [P.reply(2)])
        #expect(probe.value("/intruder") == .null)
        #expect(probe.value("/mine") == .int(1))
    }

    @Test func anExpiredConnectionClosesItsUnfinishedUpgrade() throws {
        let probe = LongPollProbe()
        let (_, start) = probe.start()
        let (socket, _) = try #require(Self.upgrade(probe, session: Self.sessionID(start.messages.first)))
        probe.advance(seconds: 31)
        #expect(probe.emulator.longPollCount == 0)
        #expect(!socket.isOpen)
    }
}
