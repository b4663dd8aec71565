/// Where one listener binds. `port == 0` asks the kernel for a free port (tests run in parallel).
package struct ListenAddress: Sendable, Hashable {
    package var host: String
    package var port: Int
    /// Set when firebase.json (or the caller) chose the port: a taken fixed port is fatal.
    package var isFixed: Bool

    package init(host: String = ListenAddress.defaultHost, port: Int, isFixed: Bool) {
        self.host = host
        self.port = port
        self.isFixed = isFixed
    }

    /// The suite binds IPv4 loopback unless told otherwise.
    package static let defaultHost = "127.0.0.1"

    /// The host a client should dial: wildcards are advertised as loopback, as the official CLI does.
    package var advertisedHost: String {
        switch host {
        case "0.0.0.0", "localhost": "127.0.0.1"
        case "::", "[::]": "::1"
        default: host
        }
    }

    /// `host:port` with IPv6 hosts in brackets, the form the `*_EMULATOR_HOST` variables use.
    package static func hostPort(_ host: String, _ port: Int) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
