import EmulatorModel
import EmulatorSupport
import Testing

@testable import DatabaseEmulator

/// The RTDB wire protocol codec: frame splitting and reassembly, envelopes, replies, query objects.
@Suite struct WireCodecTests {
    // MARK: Framing

    @Test func shortMessageIsOneFrame() {
        let message = Array(#"{"t":"c","d":{"t":"o","d":{}}}"#.utf8)
        #expect(DatabaseWireFraming.frames(for: message) == [message])
        let limit = [UInt8](repeating: UInt8(ascii: "a"), count: 16_384)
        #expect(DatabaseWireFraming.frames(for: limit) == [limit])
    }

    @Test(arguments: [
        (16_385, ["2"], [16_384, 1]),
        (40_000, ["3"], [16_384, 16_384, 7_232]),
    ])
    func longMessageIsCountThenPieces(length: Int, prefix: [String], pieces: [Int]) {
        let message = [UInt8](repeating: UInt8(ascii: "x"), count: length)
        let frames = DatabaseWireFraming.frames(for: message)
        #expect(frames.first.map { String(decoding: $0, as: UTF8.self) } == prefix.first)
        #expect(frames.dropFirst().map(\.count) == pieces)
        #expect(Array(frames.dropFirst().joined()) == message)
    }

    @Test func piecesNeverCutAScalar() {
        // 16,383 ASCII bytes then "é" (2 bytes): the cut moves before the é.
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 16_383) + Array("é and more".utf8)
        let frames = DatabaseWireFraming.frames(for: message)
        #expect(frames.count == 3)
        #expect(frames[1].count == 16_383)
        #expect(frames.dropFirst().allSatisfy { String(validating: $0, as: UTF8.self) != nil })
    }

    @Test func assemblerJoinsAnnouncedPiecesAndIgnoresKeepAlive() {
        var assembler = DatabaseWireFrameAssembler()
        #expect(assembler.add("0") == .keepAlive)
        #expect(assembler.add(#"{"t":"d"}"#) == .message(#"{"t":"d"}"#))
        #expect(assembler.add("3") == .incomplete)
        #expect(assembler.add(#"{"t":"#) == .incomplete)
        #expect(assembler.add(#""d","d""#) == .incomplete)
        #expect(assembler.add(#":{}}"#) == .message(#"{"t":"d","d":{}}"#))
        // A count of one (firebase-server style) is accepted too.
        #expect(assembler.add("1") == .incomplete)
        #expect(assembler.add("{}") == .message("{}"))
    }

    @Test func assemblerRejectsOversizedMessages() {
        var assembler = DatabaseWireFrameAssembler(maxMessageBytes: 10)
        #expect(assembler.add("2") == .incomplete)
        #expect(assembler.add("0123456789") == .incomplete)
        #expect(assembler.add("x") == .tooLarge)
        #expect(assembler.add("{}") == .message("{}"))
    }

    // MARK: Envelopes

