import EmulatorHTTP
import EmulatorSupport

extension DatabaseEmulator {
    /// `/.lp`: the JS SDK's long-polling transport (used where WebSocket is unavailable, failed
    /// before, or `forceLongPolling()` was called), the same wire-protocol session as `/.ws` in a
    /// second framing (see `WireProtocol/LongPoll/`). A `start` names its namespace as `/.ws` does
    /// (`ns`, else the `Host` label); the hello names the `Host` the client used.
    func longPoll(_ request: HTTPRequest) -> HTTPResponse {
        longPolls.respond(to: request) { output throws(DatabaseFailure) in
            let name = try DatabaseRESTRequest.namespace(
                request, items: request.queryItems, defaultNamespace: configuration.defaultNamespace)
            return wireSession(namespace: name, host: request.headers["Host"] ?? "localhost", output: output)
        }
    }

    /// `GET /.ws?v=5&s=<session>` naming a long-poll connection's session: the SDK upgrading that
    /// connection to a WebSocket. Nil without `s` (the request is an ordinary `/.ws`; the SDKs send
    /// `s` only when upgrading). An `s` that names no open connection (expired, or another
    /// server's) gets a socket that closes at once, so the SDK abandons the upgrade and carries on
    /// over long-polling instead of waiting for an answer that never comes.
    ///
    /// The socket opens with `{"t":"c","d":{"t":"a",…}}`; the SDK pings until it has two pongs,
    /// acknowledges on the socket and sends its end of transmission on long-polling, which the
    /// server echoes as the last long-poll message before everything goes to the socket.
    func longPollUpgrade(_ request: HTTPRequest) -> HTTPResponse? {
        guard let wireID = request.query("s") else { return nil }
        guard let session = longPolls.upgradeCandidate(wireID: wireID) else {
            return WebSocketHandshake.upgrade(request) { writer in
                let handler = WebSocketSession(writer: writer, onText: { _, _ in }, onClose: { _ in })
                handler.close(code: .goingAway)
                return handler
            }
        }
        let server = longPolls
        return WebSocketHandshake.upgrade(request) { writer in
            let socket = DatabaseLongPollUpgradeSocket(writer: writer)
            let attached = session.attach(socket)
            let handler = WebSocketSession(
                writer: writer,
                onText: { connection, text in
                    switch socket.received(frame: text, deliver: { session.receive($0, from: socket) }) {
                    case .accepted: break
                    case .tooLarge: connection.close(code: .messageTooBig)
                    case .refused: connection.close(code: .goingAway)
                    }
                },
                onClose: { _ in server.socketClosed(socket, of: session) })
            if attached {
                socket.send(DatabaseLongPollUpgradeSocket.accept)
            } else {
                handler.close(code: .goingAway)
            }
            return handler
        }
    }

    /// Number of open long-poll connections (all namespaces).
    package var longPollCount: Int { longPolls.count }
}
