import EmulatorSupport
import Synchronization

@testable import DatabaseEmulator

/// A wire-protocol session driven without sockets: frames in, the server's messages collected as text.
final class WireSessionProbe: Sendable {
    let session: DatabaseWireSession
    private let sent: Outbox

    /// The server's messages, appended from whichever thread sends them.
    final class Outbox: Sendable {
        let messages = Mutex<[String]>([])
    }

    init(_ db: DatabaseTestClient, namespace: String = "w", host: String = "127.0.0.1:9000", start: Bool = true) {
        let sent = Outbox()
        self.sent = sent
        session = db.emulator.wireSession(namespace: namespace, host: host, sessionID: "sess-1") { bytes in
            sent.messages.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
        }
        db.emulator.wireSessions.add(session)
        if start {
            session.start()
            _ = take()
        }
    }

    /// Sends one frame (a whole message, a piece count, a piece, or `0`).
    func send(_ frame: String) { session.receive(frame: frame) }

    /// A data request `{"t":"d","d":{"r":r,"a":action,"b":body}}`.
    func request(_ r: Int, _ action: String, _ body: String) {
        send(#"{"t":"d","d":{"r":\#(r),"a":"\#(action)","b":\#(body)}}"#)
    }

    /// Everything the server sent since the last call.
    func take() -> [String] {
        sent.messages.withLock { messages in
            defer { messages.removeAll() }
            return messages
        }
    }

    /// The answer to request `r` with `status` and `data` (JSON text).
    static func reply(_ r: Int, _ status: String = "ok", _ data: String = #""""#) -> String {
        #"{"t":"d","d":{"r":\#(r),"b":{"s":"\#(status)","d":\#(data)}}}"#
    }

    /// A push `{"a":action,"b":{"p":path,"d":data[,"t":tag]}}`.
    static func push(_ action: String, _ path: String, _ data: String, tag: Int? = nil) -> String {
        let t = tag.map { #","t":\#($0)"# } ?? ""
        return #"{"t":"d","d":{"a":"\#(action)","b":{"p":"\#(path)","d":\#(data)\#(t)}}}"#
    }
}
