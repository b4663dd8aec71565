import Synchronization
import Testing

@testable import EmulatorHTTP2

/// The fast paths of a repeated unary call: a header block that repeats the last one, a request
/// head read from the same header list, and an answer written whole. Each must agree with the
/// general path it skips, on valid and hostile input, and be taken where it applies.
@Suite("Repeated calls")
struct RepeatedCallTests {
    // MARK: HPACK: a repeated block

    /// A decoder whose every block takes the general path (setting a limit drops the kept block).
    struct GeneralDecoder {
        var decoder: HPACKDecoder
        mutating func decode(_ block: [UInt8]) throws(HPACKError) -> [HeaderField] {
            decoder.maxHeaderListSize = decoder.maxHeaderListSize
            return try decoder.decode(block)
        }
    }

    static let request = [
        HeaderField(":method", "POST"), HeaderField(":scheme", "http"),
        HeaderField(":path", "/google.firestore.v1.Firestore/GetDocument"), HeaderField("te", "trailers"),
    ]

    static let huffmanPath: [UInt8] = {
        var encoder = HPACKEncoder(huffman: true)
        return encoder.encode(request)
    }()

    /// Blocks that name the dynamic table (`be` = index 62, the newest entry), insert into it,
    /// resize it, or are malformed, in sequences where a kept block would answer wrongly if the
    /// table's changes were not noticed.
    static let sequences: [(String, [[UInt8]])] = [
        // A literal `:path` without indexing, Huffman-coded, three times.
        ("repeated literal", [huffmanPath, huffmanPath, huffmanPath]),
        // `x: 1` inserted, then named by index; `x: 2` inserted; the same index names it now.
        ("index after insert", [hex("40 01 78 01 31"), hex("be"), hex("be"), hex("40 01 78 01 32"), hex("be"), hex("be")]),
        // A block that inserts is never kept: repeated, it inserts again (two entries).
        ("repeated insert", [hex("40 01 78 01 31"), hex("40 01 78 01 31"), hex("be"), hex("bf")]),
        // A size update empties the table: the index that named `x: 1` is then invalid.
        ("resize", [hex("40 01 78 01 31"), hex("be"), hex("20 be"), hex("be"), hex("3f e1 1f"), hex("be")]),
        // A kept block, then hostile blocks: truncated, a bad index, bad Huffman padding.
        ("hostile after a kept block", [hex("82 86"), hex("82 86"), hex("82"), hex("82 86 04"), hex("82 86"),
                                        hex("82 c0"), hex("82 86"), hex("00 81 18 01 61"), hex("82 86")]),
    ]

    @Test(arguments: sequences)
    func aRepeatedBlockDecodesAsTheGeneralPath(_ name: String, _ blocks: [[UInt8]]) {
        var fast = HPACKDecoder()
        var general = GeneralDecoder(decoder: HPACKDecoder())
        for (i, block) in blocks.enumerated() {
            let a = Result { () throws(HPACKError) -> [HeaderField] in try fast.decode(block) }
            let b = Result { () throws(HPACKError) -> [HeaderField] in try general.decode(block) }
            #expect(a == b, "\(name): block \(i)")
            #expect(fast.dynamicEntries == general.decoder.dynamicEntries, "\(name): block \(i)")
        }
        #expect(general.decoder.repeatedBlocks == 0)
    }

    @Test func aRepeatedBlockIsNotDecodedAgain() throws {
        var encoder = HPACKEncoder(huffman: true)
        let block = encoder.encode(Self.request)
        var decoder = HPACKDecoder()
        let first = try decoder.decode(block)
        #expect(first == Self.request)
        #expect(decoder.repeatedBlocks == 0)
        #expect(try decoder.decode(block) == Self.request)
        #expect(try decoder.decode(block) == Self.request)
        #expect(decoder.repeatedBlocks == 2)
        // Another block in between: decoded, and kept in turn.
        #expect(try decoder.decode([0x82]) == [HeaderField(":method", "GET")])
        #expect(try decoder.decode(block) == Self.request)
        #expect(decoder.repeatedBlocks == 2)
    }

