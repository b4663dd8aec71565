/// One WebSocket frame (RFC 6455 §5.2), payload already unmasked.
package struct WebSocketFrame: Sendable, Hashable {
    package enum Opcode: UInt8, Sendable, Hashable {
        case continuation = 0x0
        case text = 0x1
        case binary = 0x2
        case close = 0x8
        case ping = 0x9
        case pong = 0xA

        /// Control frames (close, ping, pong) may not be fragmented and carry at most 125 bytes.
        package var isControl: Bool { rawValue & 0x8 != 0 }
    }

    package var fin: Bool
    package var opcode: Opcode
    package var payload: [UInt8]

    package init(fin: Bool = true, opcode: Opcode, payload: [UInt8]) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// The wire form. Servers send unmasked frames; clients pass a masking key.
    ///
    /// ```swift
    /// WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)).encoded()
    /// // [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
    /// ```
    package func encoded(maskingKey: (UInt8, UInt8, UInt8, UInt8)? = nil) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 14)
        out.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        let count = payload.count
        if count <= 125 {
            out.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(count >> 8))
            out.append(UInt8(count & 0xFF))
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: count >> shift)) }
        }
        if let key = maskingKey {
            out.append(contentsOf: [key.0, key.1, key.2, key.3])
            let start = out.count
            out.append(contentsOf: payload)
            out.withUnsafeMutableBufferPointer { WebSocketMask.apply(key, to: UnsafeMutableBufferPointer(rebasing: $0[start...])) }
        } else {
            out.append(contentsOf: payload)
        }
        return out
    }
}

/// Close status codes (RFC 6455 §7.4.1).
package struct WebSocketCloseCode: Sendable, Hashable, RawRepresentable {
    package var rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    package static let normal = WebSocketCloseCode(rawValue: 1000)
    package static let goingAway = WebSocketCloseCode(rawValue: 1001)
    package static let protocolError = WebSocketCloseCode(rawValue: 1002)
    package static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    package static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
    package static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    package static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    package static let internalError = WebSocketCloseCode(rawValue: 1011)
}
