package import EmulatorHTTP
package import EmulatorSupport

/// How the suite opens a listening HTTP server: the seam between the suite and the socket layer.
/// `emulators start` uses ``PosixListenerFactory`` (the EmulatorPosix epoll server); tests may
/// pass any conforming type.
package protocol ListenerFactory: Sendable {
    /// Binds `host:port` (`port == 0`: any free port) and serves `handler` until shut down.
    func listen(host: String, port: Int, handler: @escaping HTTPHandler) throws(ListenFailure) -> any SuiteListener

    /// Like ``listen(host:port:handler:)``; connections that open with the HTTP/2 preface go to
    /// `http2Handler` (gRPC on the Firestore port) when it is set.
    func listen(
        host: String, port: Int, handler: @escaping HTTPHandler, http2Handler: HTTP2ConnectionHandlerFactory?
    ) throws(ListenFailure) -> any SuiteListener

    /// Whether the transport sends `HTTPResponse.Body.deferred` responses when they complete
    /// (and keeps serving other connections meanwhile). The suite then acknowledges journaled
    /// writes without blocking a transport thread (``DurableAcknowledgement``).
    var completesDeferredResponses: Bool { get }

    /// Like ``listen(host:port:handler:http2Handler:)``; the transport reports trouble no request
    /// sees (running out of descriptors) to `logger`.
    func listen(
        host: String, port: Int, handler: @escaping HTTPHandler, http2Handler: HTTP2ConnectionHandlerFactory?,
        logger: Logger
    ) throws(ListenFailure) -> any SuiteListener
}

extension ListenerFactory {
    /// Transports block in the handler unless they say otherwise.
    package var completesDeferredResponses: Bool { false }

    /// Transports without HTTP/2 serve HTTP/1.1 only.
    package func listen(
        host: String, port: Int, handler: @escaping HTTPHandler, http2Handler: HTTP2ConnectionHandlerFactory?
    ) throws(ListenFailure) -> any SuiteListener {
        try listen(host: host, port: port, handler: handler)
    }

    /// Transports without a log of their own ignore the logger.
    package func listen(
        host: String, port: Int, handler: @escaping HTTPHandler, http2Handler: HTTP2ConnectionHandlerFactory?,
        logger: Logger
    ) throws(ListenFailure) -> any SuiteListener {
        try listen(host: host, port: port, handler: handler, http2Handler: http2Handler)
    }
}

/// One running listener.
package protocol SuiteListener: AnyObject, Sendable {
    /// The port actually bound (the kernel's choice when 0 was asked).
    var port: Int { get }
    /// The addresses bound, in order (empty when the transport does not say: the configured host).
    var addresses: [String] { get }
    /// Stops accepting, lets requests in flight finish for up to `gracePeriod`, then closes the rest.
    func shutdown(gracePeriod: Duration)
}

extension SuiteListener {
    package var addresses: [String] { [] }
}

/// Why a listener could not start.
package enum ListenFailure: Error, Sendable, Equatable {
    /// Another process holds the port (`EADDRINUSE`).
    case addressInUse
    /// The host is not an address this machine has, or another socket error.
    case other(String)
}
