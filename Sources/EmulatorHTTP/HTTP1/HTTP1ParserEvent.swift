/// What ``HTTP1RequestParser/next()`` reports.
package enum HTTP1ParserEvent: Sendable {
    /// A complete request (head and whole body).
    case request(HTTP1ParsedRequest)
    /// The client sent `Expect: 100-continue` and waits for `HTTP/1.1 100 Continue` before the body.
    case sendContinue
    /// The buffered bytes start with the HTTP/2 connection preface; take them with
    /// ``HTTP1RequestParser/takeBuffered()`` and hand the connection to an HTTP/2 handler.
    case http2Preface
    /// The input is malformed or over a limit: answer `status` and close the connection.
    case failure(HTTPStatus)
}

/// A request as parsed off the wire, with the connection semantics the head implies.
package struct HTTP1ParsedRequest: Sendable {
    package var request: HTTPRequest
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    package var minorVersion: Int
    /// Whether the connection may carry another request after this one.
    package var keepAlive: Bool
}
