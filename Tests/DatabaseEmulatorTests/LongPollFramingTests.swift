import EmulatorSupport
import Testing

@testable import DatabaseEmulator

/// The pure pieces of RTDB long-polling: segment reassembly, the request forms, and the
/// JavaScript callback answers (BrowserPollConnection.ts and PacketReceiver.ts of the JS SDK).
@Suite struct LongPollFramingTests {
    typealias Segment = DatabaseLongPollSegment

    /// The SDK's encoding: base64 with the URL-safe alphabet and `.` as padding.
    static func sdkBase64(_ text: String) -> String {
        var out = ""
        for c in Base64.encode(Array(text.utf8), alphabet: .urlSafe, padding: true) { out.append(c == "=" ? "." : c) }
        return out
    }

    /// `text` as the SDK sends it: base64 cut into `size`-character segments numbered from `first`.
    static func segments(_ text: String, first: Int = 0, size: Int = 1840) -> [Segment] {
        let base64 = Array(sdkBase64(text))
        let pieces = stride(from: 0, to: base64.count, by: size).map { String(base64[$0..<min($0 + size, base64.count)]) }
        return pieces.enumerated().map { Segment(number: first + $0.offset, total: pieces.count, data: $0.element) }
    }

    static let a = #"{"t":"d","d":{"r":1,"a":"s","b":{"c":{"sdk.js.10-12-2":1}}}}"#
    static let b = #"{"t":"d","d":{"r":2,"a":"p","b":{"p":"/x","d":"\#(String(repeating: "é😀", count: 900))"}}}"#

