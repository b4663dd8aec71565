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
