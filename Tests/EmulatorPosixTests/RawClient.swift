import Glibc

/// A blocking loopback TCP client for tests, with a 2-second bound on every wait.
final class RawClient {
    let fd: Int32
    private(set) var buffer: [UInt8] = []
    private(set) var sawEOF = false

    init?(port: Int, host: String = "127.0.0.1") {
        let v6 = host.contains(":")
        fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var result: Int32
        if v6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard result == 0 else {
            close(fd)
            return nil
        }
    }

    deinit { close(fd) }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Reads whatever arrives within `timeoutMs`; false on timeout or EOF without data.
    @discardableResult
    func readSome(timeoutMs: Int32 = 2000) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMs) == 1 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 {
            sawEOF = true
            return false
        }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// Reads until `buffer` contains `marker` (true) or 2 s pass / EOF (false).
    func readUntil(_ marker: String) -> Bool {
        let needle = Array(marker.utf8)
        while !contains(needle) {
            if !readSome() { return contains(needle) }
        }
        return true
    }

    /// Reads until the peer closes (true) or 2 s pass (false).
    func readUntilEOF(timeoutMs: Int32 = 2000) -> Bool {
        while !sawEOF {
            if !readSome(timeoutMs: timeoutMs) { return sawEOF }
        }
        return true
    }

    /// Removes and returns one complete response with a Content-Length body, reading as needed.
    func response() -> (head: String, body: String)? {
        responseBytes().map { ($0.head, String(decoding: $0.body, as: UTF8.self)) }
    }

    /// Like ``response()`` with the body as bytes.
    func responseBytes() -> (head: String, body: [UInt8])? {
        while true {
            if let parsed = takeResponse() { return parsed }
            if !readSome() { return takeResponse() }
        }
    }

    var text: String { String(decoding: buffer, as: UTF8.self) }

    func clear() { buffer.removeAll() }

    private func contains(_ needle: [UInt8]) -> Bool {
        guard needle.count <= buffer.count else { return false }
        for start in 0...(buffer.count - needle.count) where buffer[start..<(start + needle.count)].elementsEqual(needle) {
            return true
        }
        return false
    }

    private func takeResponse() -> (head: String, body: [UInt8])? {
        let terminator = Array("\r\n\r\n".utf8)
        guard buffer.count >= 4,
            let end = (0...(buffer.count - 4)).first(where: { buffer[$0..<($0 + 4)].elementsEqual(terminator) })
        else { return nil }
        let head = String(decoding: buffer[0..<end], as: UTF8.self)
        var length = 0
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            length = Int(line.dropFirst("content-length:".count).trimmingPrefix(" ")) ?? 0
        }
        guard buffer.count >= end + 4 + length else { return nil }
        let body = Array(buffer[(end + 4)..<(end + 4 + length)])
        buffer.removeFirst(end + 4 + length)
        return (head, body)
    }
}
