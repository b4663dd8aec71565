import EmulatorHTTP
import EmulatorSupport
import Synchronization
import Testing

/// Drives a ``WebChannelServer`` in process with an echo service.
struct WebChannelHarness: Sendable {
    let server: WebChannelServer
    let client: InProcessClient
    let clock: TestClock
    let closed: ClosedCount

    final class TestClock: Sendable {
        let nanoseconds = Mutex<UInt64>(1_000_000_000)
        func advance(seconds: UInt64) { nanoseconds.withLock { $0 += seconds * 1_000_000_000 } }
        var now: UInt64 { nanoseconds.withLock { $0 } }
    }

    final class ClosedCount: Sendable {
        let value = Mutex(0)
        var count: Int { value.withLock { $0 } }
    }

    /// Echoes every message back; `"fail"` answers with an error message.
    struct Echo: WebChannelStream {
        let output: WebChannelOutput
        let closed: ClosedCount
        func receive(_ message: [UInt8]) { output.send(message) }
        func close() { closed.value.withLock { $0 += 1 } }
    }

    /// - Parameter stream: the service's stream for a session (default: ``Echo``).
    init(
        gate: ReplyGate? = nil, configure: (inout WebChannelServer.Configuration) -> Void = { _ in },
        stream: (@Sendable (WebChannelOutput) -> any WebChannelStream)? = nil
    ) {
        var configuration = WebChannelServer.Configuration()
        configure(&configuration)
        let clock = TestClock()
        let closed = ClosedCount()
        clock.advance(seconds: 1)
        server = WebChannelServer(configuration: configuration, gate: gate, now: { clock.now }) { _, output in
            stream?(output) ?? Echo(output: output, closed: closed)
        }
        let server = self.server
        client = InProcessClient(handler: CORSPolicy().wrap { server.respond(to: $0) })
        self.clock = clock
        self.closed = closed
    }

    static func form(ofs: Int, _ messages: [String]) -> String {
        var parts = ["count=\(messages.count)", "ofs=\(ofs)"]
        for (i, m) in messages.enumerated() { parts.append("req\(i)___data__=\(PercentEncoding.encode(m))") }
        return parts.joined(separator: "&")
    }

    /// Opens a session; returns its SID.
    func open(_ messages: [String] = []) throws -> String {
        let response = client.post("/channel?VER=8&RID=1&CVER=22&t=1", body: Self.form(ofs: 0, messages))
        #expect(response.status == .ok)
        let frames = try #require(WebChannelFrame.split(response.bodyBytes))
        let reply = try JSONReader.parse(try #require(frames.first))
        guard case .array(let items) = reply, case .array(let first)? = items.first, first.count == 2,
            case .array(let c) = first[1], c.count >= 2, case .string(let sid) = c[1]
        else { throw HarnessError.noSession(response.bodyText) }
        return sid
    }

    enum HarnessError: Error { case noSession(String) }

    func forward(_ sid: String, ofs: Int, _ messages: [String], aid: Int = 0) -> HTTPResponse {
        client.post("/channel?VER=8&SID=\(sid)&RID=2&AID=\(aid)&t=1", body: Self.form(ofs: ofs, messages))
    }

    func backChannel(_ sid: String, aid: Int = 0, polling: Bool = false) -> InProcessClient.StreamedResponse {
        client.stream("/channel?VER=8&RID=rpc&SID=\(sid)&AID=\(aid)&CI=\(polling ? 1 : 0)&TYPE=xmlhttp&t=1")
    }

    /// The `[id, payload]` pairs of a back channel's body so far.
    static func messages(_ bytes: [UInt8]) throws -> [(id: Int, payload: JSONValue)] {
        var out: [(id: Int, payload: JSONValue)] = []
        for frame in try #require(WebChannelFrame.split(bytes)) {
            guard case .array(let items) = try JSONReader.parse(frame) else { continue }
            for item in items {
                guard case .array(let pair) = item, pair.count == 2, case .int(let id) = pair[0], case .array(let p) = pair[1], let payload = p.first
                else { continue }
                out.append((Int(id), payload))
            }
        }
        return out
    }
}

