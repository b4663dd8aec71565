import CEmulatorLinux
import Glibc

/// Opens non-blocking listening sockets on IP literals.
enum ListeningSocket {
    /// Binds and listens on `host:port`; returns the descriptor and the bound port.
    static func open(host: String, port: Int, backlog: Int32) throws(ServerError) -> (fd: Int32, port: Int) {
        guard (0...65_535).contains(port) else { throw .invalidAddress(host: host, port: port) }
        var literal = host
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        if literal == "localhost" || literal.isEmpty { literal = "127.0.0.1" }

        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let isV6: Bool
        if inet_pton(AF_INET, literal, &v4.sin_addr) == 1 {
            isV6 = false
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = UInt16(port).bigEndian
        } else if inet_pton(AF_INET6, literal, &v6.sin6_addr) == 1 {
            isV6 = true
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = UInt16(port).bigEndian
        } else {
            throw .invalidAddress(host: host, port: port)
        }

        let fd = cemu_socket_nonblocking(isV6 ? AF_INET6 : AF_INET)
        guard fd >= 0 else { throw .system(operation: "socket", errno: cemu_errno()) }
        _ = cemu_set_reuseaddr(fd)
        if isV6 { _ = cemu_set_v6only(fd) }

        let bound: Int32
        if isV6 {
            bound = withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            bound = withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        if bound != 0 {
            let error = cemu_errno()
            Glibc.close(fd)
            switch error {
            case EADDRINUSE: throw .addressInUse(host: host, port: port)
            case EACCES, EPERM: throw .permissionDenied(host: host, port: port)
            case EADDRNOTAVAIL: throw .invalidAddress(host: host, port: port)
            default: throw .system(operation: "bind", errno: error)
            }
        }
        guard listen(fd, backlog) == 0 else {
            let error = cemu_errno()
            Glibc.close(fd)
            if error == EADDRINUSE { throw .addressInUse(host: host, port: port) }
            throw .system(operation: "listen", errno: error)
        }
        return (fd, boundPort(fd) ?? port)
    }

    private static func boundPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        default:
            return nil
        }
    }
}
