#if canImport(Glibc)
import Glibc
#endif

/// One blocking TCP connection to an emulator (IPv4 or IPv6 numeric host, or `localhost`).
///
/// Not shared between threads: the pool hands a connection to one caller at a time.
final class HTTPConnection {
    private(set) var fd: Int32
    let host: String
    let port: Int

    init(host: String, port: Int, timeoutSeconds: Int = 30) throws(ClientTransportError) {
        self.host = host
        self.port = port
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var result: UnsafeMutablePointer<addrinfo>?
        let name = host == "localhost" ? "127.0.0.1" : host
        guard getaddrinfo(name, String(port), &hints, &result) == 0, let first = result else {
            throw ClientTransportError("cannot resolve \(host)")
        }
        defer { freeaddrinfo(result) }
        var info: UnsafeMutablePointer<addrinfo>? = first
        var lastError: Int32 = 0
        while let ai = info {
            let s = socket(ai.pointee.ai_family, ai.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), ai.pointee.ai_protocol)
            if s >= 0 {
                if connect(s, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 {
                    var one: Int32 = 1
                    setsockopt(s, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                    var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
                    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                    fd = s
                    setReceiveTimeout(milliseconds: timeoutSeconds * 1000)
                    return
                }
                lastError = errno
                close(s)
            }
            info = ai.pointee.ai_next
        }
        throw ClientTransportError("connect to \(host):\(port) failed (errno \(lastError))")
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Closes the socket now (also wakes a thread blocked reading it).
    func shutdownAndClose() {
        if fd >= 0 {
            shutdown(fd, Int32(SHUT_RDWR))
        }
    }

    /// How long a read waits for bytes before it throws a timeout.
    func setReceiveTimeout(milliseconds: Int) {
        var tv = timeval(tv_sec: milliseconds / 1000, tv_usec: milliseconds % 1000 * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ bytes: [UInt8]) throws(ClientTransportError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw ClientTransportError("send failed (errno \(errno))") }
            offset += n
        }
    }

    /// Reads what has arrived (waiting up to the receive timeout); an empty slice when the peer closed.
    /// A read that times out throws an error whose `isTimeout` is true.
    func receiveBytes(scratch: inout [UInt8]) throws(ClientTransportError) -> ArraySlice<UInt8> {
        while true {
            let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                let code = errno
                var failure = ClientTransportError("receive failed (errno \(code))")
                failure.isTimeout = code == EAGAIN || code == EWOULDBLOCK
                throw failure
            }
            return scratch[0..<n]
        }
    }

    /// Reads once into `parser`; returns false when the peer closed.
    func receive(into parser: inout HTTPResponseParser, scratch: inout [UInt8]) throws(ClientTransportError) -> Bool {
        let bytes = try receiveBytes(scratch: &scratch)
        if bytes.isEmpty {
            parser.finishAtClose()
            return false
        }
        do {
            try parser.feed(bytes)
        } catch {
            throw ClientTransportError("malformed response")
        }
        return true
    }
}

/// A transport failure: the connection could not be made or broke.
public struct ClientTransportError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// True when a read gave up after the socket's receive timeout.
    public var isTimeout = false
    init(_ description: String) { self.description = description }
}