    @Test func aLowerListLimitAppliesToARepeatedBlock() throws {
        var encoder = HPACKEncoder()
        let block = encoder.encode(Self.request)
        var decoder = HPACKDecoder()
        _ = try decoder.decode(block)
        decoder.maxHeaderListSize = 64
        #expect(throws: HPACKError.headerListTooLarge) { try decoder.decode(block) }
    }

    // MARK: A whole answer

    /// A connection with stream 1 open (request ended), the peer's initial window `window`.
    static func opened(window: UInt32 = 65_535, maxFrameSize: UInt32 = 16_384, endStream: Bool = true) -> HTTP2Connection {
        var c = HTTP2Connection()
        let settings = HTTP2FrameEncoder.encode(.settings(ack: false, [
            HTTP2Setting(HTTP2Setting.initialWindowSize, window), HTTP2Setting(HTTP2Setting.maxFrameSize, maxFrameSize),
        ]))
        var encoder = HPACKEncoder()
        let headers = HTTP2FrameEncoder.encode(.headers(stream: 1, block: encoder.encode(request), endStream: endStream, endHeaders: true))
        _ = c.receive(HTTP2Connection.preface + settings + headers)
        return c
    }

    static func written(_ actions: [HTTP2Connection.Action]) -> [UInt8] {
        var out: [UInt8] = []
        for case .write(let b) in actions { out += b }
        return out
    }

    @Test(arguments: [0, 1, 1000, 16_379], [true, false])
    func aWholeAnswerIsTheGeneralPathsBytes(size: Int, requestEnded: Bool) {
        let message = (0..<size).map { UInt8(truncatingIfNeeded: $0) }
        let headerBlock = GRPCServerConnection.responseHeaderBlock
        let trailerBlock = GRPCServerConnection.okTrailerBlock
        var general = Self.opened(endStream: requestEnded)
        var expected = Self.written(general.sendHeaders(stream: 1, block: headerBlock))
        expected += Self.written(general.sendData(stream: 1, GRPCMessageDeframer.frame(message)))
        expected += Self.written(general.sendTrailers(stream: 1, block: trailerBlock))

        var fast = Self.opened(endStream: requestEnded)
        var out: [UInt8] = [7]
        let taken = fast.writeWholeAnswer(
            stream: 1, headerBlock: headerBlock, dataCount: message.count + 5, trailerBlock: trailerBlock, into: &out
        ) { GRPCMessageDeframer.appendFrame(message, to: &$0) }
        #expect(taken)
        #expect(out == [7] + expected)
        #expect(fast.connectionSendWindow == general.connectionSendWindow)
        #expect(fast.openStreamCount == general.openStreamCount)
        #expect(fast.streams[1]?.localClosed == general.streams[1]?.localClosed)
        #expect(fast.streams[1]?.sendWindow == general.streams[1]?.sendWindow)
        // Nothing more may go out on the stream.
        #expect(fast.sendData(stream: 1, [1]).isEmpty)
    }

    @Test(arguments: [
        ("stream window", 100 as UInt32, 16_384 as UInt32, 200),
        ("frame size", 1 << 20, 16_384, 16_380),
    ])
    func anAnswerTheWindowsDoNotTakeWholeIsNotWritten(_ what: String, window: UInt32, frame: UInt32, size: Int) {
        var c = Self.opened(window: window, maxFrameSize: frame)
        let before = c.connectionSendWindow
        var out: [UInt8] = []
        let taken = c.writeWholeAnswer(
            stream: 1, headerBlock: GRPCServerConnection.responseHeaderBlock, dataCount: size + 5,
            trailerBlock: GRPCServerConnection.okTrailerBlock, into: &out
        ) { GRPCMessageDeframer.appendFrame([UInt8](repeating: 1, count: size), to: &$0) }
        #expect(!taken, "\(what)")
        #expect(out.isEmpty)
        #expect(c.connectionSendWindow == before)
        #expect(c.streams[1]?.localClosed == false)
        // Unknown, and already ended, streams are refused too.
        #expect(!c.writeWholeAnswer(stream: 3, headerBlock: [], dataCount: 5, trailerBlock: [], into: &out) { $0 += [0, 0, 0, 0, 0] })
        _ = c.resetStream(1, .cancel)
        #expect(!c.writeWholeAnswer(stream: 1, headerBlock: [], dataCount: 5, trailerBlock: [], into: &out) { $0 += [0, 0, 0, 0, 0] })
        #expect(out.isEmpty)
    }

