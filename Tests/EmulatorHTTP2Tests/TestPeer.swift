import EmulatorHTTP

@testable import EmulatorHTTP2

/// Builds client bytes and reads server bytes for tests that drive a connection without sockets.
struct TestPeer {
    var encoder = HPACKEncoder()
    var decoder = HPACKDecoder()
    var parser = HTTP2FrameParser(maxFrameSize: 1 << 24)

    static let preface = HTTP2Connection.preface + HTTP2FrameEncoder.encode(.settings(ack: false, []))

    /// A server connection on `router` past the preface and the settings exchange, what it
    /// writes, and the peer that read the server's settings.
    static func connect(
        _ router: GRPCRouter, gate: ReplyGate? = nil
    ) throws -> (connection: GRPCServerConnection, out: CapturingWriter, peer: TestPeer) {
        let out = CapturingWriter()
        let connection = GRPCServerConnection(router: router, output: out, gate: gate)
        connection.received(preface)
        var peer = TestPeer()
        _ = try peer.read(out.take())
        return (connection, out, peer)
    }

    mutating func request(stream: UInt32, path: String, endStream: Bool = false, extra: [HeaderField] = []) -> [UInt8] {
        let block = encoder.encode([
            HeaderField(":method", "POST"), HeaderField(":scheme", "http"), HeaderField(":path", path),
            HeaderField(":authority", "localhost"), HeaderField("content-type", "application/grpc"), HeaderField("te", "trailers"),
        ] + extra)
        return HTTP2FrameEncoder.encode(.headers(stream: stream, block: block, endStream: endStream, endHeaders: true))
    }

    static func message(stream: UInt32, _ payload: [UInt8], endStream: Bool = true, compressed: Bool = false) -> [UInt8] {
        var framed = GRPCMessageDeframer.frame(payload)
        if compressed { framed[0] = 1 }
        return HTTP2FrameEncoder.encode(.data(stream: stream, payload: framed, endStream: endStream, flowControlledLength: framed.count))
    }

    /// Frames in `bytes`, with header blocks decoded.
    enum Event: Equatable {
        case headers(UInt32, [HeaderField], endStream: Bool)
        case data(UInt32, [UInt8], endStream: Bool)
        case frame(HTTP2Frame)
    }

    mutating func read(_ bytes: [UInt8]) throws -> [Event] {
        parser.append(bytes)
        var out: [Event] = []
        while let f = try parser.next() {
            switch f {
            case .headers(let s, let block, let end, _): out.append(.headers(s, try decoder.decode(block), endStream: end))
            case .data(let s, let payload, let end, _): out.append(.data(s, payload, endStream: end))
            default: out.append(.frame(f))
            }
        }
        return out
    }

    mutating func read(_ actions: [HTTP2Connection.Action]) throws -> [Event] {
        var bytes: [UInt8] = []
        for case .write(let b) in actions { bytes += b }
        return try read(bytes)
    }
}
