package import EmulatorHTTP

extension HTTPServer {
    /// Runs `body` with a started server and shuts it down afterwards, also when `body` throws.
    ///
    /// ```swift
    /// try HTTPServer.withServer(ServerConfiguration(port: 0), handler: router.withCORS()) { server in
    ///     // talk to 127.0.0.1:server.port
    /// }
    /// ```
    package static func withServer<Result>(
        _ configuration: ServerConfiguration,
        group: EventLoopGroup = .shared,
        handler: @escaping HTTPHandler,
        gracePeriod: Duration = .seconds(1),
        _ body: (RunningServer) throws -> Result
    ) throws -> Result {
        let server = try start(configuration, group: group, handler: handler)
        defer { server.shutdown(gracePeriod: gracePeriod) }
        return try body(server)
    }
}
