import Dispatch
import EmulatorSupport
import EmulatorTestSupport
import Foundation
import Synchronization
import Testing

@testable import EmulatorSuite

/// RTDB long-polling over loopback as the JS SDK's BrowserPollConnection runs it: start, polls
/// carrying base64 segments, a held poll answered by another client's write, the disconnect frame,
/// and the upgrade to a WebSocket (the SDK's Connection.ts: `a` on the socket, two ping/pong
/// rounds, `n` on long-polling, then everything on the socket, onDisconnect when it drops).
@Suite("Database long-polling end to end")
struct DatabaseLongPollEndToEndTests {
    static let ns = "demo-lp"

    static func get(_ port: Int, _ path: String, timeout: Duration = .seconds(5)) throws -> LoopbackHTTPClient.Reply {
        try LoopbackHTTPClient.send(.init(method: "GET", host: "127.0.0.1", port: port, path: path, timeout: timeout))
    }

    static func rest(_ port: Int, _ method: String, _ path: String, _ body: String = "") throws -> LoopbackHTTPClient.Reply {
        try LoopbackHTTPClient.send(
            .init(
                method: method, host: "127.0.0.1", port: port, path: path + "?ns=\(ns)",
                headers: [("Authorization", "Bearer owner")], body: Array(body.utf8), timeout: .seconds(5)))
    }

    /// A long-poll client: the id and password from `start`, segment numbers counted on.
    final class Poller: Sendable {
        let port: Int
        let id: String
        let password: String
        let hello: String
        private let segment = Mutex(0)

        init(port: Int) throws {
            self.port = port
            let start = try DatabaseLongPollEndToEndTests.get(port, "/.lp?start=t&ser=1&cb=9&v=5&ns=\(DatabaseLongPollEndToEndTests.ns)")
            let text = start.text
            let command = try #require(text.split(separator: "\n").first)
            let quoted = command.split(separator: "\"").map(String.init)
            // (function(){var f=parent.window["pLPCommand9"];if(f)f("start","<id>","<pw>");})();
            let startAt = try #require(quoted.firstIndex(of: "start"))
            id = quoted[startAt + 2]
            password = quoted[startAt + 4]
            hello = try #require(Self.messages(text).first)
        }

        /// Sends `messages` on one poll and returns the messages of its answer (waiting up to
        /// `timeout` for a held poll).
        func poll(_ messages: [String] = [], timeout: Duration = .seconds(5)) throws -> (messages: [String], text: String) {
            var target = "/.lp?id=\(id)&pw=\(password)&ser=2&ns=\(DatabaseLongPollEndToEndTests.ns)"
            segment.withLock { next in
                for (i, message) in messages.enumerated() {
                    let base64 = Base64.encode(Array(message.utf8), alphabet: .urlSafe, padding: true).map { $0 == "=" ? "." : $0 }
                    target += "&seg\(i)=\(next)&ts\(i)=1&d\(i)=\(String(base64))"
                    next += 1
                }
            }
            let reply = try DatabaseLongPollEndToEndTests.get(port, target, timeout: timeout)
            return (Self.messages(reply.text), reply.text)
        }

        /// The messages of every `pRTLPCB` call in an answer.
        static func messages(_ text: String) -> [String] {
            LongPollScriptReader.packets(text).flatMap(\.messages)
        }
    }
}
