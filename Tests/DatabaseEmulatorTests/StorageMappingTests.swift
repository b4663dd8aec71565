import DatabaseEmulator
import EmulatorHTTP
import EmulatorStorage
import EmulatorSupport
import Testing

/// The database lives in the shared engine under `database/<ns>`: a small object as one packed
/// entry, anything else one entry per leaf, keyed by path.
@Suite struct StorageMappingTests {
    @Test func leavesAreEngineEntriesKeyedByPath() throws {
        let db = DatabaseTestClient()
        db.put("/users/ada.json?ns=m", #"{"name":"Ada","age":36,"tags":{"x":true},".priority":2}"#)
        let snapshot = try db.storage.snapshot()
        let keys = snapshot.scan("database/m").map(\.key.description)
        // A priority keeps its node unpacked; the small object below it is one entry.
        #expect(keys == ["/users/ada/.priority", "/users/ada/age", "/users/ada/name", "/users/ada/tags"])
    }

    @Test func aSmallObjectIsOneEntryAndWritesInsideItRewriteIt() throws {
        let db = DatabaseTestClient()
        db.patch("/users.json?ns=m", #"{"bob":{"name":"Bob","age":7,"address":{"city":"Lima"}}}"#)
        func keys() throws -> [String] { try db.storage.snapshot().scan("database/m").map(\.key.description) }
        #expect(try keys() == ["/users/bob"])
        #expect(db.value("/users/bob/address/city.json?ns=m") == .string("Lima"))
        #expect(db.value("/users/bob/address/zip.json?ns=m") == .null)
        #expect(db.value("/users/bob/name/x.json?ns=m") == .null)
        db.put("/users/bob/address/zip.json?ns=m", "15001")
        db.patch("/users/bob.json?ns=m", #"{"age":8}"#)
        #expect(try keys() == ["/users/bob"])
        #expect(db.value("/users/bob.json?ns=m") == j(#"{"address":{"city":"Lima","zip":15001},"age":8,"name":"Bob"}"#))
        // Too deep to pack now: its leaves get entries, the object inside it is packed.
        db.put("/users/bob/address/geo.json?ns=m", #"{"lat":1}"#)
        #expect(try keys() == ["/users/bob/address", "/users/bob/age", "/users/bob/name"])
        #expect(db.value("/users/bob/address/geo/lat.json?ns=m") == .int(1))
        // A priority inside one unpacks it.
        db.put("/users/cy.json?ns=m", #"{"name":"Cy"}"#)
        db.put("/users/cy/name/.priority.json?ns=m", "3")
        #expect(db.value("/users/cy.json?ns=m&format=export") == j(#"{"name":{".value":"Cy",".priority":3}}"#))
        #expect(try keys().filter { $0.hasPrefix("/users/cy") } == ["/users/cy/name", "/users/cy/name/.priority"])
        db.delete("/users/bob/address.json?ns=m")
        db.delete("/users/bob.json?ns=m")
        #expect(try keys().filter { $0.hasPrefix("/users/bob") } == [])
    }

    @Test func replacingASubtreeLeavesNoStaleEntries() throws {
        let db = DatabaseTestClient()
        db.put("/a.json?ns=m", #"{"b":{"c":1,"d":2},".priority":1}"#)
        db.put("/a.json?ns=m", "5")
        #expect(try db.storage.snapshot().scan("database/m").map(\.key.description) == ["/a"])
        db.put("/a/b.json?ns=m", "1")
        #expect(try db.storage.snapshot().scan("database/m").map(\.key.description) == ["/a/b"])
        db.delete("/a.json?ns=m")
        #expect(try db.storage.snapshot().scan("database/m").map(\.key.description) == [])
    }

    @Test func aNodeLeftEmptyLosesItsPriority() {
        let db = DatabaseTestClient()
        db.put("/a.json?ns=m", #"{"b":1,".priority":9}"#)
        db.delete("/a/b.json?ns=m")
        db.put("/a/c.json?ns=m", "1")
        #expect(db.value("/a.json?ns=m&format=export") == j(#"{"c":1}"#))
    }

    @Test func rootCanBeALeaf() {
        let db = DatabaseTestClient()
        db.put("/.json?ns=m", "42")
        #expect(db.value("/.json?ns=m") == .int(42))
        db.put("/x.json?ns=m", "1")
        #expect(db.value("/.json?ns=m") == j(#"{"x":1}"#))
    }

    @Test func intAndDoubleStayApart() {
        let db = DatabaseTestClient()
        db.put("/n.json?ns=m", #"{"i":1,"d":1.5,"big":9007199254740993,"neg":-0.0}"#)
        #expect(db.get("/n.json?ns=m").bodyText == #"{"big":9007199254740993,"d":1.5,"i":1,"neg":0}"#)  // JSON.stringify(-0) is "0"
    }

    @Test func clearingTheNamespaceInTheEngineReachesStreams() {
        let db = DatabaseTestClient()
        db.put("/a.json?ns=m", #"{"b":1}"#)
        let s = db.stream("/a.json?ns=m")
        db.storage.clear("database/m")
        let got = events(s.writer.text)
        #expect(got.count == 2)
        #expect(got.last?.data == j(#"{"path":"/","data":null}"#))
        #expect(db.value("/a.json?ns=m") == .null)
    }

    @Test func inspectListsNamespacesHoldingData() {
        let db = DatabaseTestClient()
        let other = DatabaseTestClient(storage: db.storage)
        other.put("/x.json?ns=elsewhere", "1")
        #expect(json(db.get("/.inspect/databases.json", headers: DatabaseTestClient.owner)) == j(#"[{"name":"elsewhere"}]"#))
    }
}

@Suite struct CanonicalEquivalenceTests {
    @Test func canonicallyEquivalentKeysAreDistinct() {
        let db = DatabaseTestClient()
        db.put("/k/%C3%A9.json?ns=u", "1")  // é (U+00E9)
        db.put("/k/e%CC%81.json?ns=u", "2")  // e + U+0301
        guard case .object(let members)? = db.value("/k.json?ns=u") else {
            Issue.record("not an object")
            return
        }
        #expect(members.count == 2)
    }

    @Test func aValueChangingToAnEquivalentStringIsAnEvent() {
        let db = DatabaseTestClient()
        db.put("/v.json?ns=u", #"{"a":"\u00e9"}"#)
        let s = db.stream("/v.json?ns=u&orderBy=%22$key%22&limitToFirst=5")
        db.put("/v/a.json?ns=u", #""e\u0301""#)
        #expect(events(s.writer.text).count == 2)
    }

    @Test func integralDoublesRenderWithoutFraction() {
        let db = DatabaseTestClient()
        db.put("/n.json?ns=u", "[1.0, 2.5, 1e21, 0.1]")
        #expect(db.get("/n.json?ns=u").bodyText == "[1,2.5,1e+21,0.1]")
    }
}
