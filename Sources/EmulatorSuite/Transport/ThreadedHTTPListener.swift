#if canImport(Glibc)
import Glibc
#endif
package import EmulatorHTTP
import Synchronization

/// A small blocking HTTP/1.1 server: one accept thread, one thread per connection.
///
/// A stopgap so that the suite, its tests and the interop suite run before the epoll server of
/// EmulatorPosix is wired in (see `ListenerFactory`). It frames `Content-Length` bodies only and
/// answers streamed responses with 501; the EmulatorPosix server replaces it.
package struct ThreadedListenerFactory: ListenerFactory {
    package init() {}

    package func listen(host: String, port: Int, router: Router) throws(ListenFailure) -> any SuiteListener {
        try ThreadedHTTPListener(host: host, port: port, router: router)
    }
}

package final class ThreadedHTTPListener: SuiteListener {
    package let port: Int
    private let fd: Int32
    private let router: Router
    /// Open connection descriptors and whether we are stopping.
    private let state = Mutex<(connections: Set<Int32>, stopping: Bool)>(([], false))

    init(host: String, port: Int, router: Router) throws(ListenFailure) {
        guard let address = SocketAddress(host: host, port: port) else {
            throw .other("\(host) is not a numeric IPv4 or IPv6 address")
        }
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .other(SocketAddress.errorText(errno)) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withPointer { bind(fd, $0, $1) }
        if bound != 0 {
            let code = errno
            close(fd)
            throw code == EADDRINUSE ? .addressInUse : .other(SocketAddress.errorText(code))
        }
        guard Glibc.listen(fd, 512) == 0, let actual = SocketAddress.boundPort(of: fd) else {
            let code = errno
            close(fd)
            throw .other(SocketAddress.errorText(code))
        }
        self.fd = fd
        self.port = actual
        self.router = router
        PosixThread.detach { [self] in acceptLoop() }
    }

    package func shutdown(gracePeriod: Duration) {
        let open = state.withLock { state -> Set<Int32> in
            state.stopping = true
            return state.connections
        }
        // shutdown(2) wakes the thread blocked in accept(2); it closes the descriptor.
        Glibc.shutdown(fd, Int32(SHUT_RDWR))
        _ = open
        let deadline = ContinuousClock.now + gracePeriod
        while ContinuousClock.now < deadline {
            if state.withLock({ $0.connections.isEmpty }) { return }
            usleep(5_000)
        }
        // Requests still in flight after the grace period are cut off.
        for connection in state.withLock({ $0.connections }) { Glibc.shutdown(connection, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(fd, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if state.withLock({ $0.stopping }) || errno == EINVAL || errno == EBADF { break }
                usleep(10_000)
                continue
            }
            let admitted = state.withLock { state -> Bool in
                guard !state.stopping else { return false }
                state.connections.insert(connection)
                return true
            }
            guard admitted else {
                close(connection)
                break
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            var one: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let started = PosixThread.detach { [self] in
                serve(connection)
                state.withLock { _ = $0.connections.remove(connection) }
                close(connection)
            }
            if !started {
                state.withLock { _ = $0.connections.remove(connection) }
                close(connection)
            }
        }
        close(fd)
    }

    /// Serves requests on one connection until the peer closes, asks to close, or we stop.
    private func serve(_ connection: Int32) {
        var buffer: [UInt8] = []
        while true {
            guard let head = RequestHead.read(from: connection, buffer: &buffer) else { return }
            var request = HTTPRequest(method: HTTPMethod(head.method), target: head.target, headers: head.headers)
            if let length = head.contentLength {
                guard length <= 64 << 20, let body = Self.readExactly(length, from: connection, buffer: &buffer) else {
                    return
                }
                request.body = body
            } else if head.headers["Transfer-Encoding"] != nil {
                Self.send(HTTPResponse.text("chunked request bodies are not supported", status: .notImplemented),
                          to: connection, close: true)
                return
            }
            var response = router.respond(to: request)
            if case .stream = response.body {
                response = .text("streamed responses need the EmulatorPosix server", status: .notImplemented)
            }
            let closing = head.wantsClose || state.withLock { $0.stopping }
            guard Self.send(response, to: connection, close: closing), !closing else { return }
        }
    }

    private static func readExactly(_ count: Int, from fd: Int32, buffer: inout [UInt8]) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while buffer.count < count {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
        let body = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return body
    }

    @discardableResult
    private static func send(_ response: HTTPResponse, to fd: Int32, close: Bool) -> Bool {
        let body = response.bodyBytes
        var head = "HTTP/1.1 \(response.status.code) \(response.status.reason)\r\n"
        for field in response.headers where !HTTPHeaders.namesMatch(field.name, "Content-Length") {
            head += "\(field.name): \(field.value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\n"
        if close { head += "Connection: close\r\n" }
        head += "\r\n"
        let bytes = Array(head.utf8) + body
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }
}
