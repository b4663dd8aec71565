import Testing

@testable import EmulatorHTTP2

@Suite("HTTP/2 frames")
struct FrameTests {
    static func parse(_ bytes: [UInt8], maxFrameSize: Int = 16_384) throws -> [HTTP2Frame] {
        var p = HTTP2FrameParser(maxFrameSize: maxFrameSize)
        p.append(bytes)
        var out: [HTTP2Frame] = []
        while let f = try p.next() { out.append(f) }
        return out
    }

    @Test(arguments: [
        (HTTP2Frame.settings(ack: false, [HTTP2Setting(4, 65_535)]), "00 0006 04 00 00000000 0004 0000ffff"),
        (.settings(ack: true, []), "000000 04 01 00000000"),
        (.ping(ack: true, opaque: [1, 2, 3, 4, 5, 6, 7, 8]), "000008 06 01 00000000 0102030405060708"),
        (.windowUpdate(stream: 3, increment: 1000), "000004 08 00 00000003 000003e8"),
        (.rstStream(stream: 1, code: .cancel), "000004 03 00 00000001 00000008"),
        (.goAway(lastStream: 5, code: .protocolError, debug: [0x78]), "000009 07 00 00000000 00000005 00000001 78"),
        (.headers(stream: 1, block: [0x88], endStream: true, endHeaders: true), "000001 01 05 00000001 88"),
        (.continuation(stream: 1, block: [0x82], endHeaders: true), "000001 09 04 00000001 82"),
        (.data(stream: 1, payload: [0xAA, 0xBB], endStream: false, flowControlledLength: 2), "000002 00 00 00000001 aabb"),
    ])
    func encodesAndParses(frame: HTTP2Frame, bytes: String) throws {
        #expect(HTTP2FrameEncoder.encode(frame) == hex(bytes))
        #expect(try Self.parse(hex(bytes)) == [frame])
    }

    @Test func paddedDataCountsPaddingForFlowControl() throws {
        let bytes = HTTP2FrameEncoder.encode(.data(stream: 1, payload: [1, 2, 3], endStream: true, flowControlledLength: 3), padding: 4)
        #expect(bytes == hex("000008 00 09 00000001 04 010203 00000000"))
        #expect(try Self.parse(bytes) == [.data(stream: 1, payload: [1, 2, 3], endStream: true, flowControlledLength: 8)])
    }

    @Test func paddedHeadersWithPriorityAreStripped() throws {
        // PADDED | PRIORITY | END_HEADERS, pad length 1, 5 priority bytes, block 0x82, 1 pad byte.
        let bytes = hex("000008 01 2c 00000001 01 80000000 0f 82 00")
        #expect(try Self.parse(bytes) == [.headers(stream: 1, block: [0x82], endStream: false, endHeaders: true)])
    }

    @Test func partialFramesWaitForMoreBytes() throws {
        var p = HTTP2FrameParser()
        let bytes = HTTP2FrameEncoder.encode(.ping(ack: false, opaque: [UInt8](repeating: 7, count: 8)))
        p.append(Array(bytes.prefix(10)))
        #expect(try p.next() == nil)
        p.append(Array(bytes.dropFirst(10)))
        #expect(try p.next() == .ping(ack: false, opaque: [UInt8](repeating: 7, count: 8)))
    }

    @Test func unknownFrameTypesAreIgnored() throws {
        #expect(try Self.parse(hex("000002 fa 00 00000001 0000")) == [.unknown(type: 0xfa, stream: 1)])
    }

    @Test(arguments: [
        ("004001 00 00 00000001", HTTP2ErrorCode.frameSizeError),  // 16 385 bytes > max frame size
        ("000007 06 00 00000000 00000000000000", .frameSizeError),  // PING of 7 bytes
        ("000008 06 00 00000001 0000000000000000", .protocolError),  // PING on a stream
        ("000005 04 00 00000000 0000000000", .frameSizeError),  // SETTINGS not a multiple of 6
        ("000000 00 00 00000000", .protocolError),  // DATA on stream 0
        ("000002 00 08 00000001 05 00", .protocolError),  // padding longer than the payload
        ("000003 08 00 00000000 000000", .frameSizeError),  // WINDOW_UPDATE of 3 bytes
    ])
    func malformedFramesAreErrors(bytes: String, code: HTTP2ErrorCode) {
        var p = HTTP2FrameParser()
        p.append(hex(bytes) + [UInt8](repeating: 0, count: 16_385))
        #expect(throws: HTTP2ProtocolError.self) { _ = try p.next() }
        var again = HTTP2FrameParser()
        again.append(hex(bytes) + [UInt8](repeating: 0, count: 16_385))
        do {
            _ = try again.next()
        } catch {
            #expect(error.code == code)
        }
    }

    @Test func headerBlocksSplitIntoContinuations() throws {
        var out: [UInt8] = []
        HTTP2FrameEncoder.headerFrames(stream: 3, block: [UInt8](repeating: 0x82, count: 40_000), endStream: true, maxFrameSize: 16_384, into: &out)
        let frames = try Self.parse(out)
        #expect(frames.count == 3)
        #expect(frames[0] == .headers(stream: 3, block: [UInt8](repeating: 0x82, count: 16_384), endStream: true, endHeaders: false))
        #expect(frames[2] == .continuation(stream: 3, block: [UInt8](repeating: 0x82, count: 40_000 - 32_768), endHeaders: true))
    }
}
