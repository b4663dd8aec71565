@testable import EmulatorClient

/// The library's WebSocket client (`EmulatorClient.WebSocketClient`: handshake with a checked
/// `Sec-WebSocket-Accept`, masked frames out, strict frame decoding in) driven message by message
/// for protocol tests: server pieces announced by a count frame are joined with the library's
/// `WireFrameJoiner`, and every wait is bounded (5 s).
final class WireSocketClient {
    private let socket: WebSocketClient
    private var joiner = WireFrameJoiner()

    /// Connects and completes the opening handshake for `target`; nil when either fails.
    init?(port: Int, target: String, host: String = "127.0.0.1") {
        guard let socket = try? WebSocketClient(host: host, port: port, target: target, receiveTimeoutSeconds: 5) else {
            return nil
        }
        self.socket = socket
    }

    deinit { socket.abort() }

    /// Sends `text` as one masked text frame, exactly as given (no splitting).
    func send(_ text: String) {
        try? socket.send(text: text)
    }

    /// The next whole message (pieces announced by a count frame are joined); nil on timeout or close.
    func nextMessage() -> String? {
        while case .text(let frame) = socket.receive() {
            if let message = joiner.add(frame) { return message }
        }
        return nil
    }

    /// The next `n` messages.
    func messages(_ n: Int) -> [String] {
        (0..<n).compactMap { _ in nextMessage() }
    }

    /// Whether nothing arrives within `milliseconds`.
    func isQuiet(milliseconds: Int = 200) -> Bool {
        socket.setReceiveTimeout(milliseconds: milliseconds)
        defer { socket.setReceiveTimeout(milliseconds: 5_000) }
        return socket.receive() == .timeout
    }

    /// Closes the TCP connection without a close frame (an abrupt disconnect).
    func drop() { socket.abort() }
}
