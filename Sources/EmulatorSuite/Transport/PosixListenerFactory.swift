package import EmulatorHTTP
package import EmulatorPosix

/// Listeners on the EmulatorPosix epoll server, sharing its event loops.
package struct PosixListenerFactory: ListenerFactory {
    package init() {}

    package func listen(host: String, port: Int, handler: @escaping HTTPHandler) throws(ListenFailure) -> any SuiteListener {
        do {
            return try HTTPServer.start(ServerConfiguration(host: host, port: port), handler: handler)
        } catch {
            if case .addressInUse = error { throw .addressInUse }
            throw .other(error.description)
        }
    }
}

extension RunningServer: SuiteListener {}
