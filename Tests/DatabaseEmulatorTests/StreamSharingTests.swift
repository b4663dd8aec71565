import DatabaseEmulator
import EmulatorHTTP
import EmulatorSupport
import Testing

/// Streams with different credentials on one location share the event of a commit (computed and
/// encoded once) yet each keeps its own rules check and query state.
@Suite struct StreamSharingTests {
    // {"alg":"none","type":"JWT"} . {"sub":"alice","user_id":"alice"} / {"sub":"bob",…} . ""
    static let alice = "eyJhbGciOiJub25lIiwidHlwZSI6IkpXVCJ9.eyJzdWIiOiJhbGljZSIsInVzZXJfaWQiOiJhbGljZSJ9."
    static let bob = "eyJhbGciOiJub25lIiwidHlwZSI6IkpXVCJ9.eyJzdWIiOiJib2IiLCJ1c2VyX2lkIjoiYm9iIn0."

    @Test func sameLocationDifferentUsersGetTheSameEvents() {
        let db = DatabaseTestClient()
        db.put(
            "/.settings/rules.json?ns=x",
            #"{"rules":{"room":{".read":"auth != null && (auth.uid == 'alice' || data.child('open').val() == true)",".write":true}}}"#,
            headers: DatabaseTestClient.owner)
        db.put("/room.json?ns=x", #"{"open":true,"n":0}"#)
        let a = db.stream("/room.json?ns=x&auth=" + Self.alice)
        let b = db.stream("/room.json?ns=x&auth=" + Self.bob)
        let aq = db.stream("/room.json?ns=x&orderBy=%22$key%22&limitToFirst=1&auth=" + Self.alice)
        let bq = db.stream("/room.json?ns=x&orderBy=%22$key%22&limitToFirst=1&auth=" + Self.bob)
        db.put("/room/n.json?ns=x", "1")
        db.put("/room/a.json?ns=x", "2")  // changes the first-key view
        #expect(events(a.writer.text).map(\.name) == ["put", "put", "put"])
        #expect(a.writer.text == b.writer.text)
        #expect(events(aq.writer.text).count == 3)
        #expect(aq.writer.text == bq.writer.text)
        #expect(events(aq.writer.text).last?.data == j(#"{"path":"/","data":{"a":2}}"#))
        // Closing the room revokes bob only.
        db.put("/room/open.json?ns=x", "false")
        #expect(events(b.writer.text).last?.name == "cancel")
        #expect(events(a.writer.text).last?.data == j(#"{"path":"/open","data":false}"#))
    }
}

/// Commits reach exactly the streams at, above or below a changed location (the path index),
/// once each even when a multi-path update touches a stream through several paths.
@Suite struct StreamIndexTests {
    @Test func onlyRelatedStreamsHearACommitAndEachOnce() {
        let db = DatabaseTestClient()
        let paths = ["", "a", "a/b", "a/b/c", "a/bb", "x", "x/y"]
        let streams = paths.map { db.stream("/\($0).json?ns=i") }
        func counts() -> [Int] { streams.map { events($0.writer.text).count - 1 } }
        db.put("/a/b.json?ns=i", #"{"c":1}"#)
        #expect(counts() == [1, 1, 1, 1, 0, 0, 0])
        db.patch("/.json?ns=i", #"{"a/b/c":2,"a/b/d":3,"x/y":4}"#)
        #expect(counts() == [2, 2, 2, 2, 0, 1, 1])
        #expect(events(streams[2].writer.text).last?.data == j(#"{"path":"/","data":{"c":2,"d":3}}"#))
        db.put("/x/z.json?ns=i", "5")
        #expect(counts() == [3, 2, 2, 2, 0, 2, 1])
    }
}
