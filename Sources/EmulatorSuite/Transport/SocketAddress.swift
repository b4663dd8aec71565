#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 socket address built from a numeric host (`localhost` means 127.0.0.1).
struct SocketAddress {
    var storage = sockaddr_storage()
    var length: socklen_t = 0
    var family: Int32 = AF_INET

    init?(host: String, port: Int) {
        let numeric = host == "localhost" ? "127.0.0.1" : host.trimming(["[", "]"])
        let networkPort = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, numeric, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = networkPort
            store(v4, family: AF_INET)
            return
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, numeric, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = networkPort
            store(v6, family: AF_INET6)
            return
        }
        return nil
    }

    /// Copies a filled `sockaddr_in` or `sockaddr_in6` into `storage` and records its size and family.
    private mutating func store<Address>(_ address: Address, family: Int32) {
        withUnsafeBytes(of: address) { raw in
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) }
        }
        length = socklen_t(MemoryLayout<Address>.size)
        self.family = family
    }

    /// Calls `body` with the address as a `sockaddr` pointer.
    func withPointer<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var copy = storage
        return withUnsafePointer(to: &copy) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// The local port a bound socket got.
    static func boundPort(of fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard status == 0 else { return nil }
        return withUnsafeBytes(of: storage) { raw -> Int in
            // sin_port and sin6_port sit at the same offset (2) in network order.
            Int(UInt16(raw[2]) << 8 | UInt16(raw[3]))
        }
    }

    /// `strerror(errno)` as a String.
    static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
