import EmulatorModel

/// How Realtime Database wire messages (protocol v5) travel as WebSocket text frames: a message of
/// at most 16,384 bytes is one frame; a longer one is announced by a frame holding only the decimal
/// piece count, then sent in pieces of at most 16,384 bytes cut between Unicode scalars. The bare
/// text `0` is the client's keep-alive.
///
/// ```swift
/// WireFraming.frames(for: String(repeating: "x", count: 20_000))  // ["2", <16384 x>, <3616 x>]
/// ```
enum WireFraming {
    /// The keep-alive frame, sent after 45 s without traffic.
    static let keepAlive = "0"

    /// The text frames that carry `message` (split as `DatabaseWireFraming` does for the server).
    static func frames(for message: String) -> [String] {
        DatabaseWireFraming.frames(for: Array(message.utf8)).map { String(decoding: $0, as: UTF8.self) }
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
