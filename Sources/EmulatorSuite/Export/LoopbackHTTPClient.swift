import EmulatorSupport

#if canImport(Glibc)
import Glibc
#endif

/// A minimal blocking HTTP/1.1 client for talking to a running hub (`emulators export`, tests).
///
/// One request per connection (`Connection: close`); understands `Content-Length`, chunked and
/// read-until-close bodies.
///
/// ```swift
/// let reply = try LoopbackHTTPClient.send(.init(method: "GET", host: "127.0.0.1", port: 4400, path: "/"))
/// reply.status // 200
/// ```
package enum LoopbackHTTPClient {
    package struct Request: Sendable {
        package var method: String
        package var host: String
        package var port: Int
        package var path: String
        package var headers: [(String, String)]
        package var body: [UInt8]
        /// Gives up on connect, send and each read after this long.
        package var timeout: Duration

        package init(
            method: String, host: String, port: Int, path: String, headers: [(String, String)] = [],
            body: [UInt8] = [], timeout: Duration = .seconds(10)
        ) {
            self.method = method
            self.host = host
            self.port = port
            self.path = path
            self.headers = headers
            self.body = body
            self.timeout = timeout
        }
    }

    package struct Reply: Sendable {
        package var status: Int
        package var headers: [(name: String, value: String)]
        package var body: [UInt8]

        package func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        package var text: String { String(decoding: body, as: UTF8.self) }
    }

    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    package static func send(_ request: Request) throws(Failure) -> Reply {
        guard let address = SocketAddress(host: request.host, port: request.port) else {
            throw Failure(description: "\(request.host) is not a numeric address")
        }
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: SocketAddress.errorText(errno)) }
        defer { close(fd) }
        var timeout = timeval(
            tv_sec: Int(request.timeout.components.seconds),
            tv_usec: Int(request.timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard address.withPointer({ connect(fd, $0, $1) }) == 0 else {
            throw Failure(description: "connect to \(request.host):\(request.port): \(SocketAddress.errorText(errno))")
        }
        var head = "\(request.method) \(request.path) HTTP/1.1\r\nHost: \(request.host):\(request.port)\r\n"
        for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
        if !request.body.isEmpty || request.method == "POST" || request.method == "PUT" {
            head += "Content-Length: \(request.body.count)\r\n"
        }
        head += "Connection: close\r\n\r\n"
        let out = Array(head.utf8) + request.body
        var offset = 0
        while offset < out.count {
            let n = out[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure(description: "send: \(SocketAddress.errorText(errno))") }
            offset += n
        }
        var input: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw Failure(description: "receive: \(SocketAddress.errorText(errno))") }
            if n == 0 { break }
            input.append(contentsOf: chunk[0..<n])
            if let reply = parse(input, complete: false) { return reply }
        }
        guard let reply = parse(input, complete: true) else {
            throw Failure(description: "malformed or truncated HTTP response (\(input.count) bytes)")
        }
        return reply
    }

    /// A reply once `bytes` hold all of it; with `complete`, whatever follows the head is the body.
    static func parse(_ bytes: [UInt8], complete: Bool) -> Reply? {
        guard let end = findHeadEnd(bytes) else { return nil }
        let lines = String(decoding: bytes[0..<end], as: UTF8.self).split(separator: "\r\n")
        guard let statusLine = lines.first else { return nil }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...].trimmingSpaces)))
        }
        let rest = Array(bytes[(end + 4)...])
        var reply = Reply(status: status, headers: headers, body: [])
        if let length = reply.header("Content-Length").flatMap({ Int($0) }) {
            guard rest.count >= length else { return nil }
            reply.body = Array(rest[0..<length])
            return reply
        }
        if reply.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            guard let body = dechunk(rest) else { return nil }
            reply.body = body
            return reply
        }
        guard complete else { return nil }
        reply.body = rest
        return reply
    }

    private static func findHeadEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }

    /// The body of a complete chunked message, or nil while the last chunk has not arrived.
    private static func dechunk(_ bytes: [UInt8]) -> [UInt8]? {
        var body: [UInt8] = []
        var index = 0
        while true {
            var lineEnd = index
            while lineEnd + 1 < bytes.count && !(bytes[lineEnd] == 13 && bytes[lineEnd + 1] == 10) { lineEnd += 1 }
            guard lineEnd + 1 < bytes.count else { return nil }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingSpaces, radix: 16) else { return nil }
            index = lineEnd + 2
            if size == 0 { return body }
            guard index + size + 2 <= bytes.count else { return nil }
            body.append(contentsOf: bytes[index..<(index + size)])
            index += size + 2
        }
    }
}
