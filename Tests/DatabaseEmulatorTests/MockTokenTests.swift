import EmulatorHTTP
import EmulatorSupport
import EmulatorTestSupport
import Testing

@testable import DatabaseEmulator

/// Emulators do not judge mock tokens' times: the test library's token (expired in 1970) signs in
/// on every transport, and keep-alives never revoke it.
@Suite struct MockTokenTests {
    typealias P = WireSessionProbe
    static let rules =
        #"{"rules":{"users":{"$uid":{".read":"auth.uid === $uid",".write":"auth.uid === $uid && auth.token.firebase.sign_in_provider === 'custom'"}}}}"#
    static let alice = MockUserToken.make(uid: "alice")

    static func client() -> DatabaseTestClient {
        let db = DatabaseTestClient(now: 1_700_000_000_000)
        db.put("/.settings/rules.json?ns=w", rules, headers: DatabaseTestClient.owner)
        return db
    }

    @Test func webSocketAcceptsTheLibraryTokenAndKeepsIt() {
        let db = Self.client()
        let probe = WireSessionProbe(db)
        probe.request(1, "auth", #"{"cred":"\#(Self.alice)"}"#)
        let reply = probe.take()
        #expect(reply.count == 1)
        #expect(reply.first?.hasPrefix(#"{"t":"d","d":{"r":1,"b":{"s":"ok","d":{"auth":{"uid":"alice""#) == true)
        probe.request(2, "p", #"{"p":"/users/alice/name","d":"A"}"#)
        probe.request(3, "p", #"{"p":"/users/bob/name","d":"B"}"#)
        #expect(probe.take() == [P.reply(2), P.reply(3, "permission_denied", #""Permission denied""#)])
        db.clock.set(1_800_000_000_000)
        db.emulator.sendKeepAlives()
        #expect(probe.take().isEmpty)
        probe.request(4, "g", #"{"p":"/users/alice","q":{}}"#)
        #expect(probe.take() == [P.reply(4, "ok", #"{"name":"A"}"#)])
        // `gauth` (what the SDKs send for emulator tokens) takes the same token.
        probe.request(5, "gauth", #"{"cred":"\#(Self.alice)"}"#)
        #expect(probe.take().first?.contains(#""s":"ok""#) == true)
    }

    @Test func restAcceptsTheLibraryTokenInEveryPlace() {
        let db = Self.client()
        #expect(db.put("/users/alice.json?ns=w&auth=\(Self.alice)", #"{"n":1}"#).status == .ok)
        #expect(db.put("/users/alice/m.json?ns=w&access_token=\(Self.alice)", "2").status == .ok)
        #expect(db.get("/users/alice.json?ns=w", headers: [("Authorization", "Bearer \(Self.alice)")]).status == .ok)
        #expect(db.put("/users/bob.json?ns=w&auth=\(Self.alice)", "1").status == .unauthorized)
        #expect(db.get("/users/alice.json?ns=w").status == .unauthorized)
    }

    @Test func streamWithTheLibraryTokenOutlivesItsExp() {
        let db = Self.client()
        let s = db.stream("/users/alice.json?ns=w&auth=\(Self.alice)")
        #expect(events(s.writer.text).first?.name == "put")
        db.clock.set(1_800_000_000_000)
        db.emulator.sendKeepAlives()
        #expect(s.writer.isOpen)
        #expect(events(s.writer.text).last?.name == "keep-alive")
        db.put("/users/alice/n.json?ns=w", "5", headers: DatabaseTestClient.owner)
        #expect(events(s.writer.text).last?.name == "put")
    }

    /// Custom claims of every JSON type reach `auth.token` as they were written.
    @Test func claimsOfEveryTypeReachTheRules() {
        let db = DatabaseTestClient()
        db.put(
            "/.settings/rules.json?ns=w",
            #"{"rules":{".read":"auth.token.s === 'x' && auth.token.n === 1.5 && auth.token.i === 2 && auth.token.b === true && auth.token.z === null && auth.token.o.k === 'v'"}}"#,
            headers: DatabaseTestClient.owner)
        let token = MockUserToken.make(
            uid: "u", extraClaims: #","s":"x","n":1.5,"i":2,"b":true,"z":null,"o":{"k":"v"},"a":[1,2]"#)
        #expect(db.get("/.json?ns=w&auth=\(token)").status == .ok)
        let wrong = MockUserToken.make(uid: "u", extraClaims: #","s":"y","n":1.5,"i":2,"b":true,"z":null,"o":{"k":"v"}"#)
        #expect(db.get("/.json?ns=w&auth=\(wrong)").status == .unauthorized)
    }

    /// Not a JWT at all (or a payload that is not base64 JSON): refused on both transports.
    @Test(arguments: ["not-a-token", "a.b", "bm90anNvbg.eyJzdWIiOiJ1In0.", "eyJhbGciOiJub25lIn0.@@@.", "eyJhbGciOiJub25lIn0.WzFd."])
    func malformedTokensAreRefused(_ token: String) {
        let db = Self.client()
        #expect(db.get("/users/alice.json?ns=w&auth=\(token)").status == .unauthorized)
        let probe = WireSessionProbe(db)
        probe.request(1, "auth", #"{"cred":"\#(token)"}"#)
        #expect(probe.take() == [P.reply(1, "invalid_token", #""Could not parse auth token.""#)])
    }
}
