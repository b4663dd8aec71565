/// A complete WebSocket message after reassembling fragments.
package enum WebSocketMessage: Sendable, Hashable {
    case text(String)
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// The peer's close frame: its code (absent when the body was empty) and reason.
    case close(WebSocketCloseCode?, String)
}

/// Joins fragmented frames into messages and checks the rules for fragments, control frames, text
/// encoding and message size (RFC 6455 §5.4, §5.5, §8.1).
package struct WebSocketMessageAssembler: Sendable {
    package enum Result: Sendable, Hashable {
        case message(WebSocketMessage)
        /// A fragment was buffered; the message is not complete yet.
        case incomplete
        case failure(WebSocketCloseCode)
    }

    package var maxMessageBytes: Int
    private var fragments: [UInt8] = []
    private var fragmentedOpcode: WebSocketFrame.Opcode?

    package init(maxMessageBytes: Int = 16 * 1024 * 1024) {
        self.maxMessageBytes = maxMessageBytes
    }

    package mutating func add(_ frame: WebSocketFrame) -> Result {
        switch frame.opcode {
        case .ping:
            return .message(.ping(frame.payload))
        case .pong:
            return .message(.pong(frame.payload))
        case .close:
            return Self.closeMessage(frame.payload)
        case .continuation:
            guard let opcode = fragmentedOpcode else { return .failure(.protocolError) }
            guard fragments.count + frame.payload.count <= maxMessageBytes else { return .failure(.messageTooBig) }
            fragments.append(contentsOf: frame.payload)
            guard frame.fin else { return .incomplete }
            let payload = fragments
            fragments = []
            fragmentedOpcode = nil
            return Self.dataMessage(opcode, payload)
        case .text, .binary:
            guard fragmentedOpcode == nil else { return .failure(.protocolError) }
            guard frame.payload.count <= maxMessageBytes else { return .failure(.messageTooBig) }
            if frame.fin { return Self.dataMessage(frame.opcode, frame.payload) }
            fragmentedOpcode = frame.opcode
            fragments = frame.payload
            return .incomplete
        }
    }

    private static func dataMessage(_ opcode: WebSocketFrame.Opcode, _ payload: [UInt8]) -> Result {
        if opcode == .binary { return .message(.binary(payload)) }
        guard let text = String(validating: payload, as: UTF8.self) else { return .failure(.invalidPayload) }
        return .message(.text(text))
    }

    private static func closeMessage(_ payload: [UInt8]) -> Result {
        if payload.isEmpty { return .message(.close(nil, "")) }
        guard payload.count >= 2 else { return .failure(.protocolError) }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        // Codes that must never appear on the wire (RFC 6455 §7.4.1), and unassigned ranges.
        let valid = (1000...1003).contains(code) || (1007...1011).contains(code) || (3000...4999).contains(code)
        guard valid else { return .failure(.protocolError) }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else { return .failure(.invalidPayload) }
        return .message(.close(WebSocketCloseCode(rawValue: code), reason))
    }
}
