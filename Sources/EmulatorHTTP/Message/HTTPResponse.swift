/// A response a handler returns: a status, headers and a body.
///
/// The transport adds `Content-Length` (or chunked framing for streams), `Date`-free framing and
/// keep-alive handling; handlers set only what is theirs (`Content-Type`, `ETag`, …).
package struct HTTPResponse: Sendable {
    package var status: HTTPStatus
    package var headers: HTTPHeaders
    package var body: Body

    package enum Body: Sendable {
        /// A complete body, sent with `Content-Length`.
        case bytes([UInt8])
        /// A body written over time (Server-Sent Events); sent chunked.
        case stream(HTTPStreamBody)
        /// Switch protocols (WebSocket): the transport sends the head with status 101 and hands the
        /// connection to the upgrade's handler.
        case upgrade(HTTPUpgrade)
        /// The response comes later, from any thread (see ``HTTPDeferredResponse``); the transport
        /// holds the connection's place meanwhile. Status and headers here are informational
        /// (logging); the completed response is what is sent.
        case deferred(HTTPDeferredResponse)
    }

    package init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = .bytes(body)
    }

    package init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), stream: HTTPStreamBody) {
        self.status = status
        self.headers = headers
        self.body = .stream(stream)
    }

    /// A `101 Switching Protocols` response with `headers` (e.g. `Upgrade`, `Sec-WebSocket-Accept`).
    package static func switchingProtocols(headers: HTTPHeaders, upgrade: HTTPUpgrade) -> HTTPResponse {
        var response = HTTPResponse(status: .switchingProtocols, headers: headers)
        response.body = .upgrade(upgrade)
        return response
    }

    /// A response completed later by `deferred` (see ``HTTPDeferredResponse``).
    package static func deferred(_ deferred: HTTPDeferredResponse, status: HTTPStatus = .ok) -> HTTPResponse {
        var response = HTTPResponse(status: status)
        response.body = .deferred(deferred)
        return response
    }

    /// This response with a deferred body waited for (in-process callers, never an event loop);
    /// a cancelled exchange gives `503 Service Unavailable`.
    /// A paced body (``HTTPStreamBody/init(paced:)``) is taken whole, as `.bytes`.
    package func resolved() -> HTTPResponse {
        if case .stream(let stream) = body, let next = stream.paced {
            var whole = self
            whole.body = .bytes(HTTPStreamBody.collect(next))
            return whole
        }
        guard case .deferred(let deferred) = body else { return self }
        return (deferred.wait() ?? HTTPResponse(status: .serviceUnavailable)).resolved()
    }

    /// A JSON response from already-encoded bytes.
    package static func json(_ bytes: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: jsonHeaders, body: bytes)
    }

    /// A JSON response's fields, made once and shared (a field added later copies them, with
    /// room for the fields CORS adds).
    static let jsonHeaders: HTTPHeaders = {
        var headers = HTTPHeaders(minimumCapacity: 4)
        headers.add("Content-Type", "application/json; charset=utf-8")
        return headers
    }()

    /// ``jsonHeaders`` as ``CORSPolicy`` decorates them for a request without an `Origin`,
    /// made once and shared.
    static let jsonHeadersForAnyOrigin: HTTPHeaders = {
        var headers = jsonHeaders
        headers.add("Access-Control-Allow-Origin", "*")
        return headers
    }()

    /// A plain-text response.
    package static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/plain; charset=utf-8")
        return HTTPResponse(status: status, headers: headers, body: Array(text.utf8))
    }

    /// The body bytes when the body is complete; empty for streams (`resolved()` completes a
    /// paced one).
    package var bodyBytes: [UInt8] {
        if case .bytes(let bytes) = body { return bytes }
        return []
    }
}

/// A streamed response body. The transport sends the head, then calls `start` once with a writer.
package struct HTTPStreamBody: Sendable {
    /// Receives the writer once the response head has been sent.
    package var start: @Sendable (any HTTPStreamWriter) -> Void
    /// The producer of a paced body (``init(paced:)``), nil for other streams.
    package var paced: (@Sendable () -> HTTPBodyStep)?

    package init(start: @escaping @Sendable (any HTTPStreamWriter) -> Void) {
        self.start = start
        self.paced = nil
    }
}

/// The writing end of a streamed response. Safe to call from any thread.
package protocol HTTPStreamWriter: AnyObject, Sendable {
    /// Queues `bytes` for the peer. Returns `false` once the stream has closed.
    @discardableResult func write(_ bytes: [UInt8]) -> Bool
    /// Ends the body (last chunk) and, for the transport, the exchange.
    func finish()
    /// Whether the peer is still there and `finish()` has not been called.
    var isOpen: Bool { get }
    /// Registers `handler` to run once when the stream closes for any reason (peer gone or finished).
    /// Runs at once if already closed.
    func onClose(_ handler: @escaping @Sendable () -> Void)
    /// Whether a `write` from the calling thread sends the bytes itself (true), or hands them to
    /// another thread that sends them (false). ``HTTPStreamFanOut`` hands over first, so the other
    /// threads send while the calling thread sends its own share. Writers without a thread of their
    /// own answer true (the default).
    var sendsOnCallingThread: Bool { get }
    /// For a paced body (``HTTPStreamBody/init(paced:)``): false when the bytes written so far
    /// leave room for more now; true when they do not, and then `resume` runs once (on any thread)
    /// when they do, or never if the stream closes first. Writers that queue nothing always have
    /// room (the default).
    func deferUntilRoom(_ resume: @escaping @Sendable () -> Void) -> Bool
}

extension HTTPStreamWriter {
    package var sendsOnCallingThread: Bool { true }
    package func deferUntilRoom(_ resume: @escaping @Sendable () -> Void) -> Bool { false }
}