@Suite("WebChannel server")
struct WebChannelServerTests {
    @Test("open, back channel, forward channel, terminate")
    func lifecycle() throws {
        let h = WebChannelHarness()
        let sid = try h.open([#"{"n":1}"#])
        #expect(sid.utf8.count == 22)
        let back = h.backChannel(sid)
        #expect(back.status == .ok)
        #expect(back.writer.isOpen)
        #expect(try WebChannelHarness.messages(back.writer.bytes).map(\.id) == [1, 2])
        #expect(try WebChannelHarness.messages(back.writer.bytes).first?.payload == .object([JSONMember("n", .int(1))]))

        let forward = h.forward(sid, ofs: 1, [#"{"n":2}"#, #"{"n":3}"#], aid: 2)
        #expect(forward.status == .ok)
        #expect(forward.bodyText == "7\n[1,4,0]")
        let got = try WebChannelHarness.messages(back.writer.bytes)
        #expect(got.map(\.id) == [1, 2, 3, 4])
        #expect(got.last?.payload == .object([JSONMember("n", .int(3))]))

        let terminate = h.client.post("/channel?VER=8&SID=\(sid)&RID=3&TYPE=terminate&t=1", body: "")
        #expect(terminate.status == .ok)
        #expect(!back.writer.isOpen)
        #expect(h.closed.count == 1)
        #expect(h.server.sessionCount == 0)
        #expect(h.backChannel(sid).status == .badRequest)
    }

    @Test("credentialed CORS: the Origin is echoed with credentials, session headers exposed; preflights answered")
    func cors() throws {
        let h = WebChannelHarness()
        let response = h.client.send(HTTPRequest(
            method: .post, target: "/channel?VER=8&RID=1&t=1", headers: HTTPHeaders([("Origin", "http://localhost:5173")]),
            body: Array(WebChannelHarness.form(ofs: 0, []).utf8)))
        #expect(response.status == .ok)
        #expect(response.headers["Access-Control-Allow-Origin"] == "http://localhost:5173")
        #expect(response.headers["Access-Control-Allow-Credentials"] == "true")
        #expect(response.headers["Vary"] == "Origin")
        #expect(response.headers["Access-Control-Expose-Headers"]?.contains("X-HTTP-Session-Id") == true)
        let preflight = h.client.send(HTTPRequest(
            method: .options, target: "/channel?VER=8",
            headers: HTTPHeaders([("Origin", "http://localhost:5173"), ("Access-Control-Request-Method", "POST")])))
        #expect(preflight.status == .noContent)
        #expect(preflight.headers["Access-Control-Allow-Origin"] == "http://localhost:5173")
    }

    @Test("an unknown SID is 400 'Unknown SID' (what closure looks for), for every kind of request")
    func unknownSession() throws {
        let h = WebChannelHarness()
        let back = h.backChannel("nope")
        #expect(back.status == .badRequest)
        #expect(back.writer.text == "Unknown SID")
        for response in [h.forward("nope", ofs: 0, ["{}"]), h.client.post("/channel?VER=8&SID=nope&RID=3&TYPE=terminate", body: "")] {
            #expect(response.status == .badRequest)
            #expect(response.bodyText == "Unknown SID")
        }
    }

    @Test("bad bodies get a 400 Google error; the session and other sessions go on")
    func badBodies() throws {
        let h = WebChannelHarness()
        let sid = try h.open()
        let other = try h.open(["{}"])
        for body in ["count=2&ofs=0&req0___data__=1", "count=1&ofs=0&req0___data__=%zz", "count=zz"] {
            let response = h.client.post("/channel?VER=8&SID=\(sid)&RID=2&AID=0", body: body)
            #expect(response.status == .badRequest)
            let json = try JSONReader.parse(response.bodyBytes)
            #expect(json[member: "error"]?[member: "status"] == .string("INVALID_ARGUMENT"))
        }
        #expect(h.forward(sid, ofs: 0, [#"{"ok":true}"#]).status == .ok)
        let back = h.backChannel(other)
        #expect(try WebChannelHarness.messages(back.writer.bytes).count == 2)  // {} and the noop
        let opening = h.client.post("/channel?VER=8&RID=1", body: "count=1&ofs=0")
        #expect(opening.status == .badRequest)
        let late = h.client.post("/channel?VER=8&RID=1", body: WebChannelHarness.form(ofs: 3, ["{}"]))
        #expect(late.status == .badRequest)
    }

    @Test("a replayed ofs is delivered once; a gap ends the session")
    func offsets() throws {
        let h = WebChannelHarness()
        let sid = try h.open(["1"])
        #expect(h.forward(sid, ofs: 0, ["1", "2"]).bodyText == "7\n[0,2,2]")  // "1" skipped, "2" new
        #expect(h.forward(sid, ofs: 1, ["2"]).bodyText == "7\n[0,2,2]")  // replay: nothing new
        let back = h.backChannel(sid)
        #expect(try WebChannelHarness.messages(back.writer.bytes).map(\.payload) == [.int(1), .int(2), .string("noop")])
        let gap = h.forward(sid, ofs: 5, ["6"])
        #expect(gap.status == .badRequest)
        #expect(!back.writer.isOpen)
        #expect(h.forward(sid, ofs: 2, ["3"]).status == .badRequest)
        #expect(h.closed.count == 1)
    }

    @Test("a back channel opened twice: the first ends, the second carries on")
    func backChannelTwice() throws {
        let h = WebChannelHarness()
        let sid = try h.open()
        let first = h.backChannel(sid)
        let second = h.backChannel(sid, aid: 1)
        #expect(!first.writer.isOpen)
        #expect(second.writer.isOpen)
        _ = h.forward(sid, ofs: 0, ["7"])
        #expect(try WebChannelHarness.messages(second.writer.bytes).map(\.payload) == [.string("noop"), .int(7)])
        #expect(try WebChannelHarness.messages(first.writer.bytes).map(\.payload) == [.string("noop")])
    }

    /// A stream holding work back while its client has no back channel resumes when told one is
    /// attached, and then finds its output no longer backed up.
    @Test("attaching a back channel tells the stream, after the output can take messages again")
    func backChannelAttachedIsToldAfterTheOutputCanSend() throws {
        final class Recorded: Sendable { let backedUp = Mutex<[Bool]>([]) }
        struct Recorder: WebChannelStream {
            let output: WebChannelOutput
            let recorded: Recorded
            func receive(_ message: [UInt8]) {}
            func close() {}
            func backChannelAttached() { recorded.backedUp.withLock { $0.append(output.isBackedUp) } }
        }
        let recorded = Recorded()
        let outputs = Mutex<[WebChannelOutput]>([])
        let h = WebChannelHarness(stream: { output in
            outputs.withLock { $0.append(output) }
            return Recorder(output: output, recorded: recorded)
        })
        let sid = try h.open()
        let output = try #require(outputs.withLock { $0.first })
        #expect(output.isBackedUp)
        let first = h.backChannel(sid)
        #expect(recorded.backedUp.withLock { $0 } == [false])
        first.writer.close()
        _ = h.backChannel(sid, aid: 1)
        #expect(recorded.backedUp.withLock { $0 } == [false, false])
    }

    @Test("a long poll answers at once with queued messages, else when one comes")
    func longPolling() throws {
        let h = WebChannelHarness()
        let sid = try h.open(["1"])
        let first = h.backChannel(sid, polling: true)
        #expect(!first.writer.isOpen)
        #expect(try WebChannelHarness.messages(first.writer.bytes).map(\.payload) == [.int(1)])
        let second = h.backChannel(sid, aid: 1, polling: true)
        #expect(second.writer.isOpen)
        #expect(second.writer.bytes.isEmpty)
        #expect(h.forward(sid, ofs: 1, ["2"], aid: 1).status == .ok)
        #expect(!second.writer.isOpen)
        #expect(try WebChannelHarness.messages(second.writer.bytes).map(\.id) == [2])
    }

    @Test("10,000 abandoned sessions expire; a session with a back channel stays and still works")
    func expiry() throws {
        let h = WebChannelHarness { $0.idleTimeout = .seconds(60) }
        let live = try h.open()
        let back = h.backChannel(live)
        for _ in 0..<10_000 { _ = try h.open(["{}"]) }
        #expect(h.server.sessionCount == 10_001)
        h.clock.advance(seconds: 30)
        h.server.sweep()
        #expect(h.server.sessionCount == 10_001)
        h.clock.advance(seconds: 31)
        h.server.sweep()
        #expect(h.server.sessionCount == 1)
        #expect(h.closed.count == 10_000)
        #expect(h.forward(live, ofs: 0, ["5"]).status == .ok)
        #expect(try WebChannelHarness.messages(back.writer.bytes).last?.payload == .int(5))
    }

    @Test("past the session limit, opening one closes the least recently active")
    func limit() throws {
        let h = WebChannelHarness { $0.maxSessions = 3 }
        let oldest = try h.open()
        h.clock.advance(seconds: 1)
        let b = try h.open()
        h.clock.advance(seconds: 1)
        let c = try h.open()
        h.clock.advance(seconds: 1)
        _ = h.forward(oldest, ofs: 0, ["1"])  // now b is the least recently active
        _ = try h.open()
        #expect(h.server.sessionCount == 3)
        #expect(h.forward(b, ofs: 0, ["1"]).status == .badRequest)
        #expect(h.forward(oldest, ofs: 1, ["2"]).status == .ok)
        #expect(h.forward(c, ofs: 0, ["1"]).status == .ok)
    }

    @Test("a reply gate holds a message's replies until it releases them; other sessions are not held")
    func gate() throws {
        let pending = Mutex<[@Sendable () -> Void]>([])
        // Holds the replies of messages that say "durable later".
        let holdNext = Mutex(false)
        let gate = ReplyGate { work in
            work()
            guard holdNext.withLock({ $0 }) else { return nil }
            return { action in pending.withLock { $0.append(action) } }
        }
        let h = WebChannelHarness(gate: gate)
        let held = try h.open()
        let free = try h.open()
        let heldBack = h.backChannel(held)
        let freeBack = h.backChannel(free)
        holdNext.withLock { $0 = true }
        #expect(h.forward(held, ofs: 0, ["1"]).status == .ok)
        holdNext.withLock { $0 = false }
        #expect(h.forward(free, ofs: 0, ["2"]).status == .ok)
        #expect(try WebChannelHarness.messages(heldBack.writer.bytes).map(\.payload) == [.string("noop")])
        #expect(try WebChannelHarness.messages(freeBack.writer.bytes).map(\.payload) == [.string("noop"), .int(2)])
        for action in pending.withLock({ $0 }) { action() }
        #expect(try WebChannelHarness.messages(heldBack.writer.bytes).map(\.payload) == [.string("noop"), .int(1)])
    }
}
