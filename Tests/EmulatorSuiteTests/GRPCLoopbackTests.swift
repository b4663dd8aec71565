#if canImport(Glibc)
import Glibc
#endif
import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf
import Testing
@testable import EmulatorSuite

/// gRPC (h2c, prior knowledge) and REST on the same Firestore port of a running suite.
@Suite("Firestore gRPC over loopback")
struct GRPCLoopbackTests {
    /// Sends `bytes` to 127.0.0.1:`port` and reads until stream 1 ends (or 5 s pass).
    static func exchange(port: Int, _ bytes: [UInt8]) throws -> [HTTP2Frame] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        try #require(sent == bytes.count)
        var parser = HTTP2FrameParser(maxFrameSize: 1 << 24)
        var frames: [HTTP2Frame] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            parser.append(Array(buffer[0..<n]))
            while let f = try parser.next() { frames.append(f) }
            if frames.contains(where: { if case .headers(1, _, true, _) = $0 { true } else { false } }) { break }
        }
        return frames
    }

    static func call(path: String, _ message: [UInt8]) -> [UInt8] {
        var encoder = HPACKEncoder(huffman: true)
        let block = encoder.encode([
            HeaderField(":method", "POST"), HeaderField(":scheme", "http"), HeaderField(":path", path),
            HeaderField(":authority", "127.0.0.1"), HeaderField("content-type", "application/grpc"), HeaderField("te", "trailers"),
            HeaderField("authorization", "Bearer owner"),
        ])
        let framed = GRPCMessageDeframer.frame(message)
        return HTTP2FrameEncoder.encode(.settings(ack: false, []))
            + HTTP2FrameEncoder.encode(.headers(stream: 1, block: block, endStream: false, endHeaders: true))
            + HTTP2FrameEncoder.encode(.data(stream: 1, payload: framed, endStream: true, flowControlledLength: framed.count))
    }

    @Test func grpcCommitThenRESTReadOnTheSamePort() async throws {
        try await withSuite(.ephemeral(projectId: "demo-h2")) { suite in
            let port = try #require(suite.port(of: .firestore))
            var request = ProtoWriter()
            request.string(1, "projects/demo-h2/databases/(default)")
            request.message(2) { w in
                w.message(1) {
                    ProtoDocument(name: "projects/demo-h2/databases/(default)/documents/c/d", fields: ["via": .string("grpc")]).write(to: &$0)
                }
            }
            let frames = try Self.exchange(port: port, HTTP2Connection.preface + Self.call(path: "/google.firestore.v1.Firestore/Commit", request.bytes))
            var decoder = HPACKDecoder()
            var trailers: [HeaderField] = []
            var messages = 0
            for frame in frames {
                switch frame {
                case .headers(1, let block, let end, _):
                    let fields = try decoder.decode(block)
                    if end { trailers = fields }
                case .data(1, let payload, _, _) where !payload.isEmpty: messages += 1
                default: break
                }
            }
            #expect(frames.first.map { if case .settings(false, _) = $0 { true } else { false } } == true)
            #expect(trailers.first("grpc-status") == "0")
            #expect(messages == 1)

            let rest = try LoopbackHTTPClient.send(.init(
                method: "GET", host: "127.0.0.1", port: port, path: "/v1/projects/demo-h2/databases/(default)/documents/c/d",
                timeout: .seconds(5)))
            #expect(rest.status == 200)
            #expect(String(decoding: rest.body, as: UTF8.self).contains("\"grpc\""))
        }
    }

    @Test func unknownMethodOverLoopbackIsUnimplemented() async throws {
        try await withSuite(.ephemeral()) { suite in
            let port = try #require(suite.port(of: .firestore))
            let frames = try Self.exchange(port: port, HTTP2Connection.preface + Self.call(path: "/google.firestore.v1.Firestore/Nope", []))
            var decoder = HPACKDecoder()
            var status: String?
            for case .headers(1, let block, true, _) in frames { status = try decoder.decode(block).first("grpc-status") }
            #expect(status == "12")
        }
    }
}
