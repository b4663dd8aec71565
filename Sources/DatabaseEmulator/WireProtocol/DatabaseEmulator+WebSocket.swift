import EmulatorHTTP
import EmulatorSupport
import Synchronization

extension DatabaseEmulator {
    /// `GET /.ws?v=5&ns=<ns>` upgraded to a WebSocket: the SDKs' realtime connection
    /// (`useEmulator(host, port)`). The namespace comes from `ns` (else the `Host` label, as for
    /// REST); the hello names the `Host` the client connected to, which iOS keeps using.
    func webSocket(_ request: HTTPRequest) -> HTTPResponse {
        let name = DatabaseRESTRequest.namespace(
            request, items: request.queryItems, defaultNamespace: configuration.defaultNamespace)
        let namespace = store.namespace(name)
        let engine = store.engine
        let now = configuration.now
        let host = request.headers["Host"] ?? "localhost"
        let sessionID = DatabaseWireSession.nextSessionID()
        return WebSocketHandshake.upgrade(request) { writer in
            let session = DatabaseWireSession(
                namespace: namespace, engine: engine, host: host, sessionID: sessionID, now: now,
                output: { message in
                    // One write per message, so the pieces of a long message stay together even
                    // when another thread's push is sent at the same time.
                    var bytes: [UInt8] = []
                    for frame in DatabaseWireFraming.frames(for: message) {
                        bytes.append(contentsOf: WebSocketFrame(opcode: .text, payload: frame).encoded())
                    }
                    writer.write(bytes)
                })
            let socket = WebSocketSession(
                writer: writer,
                onText: { _, text in session.receive(frame: text) },
                onClose: { _ in session.closed() })
            session.start()
            return socket
        }
    }
}

extension DatabaseWireSession {
    private static let sessionCounter = Atomic<Int>(0)

    /// A fresh opaque session id for the hello (`s`); clients send it back as `ls`.
    static func nextSessionID() -> String {
        let n = sessionCounter.wrappingAdd(1, ordering: .relaxed).newValue
        return "emulator-\(WallClock.nowMilliseconds())-\(n)"
    }
}
