/// Drives a handler (usually a ``Router``) without sockets, for emulator tests.
///
/// ```swift
/// let client = InProcessClient(router: router)
/// let response = client.put("/users/ada.json", body: #"{"age":36}"#)
/// #expect(response.status == .ok)
/// let stream = client.stream("/users.json", headers: ["Accept": "text/event-stream"])
/// // ... cause a change ...
/// #expect(stream.writer.text.contains("event: put"))
/// stream.writer.close()   // the "browser" goes away
/// ```
package struct InProcessClient: Sendable {
    private let handler: HTTPHandler

    package init(router: Router) {
        self.handler = router.respond(to:)
    }

    package init(handler: @escaping HTTPHandler) {
        self.handler = handler
    }

    /// Sends `request` straight to the handler.
    package func send(_ request: HTTPRequest) -> HTTPResponse {
        handler(request).resolved()
    }

    package func get(_ target: String, headers: [(String, String)] = []) -> HTTPResponse {
        send(HTTPRequest(method: .get, target: target, headers: HTTPHeaders(headers)))
    }

    package func delete(_ target: String, headers: [(String, String)] = []) -> HTTPResponse {
        send(HTTPRequest(method: .delete, target: target, headers: HTTPHeaders(headers)))
    }

    package func put(_ target: String, body: [UInt8], headers: [(String, String)] = []) -> HTTPResponse {
        send(HTTPRequest(method: .put, target: target, headers: HTTPHeaders(headers), body: body))
    }

    package func put(_ target: String, body: String, headers: [(String, String)] = []) -> HTTPResponse {
        put(target, body: Array(body.utf8), headers: headers)
    }

    package func post(_ target: String, body: [UInt8], headers: [(String, String)] = []) -> HTTPResponse {
        send(HTTPRequest(method: .post, target: target, headers: HTTPHeaders(headers), body: body))
    }

    package func post(_ target: String, body: String, headers: [(String, String)] = []) -> HTTPResponse {
        post(target, body: Array(body.utf8), headers: headers)
    }

    package func patch(_ target: String, body: [UInt8], headers: [(String, String)] = []) -> HTTPResponse {
        send(HTTPRequest(method: .patch, target: target, headers: HTTPHeaders(headers), body: body))
    }

    package func patch(_ target: String, body: String, headers: [(String, String)] = []) -> HTTPResponse {
        patch(target, body: Array(body.utf8), headers: headers)
    }

    /// A response whose streamed body (if any) has been started with an in-memory writer.
    package struct StreamedResponse: Sendable {
        package var status: HTTPStatus
        package var headers: HTTPHeaders
        /// Collects what the handler writes; for a `.bytes` body it holds that body, already finished.
        package var writer: CollectingStreamWriter
    }

    /// Sends `request` and, for a streamed response, starts the body with a collecting writer.
    package func stream(_ request: HTTPRequest) -> StreamedResponse {
        let response = handler(request).resolved()
        let writer = CollectingStreamWriter()
        switch response.body {
        case .bytes(let bytes):
            writer.write(bytes)
            writer.finish()
        case .stream(let body):
            body.start(writer)
        case .upgrade, .deferred:
            writer.finish()
        }
        return StreamedResponse(status: response.status, headers: response.headers, writer: writer)
    }

    package func stream(_ target: String, headers: [(String, String)] = []) -> StreamedResponse {
        stream(HTTPRequest(method: .get, target: target, headers: HTTPHeaders(headers)))
    }
}

extension HTTPResponse {
    /// The body as UTF-8 text (empty for streams).
    package var bodyText: String { String(decoding: bodyBytes, as: UTF8.self) }
}
