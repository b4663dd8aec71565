import CEmulatorLinux
import EmulatorHTTP
import Synchronization

/// What every connection of one server shares: configuration, handler and the live count.
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    let handler: HTTPHandler
    let group: EventLoopGroup
    let connectionCount = Atomic<Int>(0)
    let draining = Atomic<Bool>(false)
    /// The bound port, for log lines.
    let port: Int

    init(configuration: ServerConfiguration, handler: @escaping HTTPHandler, group: EventLoopGroup, port: Int) {
        self.configuration = configuration
        self.handler = handler
        self.group = group
        self.port = port
    }

    /// Accepts one connection from `listenerFD`: its descriptor, or -1 and the errno.
    func acceptConnection(_ listenerFD: Int32) -> (fd: Int32, errno: Int32) {
        if let accept = configuration.acceptOverride { return accept(listenerFD) }
        let fd = cemu_accept_nonblocking(listenerFD)
        return (fd, fd < 0 ? cemu_errno() : 0)
    }
}
