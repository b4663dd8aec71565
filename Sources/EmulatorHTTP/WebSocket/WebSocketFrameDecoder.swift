/// Splits a byte stream into WebSocket frames: a value-type state machine (RFC 6455 §5).
///
/// ```swift
/// var decoder = WebSocketFrameDecoder()          // server side: client frames must be masked
/// decoder.append([0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
/// decoder.next()  // .frame(fin: true, opcode: .text, payload: "Hello")
/// ```
package struct WebSocketFrameDecoder: Sendable {
    package enum Event: Sendable, Hashable {
        case frame(WebSocketFrame)
        /// The peer broke the protocol; close the connection with this code.
        case failure(WebSocketCloseCode)
    }

    /// Frames whose payload exceeds this fail with 1009 (message too big) before being buffered.
    package var maxFrameBytes: Int
    /// Server side: frames from the client must be masked (RFC 6455 §5.1).
    package var requireMasked: Bool

    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var failed = false

    package init(maxFrameBytes: Int = 16 * 1024 * 1024, requireMasked: Bool = true) {
        self.maxFrameBytes = maxFrameBytes
        self.requireMasked = requireMasked
    }

    package mutating func append(_ bytes: some Collection<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, a failure, or `nil` when more bytes are needed.
    package mutating func next() -> Event? {
        guard !failed else { return nil }
        let available = buffer.count - readIndex
        guard available >= 2 else { return nil }
        let b0 = buffer[readIndex]
        let b1 = buffer[readIndex + 1]
        guard b0 & 0x70 == 0 else { return fail(.protocolError) }  // no extensions negotiated
        guard let opcode = WebSocketFrame.Opcode(rawValue: b0 & 0x0F) else { return fail(.protocolError) }
        let fin = b0 & 0x80 != 0
        let masked = b1 & 0x80 != 0
        if requireMasked, !masked { return fail(.protocolError) }
        var headerLength = 2
        var length = UInt64(b1 & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[readIndex + 2]) << 8 | UInt64(buffer[readIndex + 3])
            headerLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for i in 2..<10 { length = length << 8 | UInt64(buffer[readIndex + i]) }
            guard length >> 63 == 0 else { return fail(.protocolError) }
            headerLength = 10
        }
        if opcode.isControl, !fin || length > 125 { return fail(.protocolError) }
        guard length <= UInt64(maxFrameBytes) else { return fail(.messageTooBig) }
        let payloadLength = Int(length)
        let maskLength = masked ? 4 : 0
        guard available >= headerLength + maskLength + payloadLength else { return nil }
        let maskStart = readIndex + headerLength
        let payloadStart = maskStart + maskLength
        var payload = Array(buffer[payloadStart..<(payloadStart + payloadLength)])
        if masked {
            let key = (buffer[maskStart], buffer[maskStart + 1], buffer[maskStart + 2], buffer[maskStart + 3])
            payload.withUnsafeMutableBufferPointer { WebSocketMask.apply(key, to: $0) }
        }
        readIndex = payloadStart + payloadLength
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex > 65536 {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
        return .frame(WebSocketFrame(fin: fin, opcode: opcode, payload: payload))
    }

    private mutating func fail(_ code: WebSocketCloseCode) -> Event {
        failed = true
        buffer = []
        readIndex = 0
        return .failure(code)
    }
}
