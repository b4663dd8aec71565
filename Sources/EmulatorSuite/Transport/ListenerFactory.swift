package import EmulatorHTTP

/// How the suite opens a listening HTTP server: the seam between the suite and the socket layer.
/// `emulators start` uses ``PosixListenerFactory`` (the EmulatorPosix epoll server); tests may
/// pass any conforming type.
package protocol ListenerFactory: Sendable {
    /// Binds `host:port` (`port == 0`: any free port) and serves `handler` until shut down.
    func listen(host: String, port: Int, handler: @escaping HTTPHandler) throws(ListenFailure) -> any SuiteListener
}

/// One running listener.
package protocol SuiteListener: AnyObject, Sendable {
    /// The port actually bound (the kernel's choice when 0 was asked).
    var port: Int { get }
    /// Stops accepting, lets requests in flight finish for up to `gracePeriod`, then closes the rest.
    func shutdown(gracePeriod: Duration)
}

/// Why a listener could not start.
package enum ListenFailure: Error, Sendable, Equatable {
    /// Another process holds the port (`EADDRINUSE`).
    case addressInUse
    /// The host is not an address this machine has, or another socket error.
    case other(String)
}
