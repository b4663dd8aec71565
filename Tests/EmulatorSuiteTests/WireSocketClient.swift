#if canImport(Glibc)
import Glibc
#endif
import EmulatorHTTP

/// A minimal test-only WebSocket client over loopback, speaking RTDB wire framing: it masks its
/// frames as clients must, and joins count-announced pieces of the server's long messages.
/// Every wait is bounded (5 s).
final class WireSocketClient {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var key: UInt8 = 1

    /// Connects and completes the opening handshake for `target`; nil when either fails.
    init?(port: Int, target: String, host: String = "127.0.0.1") {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        write(
            Array(
                ("GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
        let end = Array("\r\n\r\n".utf8)
        while true {
            if let range = buffer.firstRange(of: end) {
                let head = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<range.upperBound)
                guard head.hasPrefix("HTTP/1.1 101") else {
                    close(fd)
                    return nil
                }
                break
            }
            guard readMore() else {
                close(fd)
                return nil
            }
        }
    }

    deinit { close(fd) }

    /// Sends one masked text frame.
    func send(_ text: String) {
        key &+= 1
        write(WebSocketFrame(opcode: .text, payload: Array(text.utf8)).encoded(maskingKey: (key, 0x5A, 0xC3, 0x17)))
    }

    /// The next whole message (pieces announced by a count frame are joined); nil on timeout or close.
    func nextMessage() -> String? {
        guard let first = nextFrame() else { return nil }
        if first.utf8.count <= 6, let count = Int(first), count > 0 {
            var text = ""
            for _ in 0..<count {
                guard let piece = nextFrame() else { return nil }
                text += piece
            }
            return text
        }
        return first
    }

    /// The next `n` messages.
    func messages(_ n: Int) -> [String] {
        (0..<n).compactMap { _ in nextMessage() }
    }

    /// Whether nothing arrives within `milliseconds`.
    func isQuiet(milliseconds: Int32 = 200) -> Bool {
        buffer.isEmpty && !readMore(timeout: milliseconds)
    }

    /// The next text frame's payload (server frames are unmasked).
    func nextFrame() -> String? {
        while true {
            if buffer.count >= 2 {
                var length = Int(buffer[1] & 0x7F)
                var offset = 2
                if length == 126, buffer.count >= 4 {
                    length = Int(buffer[2]) << 8 | Int(buffer[3])
                    offset = 4
                } else if length == 127, buffer.count >= 10 {
                    length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
                    offset = 10
                } else if length >= 126 {
                    offset = Int.max
                }
                if offset != Int.max, buffer.count >= offset + length {
                    let payload = Array(buffer[offset..<(offset + length)])
                    let opcode = buffer[0] & 0x0F
                    buffer.removeSubrange(..<(offset + length))
                    if opcode == 0x1 { return String(decoding: payload, as: UTF8.self) }
                    if opcode == 0x8 { return nil }
                    continue
                }
            }
            guard readMore() else { return nil }
        }
    }

    /// Closes the TCP connection without a close frame (an abrupt disconnect).
    func drop() { shutdown(fd, Int32(SHUT_RDWR)) }

    private func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    private func readMore(timeout: Int32 = 5000) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeout) == 1 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[..<n])
        return true
    }
}
