import EmulatorHTTP
import Testing

@Suite("WebChannel session state machine")
struct WebChannelSessionTests {
    static func message(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// The framed back-channel bytes of `items`.
    static func frame(_ items: [(Int, String)]) -> [UInt8] {
        WebChannelFrame.frame(WebChannelFrame.messages(items.map { (id: $0.0, payload: Array($0.1.utf8)) }))
    }

    @Test("a streaming back channel gets a noop, then each message as it comes, numbered from 1")
    func streaming() throws {
        var s = WebChannelSession()
        let (g, opened) = s.attach(.streaming, acknowledged: 0)
        #expect(opened == [.write(generation: g, bytes: Self.frame([(1, #""noop""#)]), finish: false)])
        #expect(try s.enqueue(Self.message("{}")) == [.write(generation: g, bytes: Self.frame([(2, "{}")]), finish: false)])
        #expect(try s.enqueue(Self.message("[1]")) == [.write(generation: g, bytes: Self.frame([(3, "[1]")]), finish: false)])
        #expect(s.lastID == 3)
        #expect(s.isBackChannelOpen)
        #expect(s.unsentBytes == 0)
    }

    @Test("messages wait for a back channel; a new one resends what came after its AID")
    func resend() throws {
        var s = WebChannelSession()
        #expect(try s.enqueue(Self.message("{\"a\":1}")) == [])
        #expect(try s.enqueue(Self.message("{\"a\":2}")) == [])
        #expect(s.unsentBytes == 14)
        let (g1, first) = s.attach(.streaming, acknowledged: 0)
        #expect(first == [.write(generation: g1, bytes: Self.frame([(1, "{\"a\":1}"), (2, "{\"a\":2}"), (3, #""noop""#)]), finish: false)])
        s.detach(g1)
        // The client saw id 1 only: 2 and the noop come again.
        let (g2, second) = s.attach(.streaming, acknowledged: 1)
        #expect(second == [.write(generation: g2, bytes: Self.frame([(2, "{\"a\":2}"), (3, #""noop""#), (4, #""noop""#)]), finish: false)])
        #expect(s.unacknowledgedBytes == 7 + 6 + 6)
        s.acknowledge(4)
        #expect(s.unacknowledgedBytes == 0)
    }

    @Test("a long poll ends with the first data; with nothing queued it waits, then ends on the tick")
    func polling() throws {
        var s = WebChannelSession()
        _ = try s.enqueue(Self.message("{}"))
        let (g1, first) = s.attach(.polling, acknowledged: 0)
        #expect(first == [.write(generation: g1, bytes: Self.frame([(1, "{}")]), finish: true)])
        #expect(!s.isBackChannelOpen)
        let (g2, waiting) = s.attach(.polling, acknowledged: 1)
        #expect(waiting == [])
        #expect(try s.enqueue(Self.message("[2]")) == [.write(generation: g2, bytes: Self.frame([(2, "[2]")]), finish: true)])
        let (g3, idle) = s.attach(.polling, acknowledged: 2)
        #expect(idle == [])
        #expect(s.tick(g3, final: true) == [.write(generation: g3, bytes: Self.frame([(3, #""noop""#)]), finish: true)])
        #expect(s.tick(g3, final: true) == [])
    }

    @Test("a streaming back channel's last tick ends it with a noop")
    func lifetime() throws {
        var s = WebChannelSession()
        let (g, _) = s.attach(.streaming, acknowledged: 0)
        #expect(s.tick(g, final: false) == [.write(generation: g, bytes: Self.frame([(2, #""noop""#)]), finish: false)])
        #expect(s.tick(g, final: true) == [.write(generation: g, bytes: Self.frame([(3, #""noop""#)]), finish: true)])
        #expect(!s.isBackChannelOpen)
        #expect(try s.enqueue(Self.message("{}")) == [])
    }

    @Test("a streaming back channel ends after the write that takes it past its byte bound")
    func byteBound() throws {
        var s = WebChannelSession(maxBackChannelBytes: 40)
        let (g1, _) = s.attach(.streaming, acknowledged: 0)
        let big = String(repeating: "x", count: 20)
        #expect(try s.enqueue(Self.message("\"\(big)\"")) == [.write(generation: g1, bytes: Self.frame([(2, "\"\(big)\"")]), finish: true)])
        #expect(!s.isBackChannelOpen)
        // What comes next waits for the client's next back channel, which starts from zero.
        #expect(try s.enqueue(Self.message("{}")) == [])
        let (g2, second) = s.attach(.streaming, acknowledged: 2)
        #expect(second == [.write(generation: g2, bytes: Self.frame([(3, "{}"), (4, #""noop""#)]), finish: false)])
        #expect(s.isBackChannelOpen)
    }

    @Test("a backlog past the byte bound goes out over several back channels, in order, each within the bound")
    func backlogInPieces() throws {
        var s = WebChannelSession(maxBackChannelBytes: 64)
        let messages = (1...9).map { "\"message \($0)\"" }
        for m in messages { #expect(try s.enqueue(Self.message(m)) == []) }
        #expect(s.isBackedUp)
        var received: [(Int, String)] = []
        var acknowledged = 0
        for _ in 0..<20 where acknowledged < 10 {
            let (g, actions) = s.attach(.streaming, acknowledged: acknowledged)
            guard case .write(let generation, let bytes, let finish)? = actions.last else { break }
            #expect(generation == g)
            #expect(bytes.count <= 64)
            let frames = try #require(WebChannelFrame.split(bytes))
            #expect(frames.count == 1)
            let text = String(decoding: frames[0], as: UTF8.self)
            for match in text.matches(of: /\[(\d+),\[("[^"]*")\]\]/) {
                received.append((Int(match.1) ?? 0, String(match.2)))
            }
            acknowledged = received.last?.0 ?? acknowledged
            if !finish {
                #expect(!s.isBackedUp)
                break
            }
            #expect(s.isBackChannelOpen == false)
        }
        // Each streaming back channel queues a noop as it opens: they come after the backlog.
        #expect(received.map(\.0) == Array(1..<(received.count + 1)))
        #expect(Array(received.prefix(9).map(\.1)) == messages)
        #expect(received.count > 9 && received.dropFirst(9).allSatisfy { $0.1 == #""noop""# })
    }

    @Test("backed up: while no back channel is attached (held messages do not count)")
    func backedUp() throws {
        var s = WebChannelSession()
        #expect(s.isBackedUp)
        let (g, _) = s.attach(.streaming, acknowledged: 0)
        #expect(!s.isBackedUp)
        s.hold()
        _ = try s.enqueue(Self.message("{}"))
        #expect(!s.isBackedUp)
        _ = s.release()
        s.detach(g)
        #expect(s.isBackedUp)
        let (_, polled) = s.attach(.polling, acknowledged: 0)
        #expect(polled.count == 1)  // the poll ends with what it carried
        #expect(s.isBackedUp)
    }

    @Test("a second back channel ends the first; only the second gets messages")
    func openedTwice() throws {
        var s = WebChannelSession()
        let (g1, _) = s.attach(.streaming, acknowledged: 0)
        let (g2, actions) = s.attach(.streaming, acknowledged: 1)
        #expect(actions.first == .finish(generation: g1))
        #expect(g2 != g1)
        #expect(try s.enqueue(Self.message("{}")) == [.write(generation: g2, bytes: Self.frame([(3, "{}")]), finish: false)])
        s.detach(g1)  // the old one's close arrives late: no effect
        #expect(s.isBackChannelOpen)
        #expect(s.tick(g1, final: true) == [])
    }

    @Test("client messages: each ofs once; a replay is skipped, a gap refused")
    func offsets() throws {
        var s = WebChannelSession()
        #expect(try s.accept(offset: 0, count: 2) == 0..<2)
        #expect(try s.accept(offset: 0, count: 2) == 2..<2)  // the same request again
        #expect(try s.accept(offset: 1, count: 3) == 1..<3)  // overlaps: ofs 1 seen, 2 and 3 new
        #expect(s.nextOffset == 4)
        #expect(throws: WebChannelSession.Failure.gap(expected: 4, got: 6)) { try s.accept(offset: 6, count: 1) }
        #expect(s.nextOffset == 4)
        #expect(try s.accept(offset: 4, count: 0) == 0..<0)
    }

    @Test("held messages go out on release, in order")
    func hold() throws {
        var s = WebChannelSession()
        let (g, _) = s.attach(.streaming, acknowledged: 0)
        s.hold()
        #expect(try s.enqueue(Self.message("[2]")) == [])
        #expect(try s.enqueue(Self.message("[3]")) == [])
        #expect(s.release() == [.write(generation: g, bytes: Self.frame([(2, "[2]"), (3, "[3]")]), finish: false)])
    }

    @Test("a client that acknowledges nothing cannot grow the session past its bound")
    func overflow() throws {
        var s = WebChannelSession(maxUnacknowledgedBytes: 10)
        _ = try s.enqueue(Self.message("12345"))
        _ = try s.enqueue(Self.message("12345"))
        #expect(throws: WebChannelSession.Failure.overflow(bytes: 11)) { try s.enqueue(Self.message("1")) }
        s.acknowledge(1)
        _ = try s.enqueue(Self.message("1"))
        #expect(s.unacknowledgedBytes == 6)
    }

    @Test("acknowledging past the last id, or negative ids, is harmless")
    func hostileAcknowledgements() throws {
        var s = WebChannelSession()
        _ = try s.enqueue(Self.message("{}"))
        s.acknowledge(-5)
        #expect(s.unacknowledgedBytes == 2)
        s.acknowledge(Int.max)
        #expect(s.unacknowledgedBytes == 0)
        let (g, actions) = s.attach(.polling, acknowledged: Int.max)
        #expect(actions == [])
        #expect(try s.enqueue(Self.message("[]")) == [.write(generation: g, bytes: Self.frame([(2, "[]")]), finish: true)])
    }
}
