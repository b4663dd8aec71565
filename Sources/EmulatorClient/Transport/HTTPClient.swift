import Synchronization

/// A blocking HTTP/1.1 client with a keep-alive connection pool for one host and port.
///
/// Requests block the calling thread; the async APIs of this library run them through
/// `blocking(_:)` on Dispatch's global threads, listeners on their own threads.
final class HTTPClient: Sendable {
    let host: String
    let port: Int
    /// Idle connections; `HTTPConnection` is not Sendable, so they only leave the pool to be used
    /// by exactly one caller and come back when that caller is done.
    private let idle: Mutex<[Int32: Idle]> = Mutex([:])
    private let defaultHeaders: [(String, String)]

    /// Boxes a connection so it can sit in a Mutex; it is only touched by one thread at a time.
    private struct Idle: @unchecked Sendable {
        // Safe: a connection in the pool is owned by the pool alone; `take()` removes it.
        let connection: HTTPConnection
    }

    init(host: String, port: Int, headers: [(String, String)] = []) {
        self.host = host
        self.port = port
        self.defaultHeaders = headers
    }

    private func take() -> HTTPConnection? {
        idle.withLock { pool in
            guard let key = pool.keys.first else { return nil }
            return pool.removeValue(forKey: key)?.connection
        }
    }

    private func give(_ c: HTTPConnection) {
        idle.withLock { pool in
            if pool.count < 16 { pool[c.fd] = Idle(connection: c) }
        }
    }

    func requestHead(method: String, target: String, headers: [(String, String)], bodyCount: Int) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        for (n, v) in defaultHeaders { head += "\(n): \(v)\r\n" }
        for (n, v) in headers { head += "\(n): \(v)\r\n" }
        if bodyCount > 0 || method == "POST" || method == "PUT" || method == "PATCH" {
            head += "Content-Length: \(bodyCount)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8)
    }

    /// Sends one request and reads the whole response. A stale pooled connection is retried once
    /// on a fresh one.
    func send(
        method: String, target: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) throws(ClientTransportError) -> HTTPClientResponse {
        let bytes = requestHead(method: method, target: target, headers: headers, bodyCount: body.count) + body
        var attempt = 0
        while true {
            attempt += 1
            let pooled = take()
            let connection: HTTPConnection
            if let pooled { connection = pooled } else { connection = try HTTPConnection(host: host, port: port) }
            do throws(ClientTransportError) {
                try connection.send(bytes)
                var parser = HTTPResponseParser()
                var scratch = [UInt8](repeating: 0, count: 64 * 1024)
                var open = true
                while !parser.isComplete {
                    open = try connection.receive(into: &parser, scratch: &scratch)
                    if !open { break }
                }
                guard parser.isComplete else {
                    if pooled != nil && !parser.hasHead && attempt == 1 { continue }
                    throw ClientTransportError("connection closed before the response was complete")
                }
                let closes = parser.response.header("connection")?.lowercased() == "close"
                if open && !closes { give(connection) }
                return parser.response
            } catch {
                if pooled != nil && attempt == 1 { continue }
                throw error
            }
        }
    }
}
