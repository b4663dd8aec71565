import EmulatorSupport

/// The server side of the WebSocket opening handshake (RFC 6455 §4.2).
///
/// ```swift
/// router.add(.get, "/.ws") { request in
///     WebSocketHandshake.upgrade(request) { writer in
///         WebSocketSession(writer: writer, onText: { session, text in session.send(text: text) })
///     }
/// }
/// ```
package enum WebSocketHandshake {
    private static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `Sec-WebSocket-Accept` for a client's `Sec-WebSocket-Key`:
    /// base64(SHA-1(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")).
    package static func acceptValue(forKey key: String) -> String {
        Base64.encode(SHA1.hash(Array((key + guid).utf8)))
    }

    /// Whether `request` asks to switch to WebSocket (`Upgrade: websocket`).
    package static func isUpgradeRequest(_ request: HTTPRequest) -> Bool {
        request.headers.values("Upgrade").contains { hasToken($0, "websocket") }
    }

    /// The 101 answer that hands the connection to `makeHandler`, or 400 / 426 when the request is
    /// not a valid WebSocket opening handshake.
    package static func upgrade(
        _ request: HTTPRequest, subprotocol: String? = nil, makeHandler: @escaping UpgradedConnectionFactory
    ) -> HTTPResponse {
        guard request.method == .get, isUpgradeRequest(request),
            request.headers.values("Connection").contains(where: { hasToken($0, "upgrade") })
        else {
            return .text("Not a WebSocket handshake", status: .badRequest)
        }
        guard request.headers["Sec-WebSocket-Version"] == "13" else {
            var response = HTTPResponse.text("Unsupported WebSocket version", status: .upgradeRequired)
            response.headers.add("Sec-WebSocket-Version", "13")
            return response
        }
        guard let key = request.headers["Sec-WebSocket-Key"], isValidKey(key) else {
            return .text("Missing or malformed Sec-WebSocket-Key", status: .badRequest)
        }
        var headers = HTTPHeaders()
        headers.add("Upgrade", "websocket")
        headers.add("Connection", "Upgrade")
        headers.add("Sec-WebSocket-Accept", acceptValue(forKey: key))
        if let subprotocol { headers.add("Sec-WebSocket-Protocol", subprotocol) }
        return .switchingProtocols(headers: headers, upgrade: HTTPUpgrade(makeHandler: makeHandler))
    }

    /// A key is the base64 form of 16 bytes: 22 characters and `==`.
    private static func isValidKey(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 24, bytes[22] == UInt8(ascii: "="), bytes[23] == UInt8(ascii: "=") else { return false }
        return Base64.decode(bytes, alphabet: .standard)?.count == 16
    }

    private static func hasToken(_ value: String, _ token: String) -> Bool {
        value.split(separator: ",").contains { $0.trimmingSpaces.equalsIgnoringCase(token) }
    }
}
