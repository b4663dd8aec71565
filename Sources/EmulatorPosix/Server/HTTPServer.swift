package import EmulatorHTTP
import Glibc

/// An HTTP/1.1 server on POSIX sockets and epoll.
///
/// ```swift
/// var router = Router()
/// router.add(.get, "/ping") { _ in .text("pong") }
/// let server = try HTTPServer.start(ServerConfiguration(host: "127.0.0.1", port: 0),
///                                   handler: router.withCORS())
/// print(server.port)            // the ephemeral port chosen
/// server.shutdown(gracePeriod: .seconds(1))
/// ```
///
/// Servers share the event loops of an ``EventLoopGroup`` (``EventLoopGroup/shared`` by default),
/// so one process can run a server per emulator port cheaply.
package enum HTTPServer {
    /// Binds `configuration.host:port` and starts serving `handler` on `group`'s loops.
    package static func start(
        _ configuration: ServerConfiguration,
        group: EventLoopGroup = .shared,
        handler: @escaping HTTPHandler
    ) throws(ServerError) -> RunningServer {
        guard group.loopCount > 0 else { throw .system(operation: "epoll_create1", errno: EMFILE) }
        ignoreSIGPIPE()
        let (fd, port) = try ListeningSocket.open(
            host: configuration.host, port: configuration.port, backlog: configuration.backlog)
        let context = ServerContext(configuration: configuration, handler: handler, group: group)
        let listenerLoop = group.next()
        listenerLoop.execute { loop in loop.addListener(fd, server: context) }
        return RunningServer(context: context, listenerFD: fd, listenerLoop: listenerLoop, port: port)
    }

    /// Binds and serves `router`.
    package static func start(
        _ configuration: ServerConfiguration,
        group: EventLoopGroup = .shared,
        router: Router
    ) throws(ServerError) -> RunningServer {
        try start(configuration, group: group, handler: router.respond(to:))
    }

    private static func ignoreSIGPIPE() {
        // Writes use MSG_NOSIGNAL; this also covers any other descriptor a handler writes to.
        _ = signal(SIGPIPE, SIG_IGN)
    }
}