    @Test(arguments: [
        (#"{"t":"c","d":{"t":"p","d":{}}}"#, DatabaseWireMessage.control(type: "p", data: .object([]))),
        (
            #"{"t":"d","d":{"r":3,"a":"q","b":{"p":"/a","h":""}}}"#,
            .request(
                id: 3, action: "q", body: .object([JSONMember("p", .string("/a")), JSONMember("h", .string(""))]))
        ),
        (#"{"t":"d","d":{"a":"n","b":{"p":"/a"}}}"#, .notification(action: "n", body: .object([JSONMember("p", .string("/a"))]))),
        (#"{"t":"d","d":{"r":7.0,"a":"s","b":{}}}"#, .request(id: 7, action: "s", body: .object([]))),
    ])
    func decodesClientMessages(text: String, expected: DatabaseWireMessage) {
        #expect(DatabaseWireMessage.decode(text) == expected)
    }

    @Test(arguments: ["0", "[]", "{}", #"{"t":"x","d":{}}"#, #"{"t":"d","d":{"r":1}}"#, #"{"t":"d","d":{"r":"1","a":"q"}}"#, "{"])
    func rejectsMalformedMessages(text: String) {
        #expect(DatabaseWireMessage.decode(text) == nil)
    }

    @Test(arguments: [
        (
            DatabaseWireReply.hello(timestamp: 1_760_000_000_000, host: "127.0.0.1:9000", session: "sess-1"),
            #"{"t":"c","d":{"t":"h","d":{"ts":1760000000000,"v":"5","h":"127.0.0.1:9000","s":"sess-1"}}}"#
        ),
        (.pong, #"{"t":"c","d":{"t":"o","d":{}}}"#),
        (.reset(host: "127.0.0.1:9001"), #"{"t":"c","d":{"t":"r","d":"127.0.0.1:9001"}}"#),
        (.ok(1), #"{"t":"d","d":{"r":1,"b":{"s":"ok","d":""}}}"#),
        (.ok(3, .object([])), #"{"t":"d","d":{"r":3,"b":{"s":"ok","d":{}}}}"#),
        (
            .response(id: 7, status: "datastale", data: .string("Transaction hash does not match")),
            #"{"t":"d","d":{"r":7,"b":{"s":"datastale","d":"Transaction hash does not match"}}}"#
        ),
        (
            .data("d", path: "rooms/r1", data: .object([JSONMember("title", .string("Lobby"))]), tag: nil),
            #"{"t":"d","d":{"a":"d","b":{"p":"rooms/r1","d":{"title":"Lobby"}}}}"#
        ),
        (.data("m", path: "msgs", data: .object([JSONMember("m8", .null)]), tag: 1), #"{"t":"d","d":{"a":"m","b":{"p":"msgs","d":{"m8":null},"t":1}}}"#),
    ])
    func encodesServerMessages(reply: DatabaseWireReply, text: String) {
        #expect(String(decoding: reply.bytes, as: UTF8.self) == text)
    }

    // MARK: Query objects

    @Test func wireQueryObjects() throws {
        let last = try #require(wq(#"{"i":"ts","l":2,"vf":"r"}"#))
        #expect(last.index == .child(DatabasePath(keys: ["ts"])))
        #expect(last.limit == .last(2))
        #expect(last.start == nil && last.end == nil)

        let after = try #require(wq(#"{"sp":5,"sn":"[MAX_NAME]","sin":false,"i":".value"}"#))
        #expect(after.index == .value)
        #expect(after.start == DatabaseQueryParams.Bound(value: .int(5), key: "[MAX_NAME]", inclusive: false))

        let keys = try #require(wq(#"{"i":".key","ep":"m","l":3,"vf":"l"}"#))
        #expect(keys.index == .key)
        #expect(keys.end == DatabaseQueryParams.Bound(value: .string("m"), inclusive: true))
        #expect(keys.limit == .first(3))

        // Legacy limit(): from the left when only a start is set.
        let legacy = try #require(wq(#"{"sp":1,"l":1}"#))
        #expect(legacy.index == .priority && legacy.limit == .first(1))

        #expect(DatabaseQueryParams(wire: .object([])) == .all)
        #expect(wq(#"{"l":0,"vf":"l"}"#) == nil)
        #expect(wq(#"{"sp":{"a":1}}"#) == nil)
        #expect(wq(#"{"i":"a..b"}"#) == nil)
    }

    @Test func wireQueryWindowsSelectLikeTheSDK() throws {
        let node = DatabaseNode.build(try #require(j(#"{"a":1,"b":2,"c":3,"d":"x"}"#)), existing: .empty, now: 0)
        func keys(_ q: String) throws -> [String] {
            let query = try #require(wq(q))
            return Array(query.apply(to: node).children.keys)
        }
        // iOS startAfter(2): sp 2 with the MAX name, no sin.
        #expect(try keys(#"{"i":".value","sp":2,"sn":"[MAX_NAME]"}"#) == ["c", "d"])
        // JS endBefore(3): ep 3 with the MIN name and ein false.
        #expect(try keys(#"{"i":".value","ep":3,"en":"[MIN_NAME]","ein":false}"#) == ["a", "b"])
        #expect(try keys(#"{"i":".value","l":2,"vf":"r"}"#) == ["c", "d"])
        #expect(try keys(#"{"i":".key","sp":"b","sin":false}"#) == ["c", "d"])
    }
}

/// A wire query object written as JSON text, decoded.
private func wq(_ text: String) -> DatabaseQueryParams? {
    j(text).flatMap { DatabaseQueryParams(wire: $0) }
}
