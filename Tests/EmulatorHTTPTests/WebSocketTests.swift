import EmulatorSupport
import Testing

@testable import EmulatorHTTP

@Suite struct WebSocketTests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
    ])
    func sha1Vectors(input: String, digest: String) {
        #expect(hex(SHA1.hash(Array(input.utf8))) == digest)
    }

    /// Messages whose padding ends a block exactly, spills into a second block, or fills two.
    @Test(arguments: [
        (55, "c1c8bbdc22796e28c0e15163d20899b65621d65a"), (63, "03f09f5b158a7a8cdad920bddc29b81c18a551f5"),
        (64, "0098ba824b5c16427bd7a1122a5a442a25ec644d"), (119, "ee971065aaa017e0632a8ca6c77bb3bf8b1dfc56"),
        (120, "f34c1488385346a55709ba056ddd08280dd4c6d6"),
    ])
    func sha1AtBlockBoundaries(count: Int, digest: String) {
        #expect(hex(SHA1.hash(Array(repeating: UInt8(ascii: "a"), count: count))) == digest)
    }

    @Test func sha1OfAMillionAs() {
        #expect(hex(SHA1.hash(Array(repeating: UInt8(ascii: "a"), count: 1_000_000))) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test(arguments: [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foobar", "Zm9vYmFy")])
    func base64(input: String, output: String) {
        #expect(Base64.encode(Array(input.utf8)) == output)
    }

    @Test func acceptValueFromTheRFC() {
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    private func handshake(_ fields: [(String, String)], method: HTTPMethod = .get) -> HTTPResponse {
        WebSocketHandshake.upgrade(HTTPRequest(method: method, target: "/ws", headers: HTTPHeaders(fields))) { writer in
            WebSocketSession(writer: writer)
        }
    }

    static let goodFields: [(String, String)] = [
        ("Host", "x"), ("Upgrade", "websocket"), ("Connection", "keep-alive, Upgrade"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13"),
    ]

    @Test func validHandshakeSwitchesProtocols() {
        let response = handshake(Self.goodFields)
        #expect(response.status == .switchingProtocols)
        #expect(response.headers["Sec-WebSocket-Accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(response.headers["Upgrade"] == "websocket")
        guard case .upgrade = response.body else {
            Issue.record("expected an upgrade body")
            return
        }
    }

    @Test func badHandshakes() {
        #expect(handshake(Self.goodFields, method: .post).status == .badRequest)
        #expect(handshake(Self.goodFields.filter { $0.0 != "Upgrade" }).status == .badRequest)
        #expect(handshake(Self.goodFields.filter { $0.0 != "Sec-WebSocket-Key" }).status == .badRequest)
        let version8 = Self.goodFields.map { $0.0 == "Sec-WebSocket-Version" ? ($0.0, "8") : $0 }
        let response = handshake(version8)
        #expect(response.status.code == 426)
        #expect(response.headers["Sec-WebSocket-Version"] == "13")
        let badKey = Self.goodFields.map { $0.0 == "Sec-WebSocket-Key" ? ($0.0, "short") : $0 }
        #expect(handshake(badKey).status == .badRequest)
    }

    // MARK: - Frames (RFC 6455 §5.7 examples)

    static let hello = Array("Hello".utf8)

    @Test func encodesTheRFCExamples() {
        #expect(WebSocketFrame(opcode: .text, payload: Self.hello).encoded() == [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
        #expect(
            WebSocketFrame(opcode: .text, payload: Self.hello).encoded(maskingKey: (0x37, 0xfa, 0x21, 0x3d))
                == [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
        #expect(WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)).encoded() == [0x01, 0x03, 0x48, 0x65, 0x6c])
        #expect(WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)).encoded() == [0x80, 0x02, 0x6c, 0x6f])
        #expect(WebSocketFrame(opcode: .ping, payload: Self.hello).encoded() == [0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
        let frame256 = WebSocketFrame(opcode: .binary, payload: Array(repeating: 7, count: 256)).encoded()
        #expect(Array(frame256.prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
        #expect(frame256.count == 260)
        let frame64k = WebSocketFrame(opcode: .binary, payload: Array(repeating: 7, count: 65536)).encoded()
        #expect(Array(frame64k.prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0])
        #expect(frame64k.count == 65546)
    }

    private func decode(_ bytes: [UInt8], requireMasked: Bool = true, limit: Int = 1 << 20, pieces: Int? = nil) -> [WebSocketFrameDecoder.Event] {
        var decoder = WebSocketFrameDecoder(maxFrameBytes: limit, requireMasked: requireMasked)
        var events: [WebSocketFrameDecoder.Event] = []
        let step = pieces ?? max(bytes.count, 1)
        for start in stride(from: 0, to: bytes.count, by: step) {
            decoder.append(bytes[start..<min(bytes.count, start + step)])
            while let event = decoder.next() { events.append(event) }
        }
        return events
    }

    @Test func decodesMaskedFrameFromTheRFC() {
        let bytes: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        for step in 1...bytes.count {
            #expect(decode(bytes, pieces: step) == [.frame(WebSocketFrame(opcode: .text, payload: Self.hello))])
        }
    }

    @Test func decodesLongLengths() {
        let key: (UInt8, UInt8, UInt8, UInt8) = (1, 2, 3, 4)
        let mid = Array(repeating: UInt8(9), count: 300)
        let big = Array(repeating: UInt8(5), count: 70_000)
        let bytes =
            WebSocketFrame(opcode: .binary, payload: mid).encoded(maskingKey: key)
            + WebSocketFrame(opcode: .binary, payload: big).encoded(maskingKey: key)
        #expect(
            decode(bytes, pieces: 1000) == [
                .frame(WebSocketFrame(opcode: .binary, payload: mid)), .frame(WebSocketFrame(opcode: .binary, payload: big)),
            ])
    }

    /// Masking a word at a time XORs byte `i` with key byte `i % 4`, as byte by byte would, at
    /// every length and from any start address (the words are loaded unaligned).
    @Test func maskingMatchesTheBytewiseDefinition() {
        let key: (UInt8, UInt8, UInt8, UInt8) = (0x37, 0xfa, 0x21, 0x3d)
        let keyBytes = [key.0, key.1, key.2, key.3]
        let source = (0..<83).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 11) }
        for start in 0..<3 {
            for count in 0...(source.count - start) {
                var bytes = source
                bytes.withUnsafeMutableBufferPointer { all in
                    WebSocketMask.apply(key, to: UnsafeMutableBufferPointer(rebasing: all[start..<(start + count)]))
                }
                let expected = source.enumerated().map { i, byte in
                    (start..<(start + count)).contains(i) ? byte ^ keyBytes[(i - start) % 4] : byte
                }
                #expect(bytes == expected, "start \(start), count \(count)")
            }
        }
        #expect(
            WebSocketFrame(opcode: .text, payload: Self.hello).encoded(maskingKey: key)
                == [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
    }

    static let badFrames: [([UInt8], UInt16)] = [
        ([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f], 1002),  // unmasked from a client
        ([0xC1, 0x80, 0, 0, 0, 0], 1002),  // RSV1 without an extension
        ([0x83, 0x80, 0, 0, 0, 0], 1002),  // reserved opcode
        ([0x09, 0x80, 0, 0, 0, 0], 1002),  // fragmented ping
        ([0x89, 0xFE, 0x00, 0x7E], 1002),  // ping longer than 125
        ([0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0], 1002),  // 64-bit length with the top bit set
        ([0x82, 0xFF, 0, 0, 0, 0, 0x10, 0, 0, 0], 1009),  // over the frame limit
    ]

    @Test(arguments: badFrames)
    func rejectsBadFrames(bytes: [UInt8], code: UInt16) {
        #expect(decode(bytes) == [.failure(WebSocketCloseCode(rawValue: code))])
    }

    @Test func serverFramesNeedNoMask() {
        #expect(
            decode([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f], requireMasked: false)
                == [.frame(WebSocketFrame(opcode: .text, payload: Self.hello))])
    }

    // MARK: - Messages

    @Test func reassemblesFragmentsAroundAPing() {
        var assembler = WebSocketMessageAssembler()
        #expect(assembler.add(WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8))) == .incomplete)
        #expect(assembler.add(WebSocketFrame(opcode: .ping, payload: [1])) == .message(.ping([1])))
        #expect(assembler.add(WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8))) == .message(.text("Hello")))
    }

    @Test func fragmentRulesAreEnforced() {
        var assembler = WebSocketMessageAssembler()
        #expect(assembler.add(WebSocketFrame(opcode: .continuation, payload: [])) == .failure(.protocolError))
        var interleaved = WebSocketMessageAssembler()
        _ = interleaved.add(WebSocketFrame(fin: false, opcode: .binary, payload: [1]))
        #expect(interleaved.add(WebSocketFrame(opcode: .text, payload: [])) == .failure(.protocolError))
        var small = WebSocketMessageAssembler(maxMessageBytes: 3)
        _ = small.add(WebSocketFrame(fin: false, opcode: .binary, payload: [1, 2]))
        #expect(small.add(WebSocketFrame(opcode: .continuation, payload: [3, 4])) == .failure(.messageTooBig))
    }

    @Test func invalidUTF8TextIs1007() {
        var assembler = WebSocketMessageAssembler()
        #expect(assembler.add(WebSocketFrame(opcode: .text, payload: [0xC3, 0x28])) == .failure(.invalidPayload))
    }

    @Test func closeFrames() {
        var assembler = WebSocketMessageAssembler()
        #expect(assembler.add(WebSocketFrame(opcode: .close, payload: [])) == .message(.close(nil, "")))
        #expect(assembler.add(WebSocketFrame(opcode: .close, payload: [0x03, 0xE8, 0x6F, 0x6B])) == .message(.close(.normal, "ok")))
        #expect(assembler.add(WebSocketFrame(opcode: .close, payload: [0x03])) == .failure(.protocolError))
        #expect(assembler.add(WebSocketFrame(opcode: .close, payload: [0x03, 0xED])) == .failure(.protocolError))  // 1005
    }

    // MARK: - Session

    @Test func sessionEchoesAnswersPingsAndClosesHandshake() {
        let writer = RecordingWriter()
        let session = WebSocketSession(writer: writer, onText: { session, text in session.send(text: text.uppercased()) })
        let key: (UInt8, UInt8, UInt8, UInt8) = (9, 8, 7, 6)
        session.received(WebSocketFrame(opcode: .text, payload: Array("hi".utf8)).encoded(maskingKey: key))
        session.received(WebSocketFrame(opcode: .ping, payload: [42]).encoded(maskingKey: key))
        session.received(WebSocketFrame(opcode: .close, payload: [0x03, 0xE8]).encoded(maskingKey: key))
        #expect(
            writer.written == [
                WebSocketFrame(opcode: .text, payload: Array("HI".utf8)).encoded(),
                WebSocketFrame(opcode: .pong, payload: [42]).encoded(),
                WebSocketFrame(opcode: .close, payload: [0x03, 0xE8]).encoded(),
            ])
        #expect(writer.closedByServer)
        #expect(!session.send(text: "late"))
    }

    @Test func sessionClosesWithProtocolErrorOnUnmaskedFrames() {
        let writer = RecordingWriter()
        let session = WebSocketSession(writer: writer)
        session.received(WebSocketFrame(opcode: .text, payload: [0x41]).encoded())
        #expect(writer.written == [WebSocketFrame(opcode: .close, payload: [0x03, 0xEA]).encoded()])
        #expect(writer.closedByServer)
    }
}

import Synchronization

final class RecordingWriter: UpgradedConnectionWriter {
    private let state = Mutex<(written: [[UInt8]], closed: Bool)>(([], false))

    func write(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.written.append(bytes)
            return true
        }
    }

    func close() { state.withLock { $0.closed = true } }
    var isOpen: Bool { state.withLock { !$0.closed } }
    var written: [[UInt8]] { state.withLock { $0.written } }
    var closedByServer: Bool { state.withLock { $0.closed } }
}
