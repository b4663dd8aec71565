import EmulatorHTTP
import EmulatorModel
import EmulatorSupport
import Synchronization

/// One long-poll connection: the second framing of a ``DatabaseWireSession``.
///
/// Client messages arrive as base64 segments on polls (reassembled in segment order) and go to
/// the wire session whole; the wire session's messages go to the ``DatabaseLongPollOutbox``,
/// which packs them into the answers to polls. The connection may move to a WebSocket (the SDK's
/// upgrade): the socket attaches, the client's end-of-transmission message on long-polling
/// switches the outbox to the socket, and the wire session lives on there.
///
/// Input from both transports passes one lock (`input`), held while the wire session handles a
/// message, so messages reach it in the client's order. Lock order: `input` → the wire session's
/// and storage locks → the outbox's.
final class DatabaseLongPollSession: Sendable {
    let id: String
    let password: String
    let wire: DatabaseWireSession
    let outbox: DatabaseLongPollOutbox
    private let input: Mutex<Input>

    struct Input: Sendable {
        var assembler: DatabaseLongPollAssembler
        /// The WebSocket of an upgrade in progress (or done).
        var socket: DatabaseLongPollUpgradeSocket?
        /// Messages the socket received before long-polling ended (the client switched to
        /// sending there, so they follow everything long-polling carried).
        var early: [String] = []
        var earlyBytes = 0
        var switched = false
        var ended = false
    }

    /// Messages a socket may receive before the switch.
    static let maxEarlyBytes = 16 * 1024 * 1024

    init(
        id: String, password: String, outbox: DatabaseLongPollOutbox, limits: DatabaseLongPollAssembler.Limits,
        wire: DatabaseWireSession
    ) {
        self.id = id
        self.password = password
        self.outbox = outbox
        self.wire = wire
        input = Mutex(Input(assembler: DatabaseLongPollAssembler(limits: limits)))
    }

    /// The segments of one poll: whole messages go to the wire session in order. Segments that
    /// cannot be reassembled end the connection with an error packet and a close; the caller
    /// then ends the session.
    /// - Returns: false when the connection failed.
    func receive(_ segments: [DatabaseLongPollSegment]) -> Bool {
        guard !segments.isEmpty else { return true }
        return input.withLock { s -> Bool in
            guard !s.ended else { return true }
            let messages: [String]
            do throws(DatabaseLongPollAssembler.Failure) {
                messages = try s.assembler.add(segments)
            } catch {
                outbox.close(error: error.message)
                return false
            }
            for message in messages {
                if Self.isEndOfTransmission(message) {
                    switchToSocket(&s)
                } else if !s.switched {
                    wire.receive(message: message)
                }
            }
            return true
        }
    }

    // MARK: Upgrade

    /// Attaches the upgrade's WebSocket. False when the connection ended or has one already.
    func attach(_ socket: DatabaseLongPollUpgradeSocket) -> Bool {
        input.withLock { s in
            guard !s.ended, s.socket == nil else { return false }
            s.socket = socket
            return true
        }
    }

    /// What became of a message from the upgrade's WebSocket.
    enum SocketInput: Equatable, Sendable {
        case accepted
        /// More than ``maxEarlyBytes`` arrived before the switch.
        case tooLarge
        /// The socket is not (or no longer) this connection's.
        case refused
    }

    /// A whole data message from the upgrade's WebSocket `socket`: before the switch it waits
    /// for long-polling to end, after it goes to the wire session.
    func receive(_ message: String, from socket: DatabaseLongPollUpgradeSocket) -> SocketInput {
        input.withLock { s in
            guard s.socket === socket, !s.ended || s.switched else { return .refused }
            if s.switched {
                wire.receive(message: message)
                return .accepted
            }
            s.earlyBytes += message.utf8.count
            guard s.earlyBytes <= Self.maxEarlyBytes else { return .tooLarge }
            s.early.append(message)
            return .accepted
        }
    }

    /// The upgrade's WebSocket closed. Returns true when the wire session lived there (the caller
    /// then ends it: onDisconnect operations run); before the switch long-polling goes on.
    func socketClosed(_ socket: DatabaseLongPollUpgradeSocket) -> Bool {
        input.withLock { s in
            guard s.socket === socket else { return false }
            if s.switched { return true }
            s.socket = nil
            s.early = []
            s.earlyBytes = 0
            return false
        }
    }

    /// Whether the wire session moved to the WebSocket.
    var isSwitched: Bool { input.withLock { $0.switched } }

    /// Marks the long-poll side ended (nothing more is accepted from polls); returns the socket of
    /// an unfinished upgrade, which the caller closes.
    func end() -> DatabaseLongPollUpgradeSocket? {
        input.withLock { s in
            s.ended = true
            guard !s.switched else { return nil }
            defer { s.socket = nil }
            return s.socket
        }
    }

    /// The client's end-of-transmission on long-polling: it now sends and listens on the socket.
    /// Without a socket (it closed meanwhile) the message is ignored; the client notices its
    /// socket is gone and reconnects.
    private func switchToSocket(_ s: inout Input) {
        guard let socket = s.socket, !s.switched else { return }
        s.switched = true
        outbox.switchToWebSocket { message in socket.send(message) }
        let early = s.early
        s.early = []
        s.earlyBytes = 0
        for message in early { wire.receive(message: message) }
    }

    /// `{"t":"c","d":{"t":"n",…}}`, the client's end of transmission (its only control message
    /// besides pings, which the wire session answers).
    static func isEndOfTransmission(_ text: String) -> Bool {
        guard text.utf8.starts(with: #"{"t":"c""#.utf8), case .control(type: "n", _)? = DatabaseWireMessage.decode(text) else {
            return false
        }
        return true
    }
}

/// The WebSocket the SDK opens to upgrade a long-poll connection (`/.ws?v=5&s=<session>`): it
/// answers the SDK's health pings itself, and frames what the wire session sends once the
/// connection switched.
final class DatabaseLongPollUpgradeSocket: Sendable {
    private let writer: any UpgradedConnectionWriter
    private let assembler = Mutex(DatabaseWireFrameAssembler())

    init(writer: any UpgradedConnectionWriter) {
        self.writer = writer
    }

    /// `{"t":"c","d":{"t":"a","d":{}}}`: the server takes the upgrade; the SDK starts pinging.
    static let accept = Array(#"{"t":"c","d":{"t":"a","d":{}}}"#.utf8)
    static let pong = DatabaseWireReply.pong.bytes

    /// Sends one message, cut into frames as over `/.ws`.
    func send(_ message: [UInt8]) {
        var bytes: [UInt8] = []
        for frame in DatabaseWireFraming.frames(for: message) {
            bytes.append(contentsOf: WebSocketFrame(opcode: .text, payload: frame).encoded())
        }
        writer.write(bytes)
    }

    /// One text frame: a ping gets a pong here, the client's switch acknowledgement needs
    /// nothing, data messages go to `deliver`.
    func received(frame: String, deliver: (String) -> DatabaseLongPollSession.SocketInput) -> DatabaseLongPollSession.SocketInput {
        let assembled = assembler.withLock { $0.add(frame) }
        switch assembled {
        case .incomplete, .keepAlive: return .accepted
        case .tooLarge: return .tooLarge
        case .message(let text):
            if text.utf8.starts(with: #"{"t":"c""#.utf8) {
                if case .control(type: "p", _)? = DatabaseWireMessage.decode(text) { send(Self.pong) }
                return .accepted
            }
            return deliver(text)
        }
    }

    func close() { writer.close() }
}
