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
    /// Binds `configuration.host:port` (for `localhost`: 127.0.0.1 and, when possible, ::1 on the
    /// same port) and starts serving `handler` on `group`'s loops.
    package static func start(
        _ configuration: ServerConfiguration,
        group: EventLoopGroup = .shared,
        handler: @escaping HTTPHandler
    ) throws(ServerError) -> RunningServer {
        guard group.loopCount > 0 else { throw .system(operation: "epoll_create1", errno: EMFILE) }
        ignoreSIGPIPE()
        DescriptorLimit.raiseSoftLimitToHard()
        // `localhost` means both loopbacks: IPv4 first (it decides the port), then IPv6 on the same
        // port when the machine has it and nobody holds that port there.
        let dual = configuration.host == "localhost"
        let first = dual ? "127.0.0.1" : configuration.host
        let (fd, port) = try ListeningSocket.open(host: first, port: configuration.port, backlog: configuration.backlog)
        var listeners = [(fd: fd, address: dual ? first : configuration.host)]
        if dual, let (fd6, _) = try? ListeningSocket.open(host: "::1", port: port, backlog: configuration.backlog) {
            listeners.append((fd6, "::1"))
        }
        let fds = listeners.map(\.fd)
        let context = ServerContext(configuration: configuration, handler: handler, group: group, port: port)
        let listenerLoop = group.next()
        listenerLoop.execute { loop in
            for fd in fds { loop.addListener(fd, server: context) }
        }
        return RunningServer(
            context: context, listenerFDs: fds, addresses: listeners.map(\.address), listenerLoop: listenerLoop, port: port)
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
