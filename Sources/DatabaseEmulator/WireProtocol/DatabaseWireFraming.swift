/// How RTDB wire messages map onto WebSocket text frames (protocol v5): a message of at most
/// 16,384 bytes is one frame; a longer one is announced by a frame holding only the decimal piece
/// count, then sent in pieces of at most 16,384 bytes, cut between Unicode scalars. Clients send
/// the bare text `0` as a keep-alive.
///
/// ```swift
/// DatabaseWireFraming.frames(for: Array(#"{"t":"d","d":{"r":1,"b":{"s":"ok","d":""}}}"#.utf8))
/// // one frame: the message itself
/// ```
enum DatabaseWireFraming {
    /// Largest frame payload the server sends (the Android client's default frame limit).
    static let maxFrameBytes = 16_384
    /// Largest piece count a client can announce (iOS parses counts from frames of ≤ 4 chars).
    static let maxPieces = 9_999

    /// The text frames that carry `message` (UTF-8 JSON).
    static func frames(for message: [UInt8]) -> [[UInt8]] {
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

/// Reassembles client messages from text frames: a frame of at most six characters that is a
/// decimal number announces that many pieces (`0` is a keep-alive); any other frame is a whole
/// message, or the next piece of an announced one.
struct DatabaseWireFrameAssembler: Sendable {
    enum Output: Equatable, Sendable {
        /// A whole message (JSON text).
        case message(String)
        /// More pieces are expected.
        case incomplete
        /// The `0` keep-alive: nothing to do.
        case keepAlive
        /// The message grew past the limit.
        case tooLarge
    }

    private var remaining = 0
    private var buffer = ""
    let maxMessageBytes: Int

    init(maxMessageBytes: Int = 16 * 1024 * 1024) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Feeds one text frame.
    mutating func add(_ frame: String) -> Output {
        if remaining > 0 {
            buffer += frame
            if buffer.utf8.count > maxMessageBytes {
                remaining = 0
                buffer = ""
                return .tooLarge
            }
            remaining -= 1
            if remaining > 0 { return .incomplete }
            defer { buffer = "" }
            return .message(buffer)
        }
        if let count = Self.pieceCount(frame) {
            if count == 0 { return .keepAlive }
            remaining = count
            buffer = ""
            return .incomplete
        }
        return .message(frame)
    }

    /// The count a short all-digit frame announces.
    private static func pieceCount(_ frame: String) -> Int? {
        let bytes = frame.utf8
        guard !bytes.isEmpty, bytes.count <= 6, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(frame)
    }
}
