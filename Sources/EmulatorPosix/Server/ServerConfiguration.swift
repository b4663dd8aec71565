package import EmulatorHTTP
package import EmulatorSupport

/// Where and how an ``HTTPServer`` listens.
///
/// ```swift
/// var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
/// configuration.limits.maxBodyBytes = 256 * 1024 * 1024
/// ```
package struct ServerConfiguration: Sendable {
    /// An IPv4 or IPv6 literal (`"127.0.0.1"`, `"::1"`, `"[::1]"`, `"0.0.0.0"`), or `"localhost"`,
    /// which binds 127.0.0.1 and, on the same port when the machine has IPv6 loopback and the port
    /// is free there, ::1 too (clients that resolve `localhost` to ::1 first reach it; never only
    /// ::1, which IPv4 clients cannot reach).
    package var host: String
    /// The TCP port; 0 picks a free ephemeral port (read it from ``RunningServer/port``).
    package var port: Int
    /// Head size, header count and body size limits (431 / 431 / 413).
    package var limits: HTTP1Limits
    /// How long a client may take to send a whole request once it started; then 408 and close.
    package var headerReadTimeout: Duration
    /// How long a keep-alive connection may sit without a request before it is closed.
    package var idleTimeout: Duration
    /// Takes over connections that open with the HTTP/2 preface (gRPC). Without one, such
    /// connections are closed.
    package var http2Handler: HTTP2ConnectionHandlerFactory?
    /// `listen` backlog.
    package var backlog: Int32
    /// Unsent bytes a streamed response (SSE) or taken-over connection (WebSocket, gRPC) may
    /// queue; past it, once the kernel has taken none of the connection's bytes for a second (or
    /// past eight times it at once), the peer counts as not reading and the connection is
    /// closed (logged). gRPC stays far below it: HTTP/2 sends only what the peer's windows allow.
    package var maxStreamBacklogBytes = 32 << 20
    /// Where the server reports trouble that no request sees (running out of descriptors, a
    /// subscriber closed for not reading).
    package var logger: Logger
    /// Tests only: stands in for `accept4` on the listening socket (descriptor, or -1 and errno).
    var acceptOverride: (@Sendable (Int32) -> (fd: Int32, errno: Int32))?

    package init(
        host: String = "127.0.0.1",
        port: Int = 0,
        limits: HTTP1Limits = HTTP1Limits(),
        headerReadTimeout: Duration = .seconds(30),
        idleTimeout: Duration = .seconds(120),
        http2Handler: HTTP2ConnectionHandlerFactory? = nil,
        backlog: Int32 = 1024,
        logger: Logger = Logger(label: "server")
    ) {
        self.host = host
        self.port = port
        self.limits = limits
        self.headerReadTimeout = headerReadTimeout
        self.idleTimeout = idleTimeout
        self.http2Handler = http2Handler
        self.backlog = backlog
        self.logger = logger
    }
}