    // MARK: Calls on one connection

    @Test func repeatedCallsReuseTheHeadAndAnswerWhole() throws {
        var (connection, out, peer) = try GRPCServerConnectionTests.start()
        var bytes: [UInt8] = []
        for stream in stride(from: UInt32(1), through: 7, by: 2) {
            bytes += peer.request(stream: stream, path: "/test.Echo/Unary") + TestPeer.message(stream: stream, [UInt8(stream)])
        }
        connection.received(bytes)
        let events = try peer.read(out.take())
        for stream in stride(from: UInt32(1), through: 7, by: 2) {
            let call = GRPCServerConnectionTests.call(events, stream: stream)
            #expect(call.messages == [[UInt8(stream), 0xFF]])
            #expect(call.headers?.first("content-type") == "application/grpc")
            #expect(call.trailers == [HeaderField("grpc-status", "0")])
        }
        let (reopened, whole) = connection.state.withLock { ($0.reopenedHeads, $0.wholeAnswers) }
        #expect(reopened == 3)
        #expect(whole == 4)
    }

    @Test func aCallUnlikeTheLastIsReadAfresh() throws {
        var (connection, out, peer) = try GRPCServerConnectionTests.start()
        connection.received(peer.request(stream: 1, path: "/test.Echo/Unary") + TestPeer.message(stream: 1, [1]))
        // Same path, then an unknown one, a compressed encoding, a GET: each answered as alone.
        connection.received(peer.request(stream: 3, path: "/test.Echo/Nope") + TestPeer.message(stream: 3, [1]))
        connection.received(
            peer.request(stream: 5, path: "/test.Echo/Unary", extra: [HeaderField("grpc-encoding", "gzip")]) + TestPeer.message(stream: 5, [1]))
        connection.received(peer.request(stream: 7, path: "/test.Echo/Unary") + TestPeer.message(stream: 7, [7]))
        let events = try peer.read(out.take())
        #expect(GRPCServerConnectionTests.call(events, stream: 1).messages == [[1, 0xFF]])
        #expect(GRPCServerConnectionTests.call(events, stream: 3).trailers?.first("grpc-status") == "12")
        #expect(GRPCServerConnectionTests.call(events, stream: 5).trailers?.first("grpc-status") == "12")
        #expect(GRPCServerConnectionTests.call(events, stream: 7).messages == [[7, 0xFF]])
        // Only stream 7 repeats an accepted head (stream 1's, decoded afresh: an equal list).
        #expect(connection.state.withLock { $0.reopenedHeads } == 1)
    }

    @Test func anAnswerPastTheWindowWaitsForIt() throws {
        var (connection, out, peer) = try GRPCServerConnectionTests.start()
        connection.received(HTTP2FrameEncoder.encode(.settings(ack: false, [HTTP2Setting(HTTP2Setting.initialWindowSize, 4)])))
        _ = out.take()
        connection.received(peer.request(stream: 1, path: "/test.Echo/Unary") + TestPeer.message(stream: 1, [1, 2, 3]))
        var events = try peer.read(out.take())
        #expect(GRPCServerConnectionTests.call(events, stream: 1).trailers == nil)
        #expect(connection.state.withLock { $0.wholeAnswers } == 0)
        connection.received(HTTP2FrameEncoder.encode(.windowUpdate(stream: 1, increment: 100)))
        events += try peer.read(out.take())
        let call = GRPCServerConnectionTests.call(events, stream: 1)
        #expect(call.messages == [[1, 2, 3, 0xFF]])
        #expect(call.trailers == [HeaderField("grpc-status", "0")])
    }
}
