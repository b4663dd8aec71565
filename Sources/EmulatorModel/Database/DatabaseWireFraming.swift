/// How RTDB wire messages map onto WebSocket text frames (protocol v5): a message of at most
/// 16,384 bytes is one frame; a longer one is announced by a frame holding only the decimal piece
/// count, then sent in pieces of at most 16,384 bytes, cut between Unicode scalars. Clients send
/// the bare text `0` as a keep-alive. The emulator's WebSocket session and EmulatorClient's
/// connection both split their messages here.
///
/// ```swift
/// DatabaseWireFraming.frames(for: Array(#"{"t":"d","d":{"r":1,"b":{"s":"ok","d":""}}}"#.utf8))
/// // one frame: the message itself
/// ```
package enum DatabaseWireFraming {
    /// Largest frame payload either side sends (the Android client's default frame limit).
    package static let maxFrameBytes = 16_384

    /// The text frames that carry `message` (UTF-8 JSON).
    package static func frames(for message: [UInt8]) -> [[UInt8]] {
        if message.count <= maxFrameBytes { return [message] }
        var pieces: [[UInt8]] = []
        var start = 0
        while start < message.count {
            var end = min(start + maxFrameBytes, message.count)
            // Never cut inside a multi-byte scalar: back up over continuation bytes.
            while end < message.count && end > start && message[end] & 0xC0 == 0x80 { end -= 1 }
            pieces.append(Array(message[start..<end]))
            start = end
        }
        return [Array(String(pieces.count).utf8)] + pieces
    }
}