    // MARK: Reassembly

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// Segments per request, in arrival order.
        var requests: [[Segment]]
        /// Messages out after each request, or the failure's text.
        var expected: Result<[[String]], DatabaseLongPollAssembler.Failure>
        var testDescription: String { name }
    }

    static let bSegments = segments(b, first: 1, size: 600)

    static let reassemblyCases: [Case] = [
        Case(name: "one message, one segment", requests: [segments(a)], expected: .success([[a]])),
        Case(
            name: "two messages in one request", requests: [segments(a) + segments(b, first: 1)],
            expected: .success([[a, b]])),
        Case(
            name: "a message over several requests",
            requests: [segments(a)] + bSegments.map { [$0] } + [segments(a, first: 1 + bSegments.count)],
            expected: .success([[a]] + Array(repeating: [], count: bSegments.count - 1) + [[b], [a]])),
        Case(
            name: "segments out of order (two polls crossed)",
            requests: [segments(a), Array(bSegments.suffix(2)), Array(bSegments.prefix(bSegments.count - 2))],
            expected: .success([[a], [], [b]])),
        Case(
            name: "a replayed request is dropped", requests: [segments(a), segments(a), segments(b, first: 1)],
            expected: .success([[a], [], [b]])),
        Case(
            name: "standard alphabet, = padding and a + that arrived as a space",
            requests: [[Segment(number: 0, total: 1, data: Base64.encode(Array("{\"k\":\"~~~>\"}".utf8)).replacingPlus())]],
            expected: .success([["{\"k\":\"~~~>\"}"]])),
        Case(
            name: "garbled base64", requests: [[Segment(number: 0, total: 1, data: "e30*")]],
            expected: .failure(.init(message: "The long-poll message ending at segment 0 is not base64."))),
        Case(
            name: "base64 of bytes that are not UTF-8", requests: [[Segment(number: 0, total: 1, data: "_w..")]],
            expected: .failure(.init(message: "The long-poll message ending at segment 0 is not UTF-8 text."))),
        Case(
            name: "segments of one message disagree on the total",
            requests: [[Segment(number: 0, total: 2, data: "eyJ0Ijo"), Segment(number: 1, total: 3, data: "iYyJ9")]],
            expected: .failure(.init(message: "Long-poll segment 1 says its message has 3 segments; the earlier ones said 2."))),
        Case(
            name: "a zero total", requests: [[Segment(number: 0, total: 0, data: "e30.")]],
            expected: .failure(.init(message: "Long-poll segment 0 of 0 is not a valid segment."))),
        Case(
            name: "an empty segment", requests: [[Segment(number: 0, total: 1, data: "")]],
            expected: .failure(.init(message: "Long-poll segment 0 carries no data."))),
        Case(
            name: "a gap that never fills (more waiting segments than allowed)",
            requests: (1...5).map { [Segment(number: $0, total: 1, data: "e30.")] },
            expected: .failure(.init(message: "Long-poll segments are missing from 0: 5 later segments are waiting, more than allowed."))),
        Case(
            name: "a message over the size limit",
            requests: [(0..<3).map { Segment(number: $0, total: 4, data: String(repeating: "A", count: 40)) }],
            expected: .failure(.init(message: "A long-poll message is larger than 64 bytes."))),
    ]

    @Test(arguments: reassemblyCases)
    func reassembly(_ c: Case) {
        var assembler = DatabaseLongPollAssembler(
            limits: .init(maxMessageBytes: c.name.contains("size limit") ? 64 : 16 << 20, maxWaitingSegments: 4, maxWaitingCharacters: 1 << 20))
        var out: [[String]] = []
        do {
            for request in c.requests { out.append(try assembler.add(request)) }
            #expect(Result.success(out) == c.expected)
        } catch {
            #expect(Result.failure(error) == c.expected)
        }
    }

    @Test func waitingSegmentsAreBoundedByCharactersToo() {
        var assembler = DatabaseLongPollAssembler(limits: .init(maxMessageBytes: 1 << 20, maxWaitingSegments: 100, maxWaitingCharacters: 100))
        #expect(throws: DatabaseLongPollAssembler.Failure.self) {
            _ = try assembler.add([Segment(number: 5, total: 1, data: String(repeating: "A", count: 60))])
            _ = try assembler.add([Segment(number: 6, total: 1, data: String(repeating: "A", count: 60))])
        }
    }

    @Test func waitingSegmentsDrainOnceTheGapFills() throws {
        var assembler = DatabaseLongPollAssembler()
        #expect(try assembler.add(Self.segments(Self.b, first: 1)).isEmpty)
        let count = Self.segments(Self.b).count
        #expect(count > 1)
        #expect(assembler.waitingCount == count)
        #expect(try assembler.add(Self.segments(Self.a)) == [Self.a, Self.b])
        #expect(assembler.waitingCount == 0)
        #expect(assembler.next == 1 + count)
    }

    // MARK: Requests

    @Test func requestForms() throws {
        typealias R = DatabaseLongPollRequest
        #expect(try R.parse([("start", "t"), ("ser", "7"), ("cb", "12"), ("v", "5"), ("ns", "x")]) == .start(callback: "12"))
        #expect(try R.parse([("start", "t"), ("v", "5")]) == .start(callback: ""))
        #expect(
            try R.parse([("id", "i"), ("pw", "p"), ("ser", "1"), ("seg1", "4"), ("ts1", "1"), ("d1", "Yg.."), ("seg0", "3"), ("ts0", "1"), ("d0", "YQ..")])
                == .poll(id: "i", password: "p", segments: [Segment(number: 3, total: 1, data: "YQ.."), Segment(number: 4, total: 1, data: "Yg..")]))
        #expect(try R.parse([("id", "i"), ("pw", "p"), ("ser", "2")]) == .poll(id: "i", password: "p", segments: []))
        #expect(try R.parse([("dframe", "t"), ("id", "i"), ("pw", "p")]) == .disconnectFrame(id: "i", password: "p"))
        #expect(try R.parse([("disconn", "t"), ("id", "i"), ("pw", "p")]) == .disconnect(id: "i", password: "p"))
    }

    @Test(arguments: [
        ([("start", "t"), ("cb", "1);alert(1")], "The long-poll callback id (cb) must be a number."),
        ([("ser", "1")], "A long poll names its connection with id and pw, or starts one with start=t."),
        ([("id", "i")], "A long poll names its connection with id and pw, or starts one with start=t."),
        ([("id", "i"), ("pw", "p"), ("seg0", "x"), ("ts0", "1"), ("d0", "e30.")], "Long-poll segment 0 needs a numeric seg0 and ts0, and d0."),
        ([("id", "i"), ("pw", "p"), ("seg0", "0"), ("d0", "e30.")], "Long-poll segment 0 needs a numeric seg0 and ts0, and d0."),
        ([("id", "i"), ("pw", "p"), ("seg0", "-1"), ("ts0", "1"), ("d0", "e30.")], "Long-poll segment 0 needs a numeric seg0 and ts0, and d0."),
    ] as [([(String, String)], String)])
    func malformedRequests(_ items: [(String, String)], _ message: String) {
        #expect(throws: DatabaseLongPollRequest.Malformed(message: message)) {
            _ = try DatabaseLongPollRequest.parse(items.map { (name: $0.0, value: $0.1) })
        }
    }

    @Test func segmentsPerRequestAreBounded() {
        let items = (0...DatabaseLongPollRequest.maxSegmentsPerRequest).flatMap { i in
            [(name: "seg\(i)", value: "\(i)"), (name: "ts\(i)", value: "1"), (name: "d\(i)", value: "e30.")]
        }
        #expect(throws: DatabaseLongPollRequest.Malformed.self) {
            _ = try DatabaseLongPollRequest.parse([(name: "id", value: "i"), (name: "pw", value: "p")] + items)
        }
    }

    // MARK: Callback answers

    @Test(arguments: [
        (#"{"a":1}"#, #""[{\"a\":1}]""#),
        (#"{"s":"back\\slash"}"#, #""[{\"s\":\"back\\\\slash\"}]""#),
        (#"{"s":"</script><b>"}"#, #""[{\"s\":\"\u003c/script>\u003cb>\"}]""#),
        ("{\"s\":\"line\u{2028}para\u{2029}\"}", #""[{\"s\":\"line\u2028para\u2029\"}]""#),
        ("{\"s\":\"😀é\"}", "\"[{\\\"s\\\":\\\"😀é\\\"}]\""),
        ("{\"__proto__\":{\"x\":1}}", #""[{\"__proto__\":{\"x\":1}}]""#),
    ])
    func packetCarriesMessagesAsAJSONString(_ message: String, _ literal: String) {
        let script = String(decoding: DatabaseLongPollScript.packet(callback: "3", number: 7, messages: [Array(message.utf8)]), as: UTF8.self)
        #expect(script == #"(function(){var f=parent.window["pRTLPCB3"];if(f)f(7,JSON.parse(\#(literal)));})();"# + "\n")
    }

    @Test func controlCharactersAreEscapedInStringLiterals() {
        var out: [UInt8] = []
        DatabaseLongPollScript.appendStringLiteral([0x01, 0x0A, 0x0D, 0x7F, 0x41], to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #""\u0001\n\r\u007fA""#)
    }

    @Test func packetOfSeveralMessagesAndCommands() {
        let two = DatabaseLongPollScript.packet(callback: "", number: 0, messages: [Array("1".utf8), Array("2".utf8)])
        #expect(String(decoding: two, as: UTF8.self) == #"(function(){var f=parent.window["pRTLPCB"];if(f)f(0,JSON.parse("[1,2]"));})();"# + "\n")
        #expect(
            String(decoding: DatabaseLongPollScript.start(callback: "1", id: "I-d_", password: "pw"), as: UTF8.self)
                == #"(function(){var f=parent.window["pLPCommand1"];if(f)f("start","I-d_","pw");})();"# + "\n")
        #expect(
            String(decoding: DatabaseLongPollScript.close(callback: "1", after: 4), as: UTF8.self)
                == #"(function(){var f=parent.window["pLPCommand1"];if(f)f("close",4);})();"# + "\n")
        #expect(
            String(decoding: DatabaseLongPollScript.close(callback: "1", after: nil), as: UTF8.self)
                == #"(function(){var f=parent.window["pLPCommand1"];if(f)f("close");})();"# + "\n")
    }

    @Test func disconnectFrameReportsTheLeavingClient() {
        let page = String(decoding: DatabaseLongPollScript.disconnectFrame(id: "abc", password: "xyz"), as: UTF8.self)
        #expect(page.hasPrefix("<!DOCTYPE html><html><body><script>"))
        #expect(page.contains(#"var url="/.lp?disconn=t&id=abc&pw=xyz""#))
        #expect(page.contains("navigator.sendBeacon(url)"))
        #expect(page.contains(#"window.addEventListener("pagehide",leave,false);"#))
        #expect(page.contains(#"window.addEventListener("unload",leave,false);"#))
    }
}

extension String {
    /// What a standard-alphabet `+` becomes when a URL carries it unescaped.
    fileprivate func replacingPlus() -> String { String(map { $0 == "+" ? " " : $0 }) }
}
