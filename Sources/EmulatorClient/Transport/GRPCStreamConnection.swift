#if canImport(Glibc)
import Glibc
#endif
import EmulatorHTTP2
import Foundation
import Synchronization

/// One gRPC streaming call on its own HTTP/2 connection (h2c, prior knowledge), driven by the
/// single thread that reads it. The frames, HPACK and message framing are EmulatorHTTP2's; this
/// type only carries them out for stream 1: it answers PING and SETTINGS, gives back flow-control
/// window for every DATA frame it reads, and turns DATA into messages and trailers into the end.
///
/// A quiet call is normal (a listener whose query does not change), a dead peer is not: after
/// each keepalive interval with nothing read, the connection sends a PING, and if the next
/// interval also passes with nothing read, `next()` throws, so the caller reconnects instead of
/// waiting on a peer that will never answer (gRPC's keepalive time and timeout).
final class GRPCStreamConnection {
    enum Event {
        case message([UInt8])
        /// The call ended: the gRPC status code and message (0 is OK).
        case end(code: Int, message: String)
    }

    private let connection: HTTPConnection
    private var frames = HTTP2FrameParser(maxFrameSize: 1 << 24)
    private var headers = HPACKDecoder()
    private var messages = GRPCMessageDeframer()
    private var pendingBlock: [UInt8]?
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    /// The largest DATA payload the server accepts before it says otherwise (RFC 7540 default).
    private let maxFrameSize = HTTP2Frame.defaultMaxFrameSize
    /// Lets another thread wake a blocked read (see ``Interrupter``).
    let interrupter: Interrupter
    /// True from a keepalive PING until the next bytes arrive.
    private var awaitingPeer = false
    /// How many keepalive PINGs this connection has sent.
    private(set) var keepalivesSent = 0
    /// The payload of our keepalive PINGs (any 8 bytes; the peer echoes them).
    private static let keepaliveOpaque: [UInt8] = Array("keepaliv".utf8)

    /// Opens the connection and starts the call `path` with `metadata`. `keepaliveMilliseconds`
    /// is how long a read waits before the connection checks the peer with a PING.
    init(
        host: String, port: Int, path: String, metadata: [(String, String)], keepaliveMilliseconds: Int = 15_000
    ) throws(ClientTransportError) {
        connection = try HTTPConnection(host: host, port: port)
        interrupter = Interrupter(fd: connection.fd)
        connection.setReceiveTimeout(milliseconds: min(max(1, keepaliveMilliseconds), 3_600_000))
        var encoder = HPACKEncoder()
        var fields = [
            HeaderField(":method", "POST"), HeaderField(":scheme", "http"), HeaderField(":path", path),
            HeaderField(":authority", "\(host):\(port)"), HeaderField("content-type", "application/grpc"),
            HeaderField("te", "trailers"),
        ]
        for (name, value) in metadata { fields.append(HeaderField(name.lowercased(), value)) }
        var out = HTTP2Connection.preface
        out += HTTP2FrameEncoder.encode(.settings(ack: false, [HTTP2Setting(HTTP2Setting.enablePush, 0)]))
        out += HTTP2FrameEncoder.encode(.headers(stream: 1, block: encoder.encode(fields), endStream: false, endHeaders: true))
        try connection.send(out)
    }

    deinit { interrupter.closed() }

    /// Sends one message on the call.
    func send(_ message: [UInt8]) throws(ClientTransportError) {
        let framed = GRPCMessageDeframer.frame(message)
        var out: [UInt8] = []
        var offset = 0
        while offset < framed.count {
            let end = min(framed.count, offset + maxFrameSize)
            let piece = Array(framed[offset..<end])
            out += HTTP2FrameEncoder.encode(.data(stream: 1, payload: piece, endStream: false, flowControlledLength: piece.count))
            offset = end
        }
        try connection.send(out)
    }

