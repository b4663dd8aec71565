#if canImport(Glibc)
import Glibc
#endif
import EmulatorHTTP
import EmulatorSupport
import Synchronization

/// A blocking WebSocket client connection (RFC 6455): the opening handshake with a random
/// `Sec-WebSocket-Key` checked against the server's `Sec-WebSocket-Accept`, masked text frames out,
/// text messages in. Pings are answered and a close frame is echoed.
///
/// ```swift
/// let socket = try WebSocketClient(host: "127.0.0.1", port: 9000, target: "/.ws?v=5&ns=demo")
/// try socket.send(text: #"{"t":"c","d":{"t":"p","d":{}}}"#)
/// if case .text(let reply) = socket.receive() { print(reply) }
/// ```
final class WebSocketClient: @unchecked Sendable {
    // Safe: `connection` is set once in init; every write goes through `writeLock`; the decoding
    // state (`decoder`, `assembler`, `scratch`) is touched only by `receive()`, which one reader
    // thread calls; `abort()`/`close()` use shutdown(2), which any thread may call.

    /// What `receive()` saw.
    enum Event: Sendable, Equatable {
        case text(String)
        /// Nothing arrived within the receive timeout.
        case timeout
        /// The connection ended (close frame, peer closed, or a failure), with the reason.
        case closed(String)
    }

    private let connection: HTTPConnection
    private let writeLock = Mutex(false)
    private var decoder = WebSocketFrameDecoder(requireMasked: false)
    private var assembler = WebSocketMessageAssembler()
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    /// Connects and completes the opening handshake; `receiveTimeoutSeconds` bounds each `receive()`.
    init(
        host: String, port: Int, target: String, headers: [(String, String)] = [], receiveTimeoutSeconds: Int = 45
    ) throws(ClientTransportError) {
        connection = try HTTPConnection(host: host, port: port, timeoutSeconds: 10)
        var generator = SystemRandomNumberGenerator()
        let key = Base64.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        var head = "GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try connection.send(Array((head + "\r\n").utf8))
        var buffer: [UInt8] = []
        let end: [UInt8] = [13, 10, 13, 10]
        while true {
            if let range = buffer.firstRange(of: end) {
                try Self.checkResponse(String(decoding: buffer[..<range.lowerBound], as: UTF8.self), key: key)
                decoder.append(buffer[range.upperBound...])
                break
            }
            guard buffer.count < 64 * 1024 else { throw ClientTransportError("WebSocket handshake response too large") }
            let bytes = try connection.receiveBytes(scratch: &scratch)
            if bytes.isEmpty { throw ClientTransportError("connection closed during the WebSocket handshake") }
            buffer.append(contentsOf: bytes)
        }
        connection.setReceiveTimeout(milliseconds: receiveTimeoutSeconds * 1000)
    }

    private static func checkResponse(_ head: String, key: String) throws(ClientTransportError) {
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        guard let status = lines.first, status.hasPrefix("HTTP/1.1 101") else {
            throw ClientTransportError("WebSocket upgrade refused: \(lines.first.map(String.init) ?? "no status")")
        }
        var accept: String?
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == "sec-websocket-accept" {
                accept = String(line[line.index(after: colon)...]).trimmingCharactersSpace()
            }
        }
        guard accept == WebSocketHandshake.acceptValue(forKey: key) else {
            throw ClientTransportError("WebSocket upgrade with a wrong Sec-WebSocket-Accept")
        }
    }

    /// Sends one text frame, masked with a fresh key.
    func send(text: String) throws(ClientTransportError) {
        try write(WebSocketFrame(opcode: .text, payload: Array(text.utf8)))
    }

    private func write(_ frame: WebSocketFrame) throws(ClientTransportError) {
        var generator = SystemRandomNumberGenerator()
        let mask = generator.next() as UInt32
        let bytes = frame.encoded(
            maskingKey: (UInt8(truncatingIfNeeded: mask >> 24), UInt8(truncatingIfNeeded: mask >> 16),
                         UInt8(truncatingIfNeeded: mask >> 8), UInt8(truncatingIfNeeded: mask)))
        let result = writeLock.withLock { closed -> Result<Void, ClientTransportError> in
            if closed { return .failure(ClientTransportError("the WebSocket is closed")) }
            do throws(ClientTransportError) {
                try connection.send(bytes)
                if frame.opcode == .close { closed = true }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Changes how long each later `receive()` waits for bytes before it returns `.timeout`
    /// (set at first by `receiveTimeoutSeconds`). Any thread may call it (setsockopt(2)).
    func setReceiveTimeout(milliseconds: Int) {
        connection.setReceiveTimeout(milliseconds: milliseconds)
    }

    /// The next text message, a timeout, or the end of the connection.
    func receive() -> Event {
        while true {
            while let event = decoder.next() {
                switch event {
                case .failure(let code):
                    abort()
                    return .closed("WebSocket protocol error \(code.rawValue)")
                case .frame(let frame):
                    switch assembler.add(frame) {
                    case .incomplete: continue
                    case .failure(let code):
                        abort()
                        return .closed("WebSocket protocol error \(code.rawValue)")
                    case .message(.text(let text)): return .text(text)
                    case .message(.ping(let payload)): try? write(WebSocketFrame(opcode: .pong, payload: payload))
                    case .message(.pong), .message(.binary): continue
                    case .message(.close(let code, let reason)):
                        close(code: code ?? .normal)
                        return .closed(reason.isEmpty ? "the server closed the WebSocket" : reason)
                    }
                }
            }
            let bytes: ArraySlice<UInt8>
            do throws(ClientTransportError) {
                bytes = try connection.receiveBytes(scratch: &scratch)
            } catch {
                if error.isTimeout { return .timeout }
                return .closed(error.description)
            }
            if bytes.isEmpty { return .closed("the connection closed") }
            decoder.append(bytes)
        }
    }

    /// Sends a close frame (once) and shuts the socket down; a blocked `receive()` returns `.closed`.
    func close(code: WebSocketCloseCode = .normal) {
        let payload: [UInt8] = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        try? write(WebSocketFrame(opcode: .close, payload: payload))
        abort()
    }

    /// Drops the connection without a close frame, as a crash or a network loss would.
    func abort() {
        writeLock.withLock { $0 = true }
        connection.shutdownAndClose()
    }
}
