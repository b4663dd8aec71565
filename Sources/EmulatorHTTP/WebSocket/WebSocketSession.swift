import Synchronization

/// A server-side WebSocket connection: decodes frames, reassembles messages, answers pings and the
/// close handshake, and sends text or binary messages. Plug it into ``WebSocketHandshake/upgrade``.
///
/// Callbacks run on the connection's event-loop thread, one at a time; `send` and `close` are safe
/// from any thread.
package final class WebSocketSession: UpgradedConnectionHandler {
    private struct State {
        var decoder: WebSocketFrameDecoder
        var assembler: WebSocketMessageAssembler
        var closeSent = false
    }

    private let writer: any UpgradedConnectionWriter
    private let state: Mutex<State>
    private let onText: @Sendable (WebSocketSession, String) -> Void
    private let onBinary: @Sendable (WebSocketSession, [UInt8]) -> Void
    private let onClose: @Sendable (WebSocketSession) -> Void

    package init(
        writer: any UpgradedConnectionWriter,
        maxMessageBytes: Int = 16 * 1024 * 1024,
        onText: @escaping @Sendable (WebSocketSession, String) -> Void = { _, _ in },
        onBinary: @escaping @Sendable (WebSocketSession, [UInt8]) -> Void = { _, _ in },
        onClose: @escaping @Sendable (WebSocketSession) -> Void = { _ in }
    ) {
        self.writer = writer
        self.state = Mutex(
            State(
                decoder: WebSocketFrameDecoder(maxFrameBytes: maxMessageBytes),
                assembler: WebSocketMessageAssembler(maxMessageBytes: maxMessageBytes)))
        self.onText = onText
        self.onBinary = onBinary
        self.onClose = onClose
    }

    /// Whether the connection is open and no close frame has been sent.
    package var isOpen: Bool { writer.isOpen && !state.withLock { $0.closeSent } }

    /// Sends a text message. Returns `false` once closed.
    @discardableResult
    package func send(text: String) -> Bool {
        send(WebSocketFrame(opcode: .text, payload: Array(text.utf8)))
    }

    /// Sends a binary message. Returns `false` once closed.
    @discardableResult
    package func send(binary: [UInt8]) -> Bool {
        send(WebSocketFrame(opcode: .binary, payload: binary))
    }

    /// Sends a close frame and closes the connection.
    package func close(code: WebSocketCloseCode = .normal, reason: String = "") {
        let first = state.withLock { state -> Bool in
            defer { state.closeSent = true }
            return !state.closeSent
        }
        guard first else { return }
        var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        payload.append(contentsOf: reason.utf8.prefix(123))
        writer.write(WebSocketFrame(opcode: .close, payload: payload).encoded())
        writer.close()
    }

    // MARK: - UpgradedConnectionHandler

    package func received(_ bytes: [UInt8]) {
        var messages: [WebSocketMessage] = []
        var failure: WebSocketCloseCode?
        state.withLock { state in
            state.decoder.append(bytes)
            decoding: while let event = state.decoder.next() {
                switch event {
                case .failure(let code):
                    failure = code
                    break decoding
                case .frame(let frame):
                    switch state.assembler.add(frame) {
                    case .incomplete: continue
                    case .message(let message): messages.append(message)
                    case .failure(let code):
                        failure = code
                        break decoding
                    }
                }
            }
        }
        for message in messages {
            switch message {
            case .text(let text): onText(self, text)
            case .binary(let bytes): onBinary(self, bytes)
            case .ping(let payload): send(WebSocketFrame(opcode: .pong, payload: payload))
            case .pong: break
            case .close(let code, _):
                close(code: code ?? .normal)
                return
            }
        }
        if let failure { close(code: failure) }
    }

    package func closed() {
        onClose(self)
    }

    @discardableResult
    private func send(_ frame: WebSocketFrame) -> Bool {
        guard !state.withLock({ $0.closeSent }) else { return false }
        return writer.write(frame.encoded())
    }
}
