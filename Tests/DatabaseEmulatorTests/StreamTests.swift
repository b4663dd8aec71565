import DatabaseEmulator
import EmulatorHTTP
import EmulatorSupport
import Testing

/// Server-Sent Event streams: first put, one event per touching write, patches, queries, cleanup.
@Suite struct StreamTests {
    @Test func firstEventIsPutOfTheWholeValue() {
        let db = DatabaseTestClient()
        db.put("/users.json?ns=s", #"{"a":1}"#)
        let s = db.stream("/users.json?ns=s")
        #expect(s.status.code == 200)
        #expect(s.headers["Content-Type"] == "text/event-stream")
        #expect(s.writer.text == "event: put\ndata: {\"path\":\"/\",\"data\":{\"a\":1}}\n\n")
        let empty = db.stream("/none.json?ns=s")
        #expect(empty.writer.text == "event: put\ndata: {\"path\":\"/\",\"data\":null}\n\n")
    }

    @Test func pushGivesExactlyOnePutWithTheChildPath() {
        let db = DatabaseTestClient()
        let s = db.stream("/.json?ns=s")
        let r = db.post("/users.json?ns=s", #""""#)
        guard case .string(let id)? = json(r)?[member: "name"] else { return }
        let got = events(s.writer.text)
        #expect(got.count == 2)
        #expect(got.last?.name == "put")
        #expect(got.last?.data == .object([JSONMember("path", .string("/users/" + id)), JSONMember("data", .string(""))]))
    }

    @Test func writesBelowAboveAndBesideTheStream() {
        let db = DatabaseTestClient()
        db.put("/a.json?ns=s", #"{"b":{"c":1},"x":1}"#)
        let s = db.stream("/a/b.json?ns=s")
        db.put("/a/b/c.json?ns=s", "2")  // below: put /c
        db.put("/a/x.json?ns=s", "5")  // beside: nothing
        db.put("/a.json?ns=s", #"{"b":{"d":3}}"#)  // above: put / with the new value here
        db.put("/other.json?ns=s", "1")  // elsewhere: nothing
        db.delete("/.json?ns=s")  // root: put / null
        let got = events(s.writer.text)
        #expect(got.map(\.name) == ["put", "put", "put", "put"])
        #expect(got[1].data == j(#"{"path":"/c","data":2}"#))
        #expect(got[2].data == j(#"{"path":"/","data":{"d":3}}"#))
        #expect(got[3].data == j(#"{"path":"/","data":null}"#))
    }

    @Test func patchAtOrBelowTheStreamIsOnePatchEvent() {
        let db = DatabaseTestClient()
        db.put("/a.json?ns=s", #"{"b":{"c":1}}"#)
        let s = db.stream("/a.json?ns=s")
        db.patch("/a.json?ns=s", #"{"b/c":2,"d":null,"e":{"f":1}}"#)
        db.patch("/a/b.json?ns=s", #"{"c":3}"#)
        let got = events(s.writer.text)
        #expect(got.map(\.name) == ["put", "patch", "patch"])
        #expect(got[1].data == j(#"{"path":"/","data":{"b/c":2,"d":null,"e":{"f":1}}}"#))
        #expect(got[2].data == j(#"{"path":"/b","data":{"c":3}}"#))
    }

    @Test func patchAboveTheStreamSendsOnlyTheReachingPaths() {
        let db = DatabaseTestClient()
        let s = db.stream("/a/b.json?ns=s")
        db.patch("/.json?ns=s", #"{"a/b/c":1,"z":2}"#)
        db.patch("/.json?ns=s", #"{"q":1}"#)
        db.patch("/.json?ns=s", #"{"a":{"b":{"n":1}}}"#)
        let got = events(s.writer.text)
        #expect(got.map(\.name) == ["put", "patch", "put"])
        #expect(got[1].data == j(#"{"path":"/","data":{"c":1}}"#))
        #expect(got[2].data == j(#"{"path":"/","data":{"n":1}}"#))
    }

    @Test func queryStreamsSendTheNewViewWhenItChanges() {
        let db = DatabaseTestClient()
        db.put("/s.json?ns=s", #"{"a":1,"b":2,"c":3}"#)
        let s = db.stream("/s.json?ns=s&orderBy=%22$value%22&limitToFirst=2")
        db.put("/s/c.json?ns=s", "4")  // outside the view: nothing
        db.put("/s/z.json?ns=s", "0")  // enters the view
        let got = events(s.writer.text)
        #expect(got.count == 2)
        #expect(got[0].data == j(#"{"path":"/","data":{"a":1,"b":2}}"#))
        #expect(got[1].data == j(#"{"path":"/","data":{"a":1,"z":0}}"#))
    }

    @Test func closedStreamsAreForgotten() {
        let db = DatabaseTestClient()
        let s = db.stream("/a.json?ns=s")
        let t = db.stream("/a.json?ns=s")
        #expect(db.emulator.streamCount(namespace: "s") == 2)
        s.writer.close()
        #expect(db.emulator.streamCount(namespace: "s") == 1)
        db.put("/a.json?ns=s", "1")
        #expect(events(t.writer.text).count == 2)
        #expect(events(s.writer.text).count == 1)
        t.writer.close()
        #expect(db.emulator.streamCount(namespace: "s") == 0)
    }

    @Test func streamNeedsReadPermissionAndIsCancelledWhenRulesRevoke() {
        let db = DatabaseTestClient()
        let s = db.stream("/a.json?ns=s")
        let admin = db.stream("/a.json?ns=s", headers: DatabaseTestClient.owner)
        let rules = db.put("/.settings/rules.json?ns=s", #"{"rules":{".read":false,".write":false}}"#, headers: DatabaseTestClient.owner)
        #expect(rules.status.code == 200)
        let got = events(s.writer.text)
        #expect(got.last?.name == "cancel")
        #expect(!s.writer.isOpen)
        #expect(admin.writer.isOpen)
        let denied = db.stream("/a.json?ns=s")
        #expect(denied.status.code == 401)
        #expect(denied.writer.text.contains("Permission denied"))
    }
}

@Suite struct StreamKeepAliveTests {
    @Test func keepAliveIsANullDataEvent() {
        let db = DatabaseTestClient()
        let s = db.stream("/a.json?ns=k")
        db.emulator.sendKeepAlives()
        #expect(s.writer.text.hasSuffix("event: keep-alive\ndata: null\n\n"))
        #expect(s.writer.isOpen)
    }
}

@Suite struct StreamConcurrencyTests {
    /// Writes from many threads reach a stream exactly once each, and a stream opened midway
    /// sees every write either in its first value or as an event, never both.
    @Test func concurrentWritesAreDeliveredExactlyOnce() async {
        let db = DatabaseTestClient()
        let early = db.stream("/c.json?ns=cc")
        let writers = 8
        let perWriter = 40
        var late: InProcessClient.StreamedResponse?
        await withTaskGroup(of: Void.self) { group in
            for w in 0..<writers {
                group.addTask {
                    for i in 0..<perWriter { db.put("/c/k\(w)_\(i).json?ns=cc", "\(i)") }
                }
            }
            late = db.stream("/c.json?ns=cc")
        }
        let all = Set((0..<writers).flatMap { w in (0..<perWriter).map { "k\(w)_\($0)" } })
        let earlyEvents = events(early.writer.text)
        #expect(earlyEvents.count == 1 + all.count)
        let earlyPaths = earlyEvents.dropFirst().compactMap { event -> String? in
            if case .string(let p)? = event.data?[member: "path"] { return String(p.dropFirst()) }
            return nil
        }
        #expect(Set(earlyPaths) == all)
        guard let late else { return }
        let lateEvents = events(late.writer.text)
        var seen: [String] = []
        if case .object(let members)? = lateEvents.first?.data?[member: "data"] { seen = members.map(\.name) }
        for event in lateEvents.dropFirst() {
            if case .string(let p)? = event.data?[member: "path"] { seen.append(String(p.dropFirst())) }
        }
        #expect(seen.count == all.count)
        #expect(Set(seen) == all)
    }

    @Test func streamsOpenedAtDifferentTimesShareNothingTheyShouldNot() {
        let db = DatabaseTestClient()
        let first = db.stream("/a.json?ns=cc")
        db.put("/a/x.json?ns=cc", "1")
        let second = db.stream("/a.json?ns=cc")
        db.put("/a/y.json?ns=cc", "2")
        #expect(events(first.writer.text).count == 3)
        #expect(events(second.writer.text).count == 2)
        #expect(events(second.writer.text).first?.data == j(#"{"path":"/","data":{"x":1}}"#))
    }
}

@Suite struct StreamRulesTests {
    @Test func aStreamIsCancelledWhenDataChangesTheReadRule() {
        let db = DatabaseTestClient()
        let rules = #"{"rules":{"doc":{".read":"data.child('public').val() === true",".write":true}}}"#
        #expect(db.put("/.settings/rules.json?ns=r", rules, headers: DatabaseTestClient.owner).status.code == 200)
        db.put("/doc.json?ns=r", #"{"public":true,"text":"hi"}"#)
        let s = db.stream("/doc.json?ns=r")
        #expect(s.status.code == 200)
        db.put("/doc/text.json?ns=r", #""hello""#)
        db.put("/doc/public.json?ns=r", "false")
        let got = events(s.writer.text)
        #expect(got.map(\.name) == ["put", "put", "cancel"])
        #expect(!s.writer.isOpen)
        #expect(db.emulator.streamCount(namespace: "r") == 0)
    }
}
