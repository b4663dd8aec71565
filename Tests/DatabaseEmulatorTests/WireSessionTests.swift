import EmulatorHTTP
import EmulatorModel
import EmulatorSupport
import Testing

@testable import DatabaseEmulator

/// The per-connection wire-protocol state machine, driven without sockets.
@Suite struct WireSessionTests {
    typealias P = WireSessionProbe
    /// {"alg":"none","type":"JWT"} . {"sub":"alice","user_id":"alice"} . (empty signature)
    static let alice = "eyJhbGciOiJub25lIiwidHlwZSI6IkpXVCJ9.eyJzdWIiOiJhbGljZSIsInVzZXJfaWQiOiJhbGljZSJ9."

    @Test func helloNamesTheHostAndSession() {
        let db = DatabaseTestClient()
        let probe = WireSessionProbe(db, start: false)
        probe.session.start()
        #expect(probe.take() == [#"{"t":"c","d":{"t":"h","d":{"ts":1700000000000,"v":"5","h":"127.0.0.1:9000","s":"sess-1"}}}"#])
    }

    @Test func pingKeepAliveAndStats() {
        let probe = WireSessionProbe(DatabaseTestClient())
        probe.send(#"{"t":"c","d":{"t":"p","d":{}}}"#)
        probe.send("0")
        probe.request(1, "s", #"{"c":{"sdk.js.10-14-0":1}}"#)
        probe.request(2, "appcheck", #"{"token":"x"}"#)
        #expect(probe.take() == [#"{"t":"c","d":{"t":"o","d":{}}}"#, P.reply(1), P.reply(2)])
    }

    @Test func messageSplitIntoAnnouncedFramesIsHandled() {
        let probe = WireSessionProbe(DatabaseTestClient())
        let message = #"{"t":"d","d":{"r":1,"a":"p","b":{"p":"/a","d":"hello"}}}"#
        let cut = message.index(message.startIndex, offsetBy: 20)
        probe.send("2")
        probe.send(String(message[..<cut]))
        #expect(probe.take().isEmpty)
        probe.send(String(message[cut...]))
        #expect(probe.take() == [P.reply(1)])
    }

    @Test func listenSendsDataBeforeOkThenScopedPushes() {
        let db = DatabaseTestClient()
        db.put("/rooms.json?ns=w", #"{"r1":{"title":"Lobby"},"r2":{"title":"Other"}}"#)
        let probe = WireSessionProbe(db)
        probe.request(3, "q", #"{"p":"/rooms/r1","h":""}"#)
        #expect(probe.take() == [P.push("d", "rooms/r1", #"{"title":"Lobby"}"#), P.reply(3, "ok", "{}")])

        // A write inside: `d` at the written location, before the write's ok.
        probe.request(4, "p", #"{"p":"/rooms/r1/title","d":"Hall"}"#)
        #expect(probe.take() == [P.push("d", "rooms/r1/title", #""Hall""#), P.reply(4)])
        // A write beside: nothing but the ok.
        probe.request(5, "p", #"{"p":"/rooms/r2/title","d":"X"}"#)
        #expect(probe.take() == [P.reply(5)])
        // A write above: data at the listen location (here a merge of what changed), never above it.
        probe.request(6, "p", #"{"p":"/rooms","d":{"r1":{"title":"New","n":1}}}"#)
        #expect(probe.take() == [P.push("m", "rooms/r1", #"{"n":1,"title":"New"}"#), P.reply(6)])
        // A write above that turns the location into a leaf: `d` at the location.
        probe.request(9, "q", #"{"p":"/rooms/r2/title","h":""}"#)
        _ = probe.take()
        probe.request(10, "p", #"{"p":"/rooms/r2","d":"gone"}"#)
        #expect(probe.take() == [P.push("d", "rooms/r2/title", "null"), P.reply(10)])
        probe.request(11, "n", #"{"p":"/rooms/r2/title"}"#)
        _ = probe.take()
        // A merge below with several locations: one `m` at the listen location.
        probe.request(7, "m", #"{"p":"/rooms/r1","d":{"n":2,"tags/a":true}}"#)
        #expect(probe.take() == [P.push("m", "rooms/r1", #"{"n":2,"tags":{"a":true}}"#), P.reply(7)])
        // A REST write from someone else arrives as a push too.
        db.delete("/rooms/r1/tags.json?ns=w")
        #expect(probe.take() == [P.push("d", "rooms/r1/tags", "null")])
        // After unlisten, nothing.
        probe.request(8, "n", #"{"p":"/rooms/r1"}"#)
        db.put("/rooms/r1/n.json?ns=w", "3")
        #expect(probe.take() == [P.reply(8)])
        #expect(probe.session.listenCount == 0)
    }

    @Test func taggedQueryListenGetsTheWindowAndDiffs() {
        let db = DatabaseTestClient()
        db.put("/msgs.json?ns=w", #"{"m7":{"ts":7},"m8":{"ts":8},"m9":{"ts":9}}"#)
        let probe = WireSessionProbe(db)
        probe.request(4, "q", #"{"p":"/msgs","q":{"i":"ts","l":2,"vf":"r"},"t":1,"h":""}"#)
        #expect(probe.take() == [P.push("d", "msgs", #"{"m8":{"ts":8},"m9":{"ts":9}}"#, tag: 1), P.reply(4, "ok", "{}")])
        probe.request(5, "p", #"{"p":"/msgs/-Nx0aB1cD2eF3gH4iJ5k","d":{"ts":{".sv":"timestamp"},"text":"hi"}}"#)
        #expect(
            probe.take() == [
                P.push("m", "msgs", #"{"-Nx0aB1cD2eF3gH4iJ5k":{"text":"hi","ts":1700000000000},"m8":null}"#, tag: 1),
                P.reply(5),
            ])
        // A change outside the window: no push.
        probe.request(6, "p", #"{"p":"/msgs/m7/ts","d":1}"#)
        #expect(probe.take() == [P.reply(6)])
        // Unlisten by tag.
        probe.request(7, "n", #"{"p":"/msgs","q":{"i":"ts","l":2,"vf":"r"},"t":1}"#)
        #expect(probe.session.listenCount == 0)
    }

    @Test func getReadsOnceWithTheQuery() {
        let db = DatabaseTestClient()
        db.put("/config.json?ns=w", #"{"theme":"dark","a":1}"#)
        let probe = WireSessionProbe(db)
        probe.request(8, "g", #"{"p":"/config","q":{}}"#)
        probe.request(9, "g", #"{"p":"/config","q":{"i":".key","l":1,"vf":"l"}}"#)
        #expect(probe.take() == [P.reply(8, "ok", #"{"a":1,"theme":"dark"}"#), P.reply(9, "ok", #"{"a":1}"#)])
        #expect(probe.session.listenCount == 0)
    }

    @Test func transactionComparesTheHash() {
        let db = DatabaseTestClient()
        db.put("/count.json?ns=w", "42")
        let probe = WireSessionProbe(db)
        let stale = DatabaseNode(DatabaseNode.Content.int(41)).hash
        let current = DatabaseNode(DatabaseNode.Content.int(42)).hash
        probe.request(1, "p", #"{"p":"/count","d":43,"h":"\#(stale)"}"#)
        probe.request(2, "p", #"{"p":"/count","d":43,"h":"\#(current)"}"#)
        // The empty hash means "expected null".
        probe.request(3, "p", #"{"p":"/fresh","d":1,"h":""}"#)
        probe.request(4, "p", #"{"p":"/fresh","d":2,"h":""}"#)
        #expect(
            probe.take() == [
                P.reply(1, "datastale", #""Transaction hash does not match""#), P.reply(2), P.reply(3),
                P.reply(4, "datastale", #""Transaction hash does not match""#),
            ])
        #expect(db.value("/count.json?ns=w") == .int(43))
        #expect(db.value("/fresh.json?ns=w") == .int(1))
    }

    @Test func prioritiesAndServerValues() {
        let db = DatabaseTestClient()
        let probe = WireSessionProbe(db)
        probe.request(1, "p", #"{"p":"/a","d":{".value":"x",".priority":5}}"#)
        probe.request(2, "p", #"{"p":"/b","d":{"n":1}}"#)
        probe.request(3, "p", #"{"p":"/b/.priority","d":"high"}"#)
        probe.request(4, "m", #"{"p":"/","d":{"c":{".sv":{"increment":2}}}}"#)
        #expect(probe.take() == [P.reply(1), P.reply(2), P.reply(3), P.reply(4)])
        #expect(db.value("/.json?ns=w&format=export") == j(#"{"a":{".value":"x",".priority":5},"b":{"n":1,".priority":"high"},"c":2}"#))
    }

    @Test func onDisconnectRunsWhenTheConnectionCloses() {
        let db = DatabaseTestClient()
        db.put("/presence.json?ns=w", #"{"alice":true,"bob":true}"#)
        let watcher = WireSessionProbe(db)
        watcher.request(1, "q", #"{"p":"/presence","h":""}"#)
        _ = watcher.take()

        let probe = WireSessionProbe(db)
        probe.request(1, "o", #"{"p":"/presence/alice","d":null}"#)
        probe.request(2, "om", #"{"p":"/status","d":{"alice":"offline","seen":{".sv":"timestamp"}}}"#)
        probe.request(3, "o", #"{"p":"/presence/bob","d":null}"#)
        probe.request(4, "oc", #"{"p":"/presence/bob","d":null}"#)
        #expect(probe.take() == [P.reply(1), P.reply(2), P.reply(3), P.reply(4)])
        #expect(watcher.take().isEmpty)

        db.clock.set(1_700_000_005_000)
        probe.session.closed()
        probe.session.closed()  // idempotent: runs once
        #expect(watcher.take() == [P.push("d", "presence/alice", "null")])
        #expect(db.value("/presence.json?ns=w") == j(#"{"bob":true}"#))
        #expect(db.value("/status.json?ns=w") == j(#"{"alice":"offline","seen":1700000005000}"#))
        // A closed session ignores later messages.
        probe.request(5, "p", #"{"p":"/late","d":1}"#)
        #expect(probe.take().isEmpty)
        #expect(db.value("/late.json?ns=w") == .null)
    }

    @Test func rulesDenyAndRevokeListens() {
        let db = DatabaseTestClient()
        db.put(
            "/.settings/rules.json?ns=w",
            #"{"rules":{"open":{".read":"!root.child('locked').exists()",".write":true},"users":{"$uid":{".read":"auth.uid === $uid",".write":"auth.uid === $uid"}}}}"#,
            headers: DatabaseTestClient.owner)
        let probe = WireSessionProbe(db)
        probe.request(1, "q", #"{"p":"/users/alice","h":""}"#)
        probe.request(2, "p", #"{"p":"/users/alice/name","d":"A"}"#)
        probe.request(3, "g", #"{"p":"/users/alice","q":{}}"#)
        #expect(
            probe.take() == [
                P.reply(1, "permission_denied", #""Permission denied""#), P.reply(2, "permission_denied", #""Permission denied""#),
                P.reply(3, "permission_denied", #""Permission denied""#),
            ])
        #expect(probe.session.listenCount == 0)

        // With a user token the same requests pass.
        probe.request(4, "auth", #"{"cred":"\#(Self.alice)"}"#)
        let authReply = probe.take()
        #expect(authReply.count == 1)
        #expect(authReply.first?.hasPrefix(#"{"t":"d","d":{"r":4,"b":{"s":"ok","d":{"auth":{"uid":"alice""#) == true)
        probe.request(5, "q", #"{"p":"/users/alice","h":""}"#)
        probe.request(6, "p", #"{"p":"/users/alice/name","d":"A"}"#)
        #expect(
            probe.take() == [
                P.push("d", "users/alice", "null"), P.reply(5, "ok", "{}"), P.push("d", "users/alice", #"{"name":"A"}"#),
                P.reply(6),
            ])

        // Signing out revokes the listen with `c`.
        probe.request(7, "unauth", "{}")
        #expect(probe.take() == [#"{"t":"d","d":{"a":"c","b":{"p":"users/alice"}}}"#, P.reply(7)])

        // Data that changes the rules' answer revokes a listen too.
        probe.request(8, "q", #"{"p":"/open","h":""}"#)
        _ = probe.take()
        db.put("/locked.json?ns=w", "true", headers: DatabaseTestClient.owner)
        #expect(db.get("/open.json?ns=w").status.code == 401)
        #expect(probe.take() == [#"{"t":"d","d":{"a":"c","b":{"p":"open"}}}"#])
        #expect(probe.session.listenCount == 0)
    }

    @Test func ownerCredentialBypassesRulesAndBadTokensAreRefused() {
        let db = DatabaseTestClient()
        db.put("/.settings/rules.json?ns=w", #"{"rules":{}}"#, headers: DatabaseTestClient.owner)
        let probe = WireSessionProbe(db)
        probe.request(1, "gauth", #"{"cred":"not a token"}"#)
        probe.request(2, "p", #"{"p":"/x","d":1}"#)
        probe.request(3, "gauth", #"{"cred":"owner"}"#)
        probe.request(4, "p", #"{"p":"/x","d":1}"#)
        #expect(
            probe.take() == [
                P.reply(1, "invalid_token", #""Could not parse auth token.""#),
                P.reply(2, "permission_denied", #""Permission denied""#),
                P.reply(3, "ok", #"{"auth":null,"admin":true}"#), P.reply(4),
            ])
        #expect(db.value("/x.json?ns=w&access_token=owner") == .int(1))
    }

    @Test func invalidRequestsAreAnsweredNotFatal() {
        let probe = WireSessionProbe(DatabaseTestClient())
        probe.request(1, "p", #"{"p":"/a$b","d":1}"#)
        probe.request(2, "m", #"{"p":"/a","d":{"b":1,"b/c":2}}"#)
        probe.request(3, "zz", "{}")
        probe.send("not json")
        let replies = probe.take()
        #expect(replies.count == 3)
        #expect(replies[0].hasPrefix(#"{"t":"d","d":{"r":1,"b":{"s":"invalid_data""#))
        #expect(replies[1].hasPrefix(#"{"t":"d","d":{"r":2,"b":{"s":"invalid_data""#))
        #expect(replies[2].hasPrefix(#"{"t":"d","d":{"r":3,"b":{"s":"failed""#))
    }

    @Test func rulesChangeRevokesListensTheNewRulesRefuse() {
        let db = DatabaseTestClient()
        let probe = WireSessionProbe(db)
        probe.request(1, "q", #"{"p":"/a","h":""}"#)
        probe.request(2, "q", #"{"p":"/b","q":{"l":1,"vf":"l"},"t":3,"h":""}"#)
        _ = probe.take()
        db.put("/.settings/rules.json?ns=w", #"{"rules":{"a":{".read":true}}}"#, headers: DatabaseTestClient.owner)
        #expect(probe.take() == [#"{"t":"d","d":{"a":"c","b":{"p":"b","q":[{"l":1,"vf":"l"}],"t":3}}}"#])
        #expect(probe.session.listenCount == 1)
        // Rules for another namespace leave this connection alone.
        db.put("/.settings/rules.json?ns=other", #"{"rules":{}}"#, headers: DatabaseTestClient.owner)
        #expect(probe.take().isEmpty)
    }
}