    /// Blocks until the next message or the end of the call. A broken connection throws, and so
    /// does a peer that answers nothing, not even a PING, for two keepalive intervals.
    func next() throws(ClientTransportError) -> Event {
        while true {
            do {
                if let message = try messages.next() { return .message(message) }
            } catch {
                return .end(code: Int(error.code), message: error.message)
            }
            let frame: HTTP2Frame?
            do { frame = try frames.next() } catch { throw ClientTransportError("HTTP/2 protocol error: \(error)") }
            if let frame {
                if let event = try handle(frame) { return event }
                continue
            }
            let bytes: ArraySlice<UInt8>
            do {
                bytes = try connection.receiveBytes(scratch: &scratch)
            } catch where error.isTimeout {
                if awaitingPeer { throw ClientTransportError("the server did not answer a keepalive PING") }
                try connection.send(HTTP2FrameEncoder.encode(.ping(ack: false, opaque: Self.keepaliveOpaque)))
                awaitingPeer = true
                keepalivesSent += 1
                continue
            }
            if bytes.isEmpty { throw ClientTransportError("the server closed the connection") }
            awaitingPeer = false
            frames.append(Array(bytes))
        }
    }

    private func handle(_ frame: HTTP2Frame) throws(ClientTransportError) -> Event? {
        switch frame {
        case .data(let stream, let payload, let endStream, let length):
            if length > 0 {
                // Give the window back at once: the reader keeps up, so buffering stays bounded by what one read holds.
                var out = HTTP2FrameEncoder.encode(.windowUpdate(stream: 0, increment: UInt32(length)))
                if !endStream { out += HTTP2FrameEncoder.encode(.windowUpdate(stream: stream, increment: UInt32(length))) }
                try connection.send(out)
            }
            if stream == 1 { messages.append(payload) }
            if endStream { return .end(code: 2, message: "The stream ended without a status") }
        case .headers(let stream, let block, let endStream, let endHeaders):
            guard stream == 1 else { return nil }
            if !endHeaders {
                pendingBlock = block
                return nil
            }
            return try headerBlock(block, endStream: endStream)
        case .continuation(let stream, let block, let endHeaders):
            guard stream == 1, var pending = pendingBlock else { return nil }
            pending += block
            if !endHeaders {
                pendingBlock = pending
                return nil
            }
            pendingBlock = nil
            return try headerBlock(pending, endStream: true)
        case .settings(let ack, _):
            if !ack { try connection.send(HTTP2FrameEncoder.encode(.settings(ack: true, []))) }
        case .ping(let ack, let opaque):
            if !ack { try connection.send(HTTP2FrameEncoder.encode(.ping(ack: true, opaque: opaque))) }
        case .rstStream(1, let code):
            return .end(code: 14, message: "The server reset the stream (\(code))")
        case .goAway(_, let code, _):
            return .end(code: 14, message: "The server is going away (\(code))")
        default:
            break
        }
        return nil
    }

    /// Response headers are checked for `:status`; trailers (or a trailers-only response) end the call.
    private func headerBlock(_ block: [UInt8], endStream: Bool) throws(ClientTransportError) -> Event? {
        let fields: [HeaderField]
        do { fields = try headers.decode(block) } catch { throw ClientTransportError("bad header block: \(error)") }
        if let status = fields.first(":status"), status != "200" {
            return .end(code: 14, message: "HTTP status \(status)")
        }
        guard endStream || fields.first("grpc-status") != nil else { return nil }
        let code = fields.first("grpc-status").flatMap { Int($0) } ?? 2
        let message = fields.first("grpc-message").map { $0.removingPercentEncoding ?? $0 } ?? ""
        return .end(code: code, message: message)
    }
}

/// Wakes a thread blocked reading a socket from another thread (`shutdown`), without racing the
/// reader's own `close`: both happen under one lock, and a closed descriptor is never touched.
final class Interrupter: Sendable {
    private let fd: Mutex<Int32>

    init(fd: Int32) { self.fd = Mutex(fd) }

    func interrupt() {
        fd.withLock { if $0 >= 0 { _ = shutdown($0, Int32(SHUT_RDWR)) } }
    }

    /// Called by the owner before the descriptor is closed.
    func closed() { fd.withLock { $0 = -1 } }
}
