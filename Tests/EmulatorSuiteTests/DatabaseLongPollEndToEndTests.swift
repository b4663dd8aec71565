import Dispatch
import EmulatorSupport
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
            text.split(separator: "\n").flatMap { line -> [String] in
                guard let open = line.range(of: "JSON.parse("), let close = line.range(of: "));})();", options: .backwards),
                    let json = LongPollLiteral.unquote(String(line[open.upperBound..<close.lowerBound])),
                    case .array(let items)? = try? JSONReader.parse(json)
                else { return [] }
                return items.map { JSONWriter.encodeToString($0) }
            }
        }
    }

    static func request(_ r: Int, _ action: String, _ body: String) -> String {
        #"{"t":"d","d":{"r":\#(r),"a":"\#(action)","b":\#(body)}}"#
    }

    static func reply(_ r: Int, _ status: String = "ok", _ data: String = #""""#) -> String {
        #"{"t":"d","d":{"r":\#(r),"b":{"s":"\#(status)","d":\#(data)}}}"#
    }

    @Test func aLongPollSessionThenItsUpgradeToAWebSocket() throws {
        let suite = try Suite.start(.ephemeral(projectId: "demo-lp", kinds: [.database]), console: CapturedOutput().console)
        defer { suite.shutdown() }
        let port = try #require(suite.port(of: .database))
        #expect(try Self.rest(port, "PUT", "/.json", #"{"room":{"title":"Lobby"}}"#).status == 200)

        let poller = try Poller(port: port)
        #expect(poller.hello.hasPrefix(#"{"t":"c","d":{"t":"h","d":{"ts":"#))
        #expect(poller.hello.contains(#""h":"127.0.0.1:\#(port)""#))
        #expect(
            try poller.poll([Self.request(1, "s", #"{"c":{"sdk.js.10-12-2":1}}"#), Self.request(2, "q", #"{"p":"/room","h":""}"#)]).messages
                == [Self.reply(1), #"{"t":"d","d":{"a":"d","b":{"p":"room","d":{"title":"Lobby"}}}}"#, Self.reply(2, "ok", "{}")])
        #expect(try poller.poll([Self.request(3, "o", #"{"p":"/presence/lp","d":"left"}"#)]).messages == [Self.reply(3)])

        // A held poll, answered by another client's write.
        let held = Mutex<[String]?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let messages = try? poller.poll().messages
            held.withLock { $0 = messages }
            done.signal()
        }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(try Self.rest(port, "PUT", "/room/title.json", #""Hall""#).status == 200)
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(held.withLock { $0 } == [#"{"t":"d","d":{"a":"d","b":{"p":"room/title","d":"Hall"}}}"#])

        // The disconnect frame's page names the connection.
        let frame = try Self.get(port, "/.lp?dframe=t&id=\(poller.id)&pw=\(poller.password)&ns=\(Self.ns)")
        #expect(frame.text.contains("/.lp?disconn=t&id=\(poller.id)&pw=\(poller.password)"))

        // The upgrade: the socket names the session of the hello.
        let session = try #require(JSONReader.parse(poller.hello)[member: "d"]?[member: "d"]?[member: "s"])
        guard case .string(let sessionID) = session else { Issue.record("no session id"); return }
        let socket = try #require(WireSocketClient(port: port, target: "/.ws?v=5&s=\(sessionID)&ns=\(Self.ns)"))
        #expect(socket.nextMessage() == #"{"t":"c","d":{"t":"a","d":{}}}"#)
        for _ in 0..<2 {
            socket.send(#"{"t":"c","d":{"t":"p","d":{}}}"#)
            #expect(socket.nextMessage() == #"{"t":"c","d":{"t":"o","d":{}}}"#)
        }
        socket.send(#"{"t":"c","d":{"t":"a","d":{}}}"#)
        // The client switched to sending on the socket: this waits for the end of long-polling.
        socket.send(Self.request(4, "p", #"{"p":"/room/n","d":4}"#))
        #expect(socket.isQuiet())
        let last = try poller.poll([#"{"t":"c","d":{"t":"n","d":{}}}"#])
        #expect(last.messages == [#"{"t":"c","d":{"t":"n","d":{}}}"#])
        #expect(last.text.contains(#"f("close","#))
        // The write that waited, its push and everything after, on the socket.
        #expect(socket.messages(2) == [#"{"t":"d","d":{"a":"d","b":{"p":"room/n","d":4}}}"#, Self.reply(4)])
        socket.send(Self.request(5, "g", #"{"p":"/room/title","q":{}}"#))
        #expect(socket.nextMessage() == Self.reply(5, "ok", #""Hall""#))
        // Long-polling is over; its disconnect frame no longer ends anything.
        _ = try? Self.get(port, "/.lp?disconn=t&id=\(poller.id)&pw=\(poller.password)")
        #expect(try Self.rest(port, "GET", "/presence/lp.json").text == "null")
        #expect(try Self.rest(port, "PUT", "/room/title.json", #""Gym""#).status == 200)
        #expect(socket.nextMessage() == #"{"t":"d","d":{"a":"d","b":{"p":"room/title","d":"Gym"}}}"#)

        // The socket drops: the onDisconnect queued over long-polling runs.
        socket.drop()
        #expect(RulesEndToEndTests.eventually { (try? Self.rest(port, "GET", "/presence/lp.json"))?.text == #""left""# })
    }

    @Test func theDisconnectFrameRunsOnDisconnect() throws {
        let suite = try Suite.start(.ephemeral(projectId: "demo-lp", kinds: [.database]), console: CapturedOutput().console)
        defer { suite.shutdown() }
        let port = try #require(suite.port(of: .database))
        let poller = try Poller(port: port)
        #expect(try poller.poll([Self.request(1, "o", #"{"p":"/presence/x","d":true}"#)]).messages == [Self.reply(1)])
        let gone = try LoopbackHTTPClient.send(
            .init(method: "POST", host: "127.0.0.1", port: port, path: "/.lp?disconn=t&id=\(poller.id)&pw=\(poller.password)", timeout: .seconds(5)))
        #expect(gone.status == 200)
        #expect(try Self.rest(port, "GET", "/presence/x.json").text == "true")
        #expect(try poller.poll().text.contains("Unknown or expired long-poll connection"))
    }
}

/// Reads the JavaScript string literals of long-poll answers.
enum LongPollLiteral {
    static func unquote(_ literal: String) -> String? {
        var scalars = Array(literal.unicodeScalars)
        guard scalars.count >= 2, scalars.first == "\"", scalars.last == "\"" else { return nil }
        scalars = Array(scalars.dropFirst().dropLast())
        var out = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            guard scalars[i] == "\\", i + 1 < scalars.count else {
                out.append(scalars[i])
                i += 1
                continue
            }
            switch scalars[i + 1] {
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "u":
                guard i + 5 < scalars.count,
                    let v = UInt32(String(String.UnicodeScalarView(scalars[(i + 2)...(i + 5)])), radix: 16),
                    let scalar = Unicode.Scalar(v)
                else { return nil }
                out.append(scalar)
                i += 4
            default: out.append(scalars[i + 1])
            }
            i += 2
        }
        return String(out)
    }
}
