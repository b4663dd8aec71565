import EmulatorHTTP
import EmulatorModel
import EmulatorSupport
import Synchronization

extension DatabaseEmulator {
    /// `GET /.ws?v=5&ns=<ns>` upgraded to a WebSocket: the SDKs' realtime connection
    /// (`useEmulator(host, port)`). The namespace comes from `ns` (else the `Host` label, as for
    /// REST); the hello names the `Host` the client connected to, which iOS keeps using.
    func webSocket(_ request: HTTPRequest) throws(DatabaseFailure) -> HTTPResponse {
        let name = try DatabaseRESTRequest.namespace(
            request, items: request.queryItems, defaultNamespace: configuration.defaultNamespace)
        let host = request.headers["Host"] ?? "localhost"
        return WebSocketHandshake.upgrade(request) { [self] writer in
            let session = wireSession(
                namespace: name, host: host, execute: { work in writer.execute(work) },
                output: { message in
                    // One write per message, so the pieces of a long message stay together even
                    // when another thread's push is sent at the same time.
                    var bytes: [UInt8] = []
                    for frame in DatabaseWireFraming.frames(for: message) {
                        bytes.append(contentsOf: WebSocketFrame(opcode: .text, payload: frame).encoded())
                    }
                    writer.write(bytes)
                })
            let registry = wireSessions
            registry.add(session)
            let socket = WebSocketSession(
                writer: writer,
                onText: { _, text in session.receive(frame: text) },
                onClose: { _ in
                    registry.remove(session)
                    session.closed()
                })
            session.start()
            return socket
        }
    }
}

extension DatabaseEmulator {
    /// A wire-protocol session on `namespace` that answers through `output` (one JSON message per
    /// call); the WebSocket glue frames and sends it. Tests drive it directly. Its namespace is
    /// the store's for a connection, handed back when the session closes.
    func wireSession(
        namespace name: String, host: String, sessionID: String = DatabaseWireSession.nextSessionID(),
        execute: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void = { $0() },
        output: @escaping @Sendable ([UInt8]) -> Void
    ) -> DatabaseWireSession {
        DatabaseWireSession(
            service: service, namespace: service.store.namespaceForConnection(name), host: host, sessionID: sessionID,
            gate: configuration.replyGate, execute: execute, output: output)
    }
}

extension DatabaseEmulator {
    /// Number of open WebSocket connections (all namespaces).
    package var webSocketCount: Int { wireSessions.count }
}

extension DatabaseWireSession {
    private static let sessionCounter = Atomic<Int>(0)

    /// A fresh opaque session id for the hello (`s`); clients send it back as `ls`.
    static func nextSessionID() -> String {
        let n = sessionCounter.wrappingAdd(1, ordering: .relaxed).newValue
        return "emulator-\(WallClock.nowMilliseconds())-\(n)"
    }
}
