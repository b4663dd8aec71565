package import EmulatorHTTP

/// What serves one emulator's port: the HTTP/1.1 router and, optionally, the handler for
/// connections that open with the HTTP/2 preface (gRPC).
package struct EmulatorEndpoint: Sendable {
    package var router: Router
    package var http2Handler: HTTP2ConnectionHandlerFactory?

    package init(router: Router, http2Handler: HTTP2ConnectionHandlerFactory? = nil) {
        self.router = router
        self.http2Handler = http2Handler
    }
}
