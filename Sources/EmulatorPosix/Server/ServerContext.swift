import EmulatorHTTP
import Synchronization

/// What every connection of one server shares: configuration, handler and the live count.
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    let handler: HTTPHandler
    let group: EventLoopGroup
    let connectionCount = Atomic<Int>(0)
    let draining = Atomic<Bool>(false)

    init(configuration: ServerConfiguration, handler: @escaping HTTPHandler, group: EventLoopGroup) {
        self.configuration = configuration
        self.handler = handler
        self.group = group
    }
}
