/// How Realtime Database wire messages (protocol v5) travel as WebSocket text frames: a message of
/// at most 16,384 bytes is one frame; a longer one is announced by a frame holding only the decimal
/// piece count, then sent in pieces of at most 16,384 bytes cut between Unicode scalars. The bare
/// text `0` is the client's keep-alive.
///
/// ```swift
/// WireFraming.frames(for: String(repeating: "x", count: 20_000))  // ["2", <16384 x>, <3616 x>]
/// ```
enum WireFraming {
    /// Largest frame the client sends.
    static let maxFrameBytes = 16_384
    /// The keep-alive frame, sent after 45 s without traffic.
    static let keepAlive = "0"

    /// The text frames that carry `message`.
    static func frames(for message: String) -> [String] {
        let bytes = Array(message.utf8)
        if bytes.count <= maxFrameBytes { return [message] }
        var pieces: [String] = []
        var start = 0
        while start < bytes.count {
            var end = min(start + maxFrameBytes, bytes.count)
            while end < bytes.count && end > start && bytes[end] & 0xC0 == 0x80 { end -= 1 }
            pieces.append(String(decoding: bytes[start..<end], as: UTF8.self))
            start = end
        }
        return [String(pieces.count)] + pieces
    }
}

/// Joins the server's frames into messages: a frame of at most four digits announces that many
/// pieces (as the iOS SDK reads it); any other frame is a whole message or the next piece.
struct WireFrameJoiner: Sendable {
    private var remaining = 0
    private var buffer = ""
    /// Largest message accepted.
    let maxMessageBytes: Int

    init(maxMessageBytes: Int = 64 * 1024 * 1024) { self.maxMessageBytes = maxMessageBytes }

    /// Feeds one frame; a whole message when one is complete, nil while pieces are missing or
    /// for an empty count. A message over the limit is dropped.
    mutating func add(_ frame: String) -> String? {
        if remaining > 0 {
            buffer += frame
            remaining -= 1
            if buffer.utf8.count > maxMessageBytes {
                remaining = 0
                buffer = ""
                return nil
            }
            guard remaining == 0 else { return nil }
            defer { buffer = "" }
            return buffer
        }
        let utf8 = frame.utf8
        if !utf8.isEmpty, utf8.count <= 4, utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let count = Int(frame) {
            remaining = count
            buffer = ""
            return nil
        }
        return frame
    }
}
