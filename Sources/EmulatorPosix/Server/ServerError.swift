/// Why a server could not start.
package enum ServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another socket already listens on `host:port`.
    case addressInUse(host: String, port: Int)
    /// `host` is not an IP literal or `localhost`, or `port` is outside 0...65535.
    case invalidAddress(host: String, port: Int)
    /// Binding a port below 1024 (or similar) is not permitted.
    case permissionDenied(host: String, port: Int)
    /// A system call failed.
    case system(operation: String, errno: Int32)

    package var description: String {
        switch self {
        case .addressInUse(let host, let port): "address \(host):\(port) is already in use"
        case .invalidAddress(let host, let port): "cannot listen on \(host):\(port): not an IP address or localhost"
        case .permissionDenied(let host, let port): "permission denied listening on \(host):\(port)"
        case .system(let operation, let errno): "\(operation) failed (errno \(errno))"
        }
    }
}
