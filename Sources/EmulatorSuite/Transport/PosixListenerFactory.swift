package import EmulatorHTTP
package import EmulatorPosix
package import EmulatorSupport

/// Listeners on the EmulatorPosix epoll server, sharing its event loops.
package struct PosixListenerFactory: ListenerFactory {
    package init() {}

    package var completesDeferredResponses: Bool { true }

    package func listen(host: String, port: Int, handler: @escaping HTTPHandler) throws(ListenFailure) -> any SuiteListener {
        try listen(host: host, port: port, handler: handler, http2Handler: nil)
    }

    package func listen(
        host: String, port: Int, handler: @escaping HTTPHandler, http2Handler: HTTP2ConnectionHandlerFactory?
    ) throws(ListenFailure) -> any SuiteListener {
        try listen(host: host, port: port, handler: handler, http2Handler: http2Handler, logger: Logger(label: "emulators"))
    }

    package func listen(
        host: String, port: Int, handler: @escaping HTTPHandler, http2Handler: HTTP2ConnectionHandlerFactory?,
        logger: Logger
    ) throws(ListenFailure) -> any SuiteListener {
        do {
            return try HTTPServer.start(
                ServerConfiguration(host: host, port: port, http2Handler: http2Handler, logger: logger), handler: handler)
        } catch {
            if case .addressInUse = error { throw .addressInUse }
            throw .other(error.description)
        }
    }
}

extension RunningServer: SuiteListener {}
