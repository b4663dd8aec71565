#if canImport(Glibc)
import Glibc
#endif
import EmulatorSupport
import Testing
@testable import EmulatorSuite

/// The RTDB WebSocket protocol over loopback: a session as the JS SDK runs it (hello, `s`, `auth`,
/// listens `q`/`n`, `p` writes and their `d`/`m` pushes, a hash-checked `p` (transaction), `o`
/// onDisconnect, `g`, ping; the JS SDK's packages/database/src/realtime/Connection.ts and
/// core/PersistentConnection.ts) against a running suite, checked message by message.
@Suite("Database WebSocket end to end")
struct DatabaseWebSocketEndToEndTests {
    static let ns = "demo-proj"

    static func rest(_ port: Int, _ method: String, _ path: String, _ body: String = "") throws -> LoopbackHTTPClient.Reply {
        try LoopbackHTTPClient.send(
            .init(
                method: method, host: "127.0.0.1", port: port, path: path + (path.contains("?") ? "&" : "?") + "ns=\(ns)",
                headers: [("Authorization", "Bearer owner")], body: Array(body.utf8), timeout: .seconds(5)))
    }

    static func reply(_ r: Int, _ status: String = "ok", _ data: String = #""""#) -> String {
        #"{"t":"d","d":{"r":\#(r),"b":{"s":"\#(status)","d":\#(data)}}}"#
    }

    static func request(_ r: Int, _ action: String, _ body: String) -> String {
        #"{"t":"d","d":{"r":\#(r),"a":"\#(action)","b":\#(body)}}"#
    }

    @Test func sampleSessionOfTheJSClient() throws {
        let suite = try Suite.start(.ephemeral(projectId: "demo-ws", kinds: [.database]), console: CapturedOutput().console)
        defer { suite.shutdown() }
        let port = try #require(suite.port(of: .database))
        #expect(try Self.rest(port, "PUT", "/.json", #"{"rooms":{"r1":{"title":"Lobby"}},"msgs":{"m7":{"ts":7},"m8":{"ts":8},"m9":{"ts":9}},"config":{"theme":"dark"},"count":41,"presence":{"alice":true}}"#).status == 200)

        let client = try #require(WireSocketClient(port: port, target: "/.ws?v=5&ns=\(Self.ns)"))
        let hello = try JSONReader.parse(try #require(client.nextMessage()))
        #expect(hello[member: "t"] == .string("c"))
        let handshake = try #require(hello[member: "d"])
        #expect(handshake[member: "t"] == .string("h"))
        #expect(handshake[member: "d"]?[member: "v"] == .string("5"))
        #expect(handshake[member: "d"]?[member: "h"] == .string("127.0.0.1:\(port)"))
        if case .int(let ts)? = handshake[member: "d"]?[member: "ts"] { #expect(ts > 1_600_000_000_000) } else { Issue.record("no ts") }

        client.send(Self.request(1, "s", #"{"c":{"sdk.js.10-14-0":1}}"#))
        // {"alg":"none","type":"JWT"} . {"sub":"alice","user_id":"alice"} . (no signature)
        let token = "eyJhbGciOiJub25lIiwidHlwZSI6IkpXVCJ9.eyJzdWIiOiJhbGljZSIsInVzZXJfaWQiOiJhbGljZSJ9."
        client.send(Self.request(2, "auth", #"{"cred":"\#(token)"}"#))
        let authReplies = client.messages(2)
        #expect(authReplies.first == Self.reply(1))
        #expect(authReplies.last?.hasPrefix(#"{"t":"d","d":{"r":2,"b":{"s":"ok","d":{"auth":{"uid":"alice""#) == true)

        client.send(Self.request(3, "q", #"{"p":"/rooms/r1","h":""}"#))
        #expect(client.messages(2) == [#"{"t":"d","d":{"a":"d","b":{"p":"rooms/r1","d":{"title":"Lobby"}}}}"#, Self.reply(3, "ok", "{}")])

        client.send(Self.request(4, "q", #"{"p":"/msgs","q":{"i":"ts","l":2,"vf":"r"},"t":1,"h":""}"#))
        #expect(
            client.messages(2) == [
                #"{"t":"d","d":{"a":"d","b":{"p":"msgs","d":{"m8":{"ts":8},"m9":{"ts":9}},"t":1}}}"#, Self.reply(4, "ok", "{}"),
            ])

        client.send(Self.request(5, "p", #"{"p":"/msgs/-Nx0aB1cD2eF3gH4iJ5k","d":{"ts":{".sv":"timestamp"},"text":"hi"}}"#))
        let written = client.messages(2)
        #expect(written.last == Self.reply(5))
        let merge = try JSONReader.parse(try #require(written.first))[member: "d"]
        #expect(merge?[member: "a"] == .string("m"))
        #expect(merge?[member: "b"]?[member: "p"] == .string("msgs"))
        #expect(merge?[member: "b"]?[member: "t"] == .int(1))
        #expect(merge?[member: "b"]?[member: "d"]?[member: "m8"] == .null)
        #expect(merge?[member: "b"]?[member: "d"]?[member: "-Nx0aB1cD2eF3gH4iJ5k"]?[member: "text"] == .string("hi"))

        client.send(Self.request(6, "o", #"{"p":"/presence/alice","d":null}"#))
        #expect(client.nextMessage() == Self.reply(6))

        // A transaction against a stale value: hash(42) while /count is 41.
        client.send(Self.request(7, "p", #"{"p":"/count","d":43,"h":"bQ5XV5L9riGZgerGMb/8Z87RxeI="}"#))
        #expect(client.nextMessage() == Self.reply(7, "datastale", #""Transaction hash does not match""#))
        client.send(Self.request(70, "p", #"{"p":"/count","d":42,"h":"FKQEQrg9eSmOibuEATBfMSlup8g="}"#))
        #expect(client.nextMessage() == Self.reply(70))

        client.send(Self.request(8, "g", #"{"p":"/config","q":{}}"#))
        #expect(client.nextMessage() == Self.reply(8, "ok", #"{"theme":"dark"}"#))

        client.send(#"{"t":"c","d":{"t":"p","d":{}}}"#)
        #expect(client.nextMessage() == #"{"t":"c","d":{"t":"o","d":{}}}"#)
        client.send("0")
        #expect(client.isQuiet())

        // A REST write arrives as a push; a long message is split both ways.
        #expect(try Self.rest(port, "PUT", "/rooms/r1/title.json", #""Hall""#).status == 200)
        #expect(client.nextMessage() == #"{"t":"d","d":{"a":"d","b":{"p":"rooms/r1/title","d":"Hall"}}}"#)
        let long = String(repeating: "x", count: 20_000)
        let message = Self.request(9, "p", #"{"p":"/rooms/r1/title","d":"\#(long)"}"#)
        let cut = message.index(message.startIndex, offsetBy: 16_384)
        client.send("2")
        client.send(String(message[..<cut]))
        client.send(String(message[cut...]))
        #expect(client.messages(2) == [#"{"t":"d","d":{"a":"d","b":{"p":"rooms/r1/title","d":"\#(long)"}}}"#, Self.reply(9)])

        client.send(Self.request(10, "n", #"{"p":"/msgs","q":{"i":"ts","l":2,"vf":"r"},"t":1}"#))
        #expect(client.nextMessage() == Self.reply(10))

        // The socket drops: the queued onDisconnect runs.
        client.drop()
        let gone = RulesEndToEndTests.eventually { (try? Self.rest(port, "GET", "/presence.json"))?.text == "null" }
        #expect(gone)
    }
}
