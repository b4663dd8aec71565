import DatabaseEmulator
import EmulatorHTTP
import EmulatorSupport
import Testing

@Suite struct RESTMethodTests {
    @Test func putThenGetReturnsTheValue() {
        let db = DatabaseTestClient()
        let put = db.put("/users/ada.json?ns=a", #"{"name":"Ada","age":36}"#)
        #expect(put.status.code == 200)
        #expect(json(put) == j(#"{"age":36,"name":"Ada"}"#))
        #expect(db.value("/users/ada/name.json?ns=a") == .string("Ada"))
        #expect(db.value("/users.json?ns=a") == j(#"{"ada":{"age":36,"name":"Ada"}}"#))
        #expect(db.value("/.json?ns=a") == j(#"{"users":{"ada":{"age":36,"name":"Ada"}}}"#))
    }

    @Test func missingLocationIsNullNot404() {
        let db = DatabaseTestClient()
        let r = db.get("/nothing/here.json?ns=a")
        #expect(r.status.code == 200)
        #expect(r.bodyText == "null")
    }

    @Test func trailingSlashBeforeJsonIsTheSameLocation() {
        let db = DatabaseTestClient()
        db.put("/a/b.json?ns=a", "1")
        #expect(db.value("/a/b/.json?ns=a") == .int(1))
    }

    @Test func percentEncodedKeys() {
        let db = DatabaseTestClient()
        db.put("/a%20b/%C3%A9.json?ns=a", "true")
        #expect(db.value("/.json?ns=a") == j(#"{"a b":{"é":true}}"#))
    }

    @Test func putNullAndDeleteRemoveAndEmptyParentsVanish() {
        let db = DatabaseTestClient()
        db.put("/a/b/c.json?ns=a", "1")
        db.put("/a/x.json?ns=a", "2")
        #expect(db.put("/a/b/c.json?ns=a", "null").bodyText == "null")
        #expect(db.value("/a.json?ns=a") == j(#"{"x":2}"#))
        let d = db.delete("/a/x.json?ns=a")
        #expect(d.status.code == 200 && d.bodyText == "null")
        #expect(db.value("/.json?ns=a") == .null)
    }

    @Test func writingBelowALeafTurnsItIntoAnObject() {
        let db = DatabaseTestClient()
        db.put("/a.json?ns=a", "5")
        db.put("/a/b.json?ns=a", "6")
        #expect(db.value("/a.json?ns=a") == j(#"{"b":6}"#))
    }

    @Test func emptyObjectsAndNullChildrenAreDropped() {
        let db = DatabaseTestClient()
        db.put("/a.json?ns=a", #"{"b":{},"c":null,"d":{"e":null},"f":1}"#)
        #expect(db.value("/a.json?ns=a") == j(#"{"f":1}"#))
    }

    @Test func postPushesUnderAnIncreasingId() throws {
        let db = DatabaseTestClient()
        var names: [String] = []
        for i in 0..<5 {
            let r = db.post("/list.json?ns=a", "\(i)")
            #expect(r.status.code == 200)
            guard case .string(let name)? = json(r)?[member: "name"] else {
                Issue.record("no name")
                return
            }
            #expect(name.utf8.count == 20)
            names.append(name)
        }
        #expect(names == names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(Set(names).count == 5)
        guard case .object(let members)? = db.value("/list.json?ns=a") else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.name) == names)
        #expect(members.map(\.value) == [.int(0), .int(1), .int(2), .int(3), .int(4)])
    }

    @Test func pushIdEncodesServerTime() {
        let db = DatabaseTestClient(now: 0)
        let r = db.post("/l.json?ns=a", "1")
        guard case .string(let name)? = json(r)?[member: "name"] else { return }
        #expect(name.hasPrefix("--------"))
    }

    @Test func patchIsAMultiPathUpdateWhereNullDeletes() {
        let db = DatabaseTestClient()
        db.put("/u.json?ns=a", #"{"a":{"x":1,"y":2},"b":3,"c":4}"#)
        let r = db.patch("/u.json?ns=a", #"{"a/x":10,"b":null,"d":{"e":5}}"#)
        #expect(r.status.code == 200)
        #expect(json(r) == j(#"{"a/x":10,"b":null,"d":{"e":5}}"#))
        #expect(db.value("/u.json?ns=a") == j(#"{"a":{"x":10,"y":2},"c":4,"d":{"e":5}}"#))
    }

    @Test func patchReplacesAChildObjectWithoutDeepMerge() {
        let db = DatabaseTestClient()
        db.put("/u.json?ns=a", #"{"a":{"x":1,"y":2}}"#)
        db.patch("/u.json?ns=a", #"{"a":{"z":3}}"#)
        #expect(db.value("/u.json?ns=a") == j(#"{"a":{"z":3}}"#))
    }

    @Test func patchWithNullBodyDeletes() {
        let db = DatabaseTestClient()
        db.put("/u.json?ns=a", #"{"a":1}"#)
        #expect(db.patch("/u.json?ns=a&print=silent&writeSizeLimit=tiny&disableTriggers=true", "null").status.code == 204)
        #expect(db.value("/u.json?ns=a") == .null)
    }

    @Test(arguments: [("PUT", "7", JSONValue.int(7)), ("PATCH", #"{"k":7}"#, JSONValue.object([JSONMember("k", .int(7)), JSONMember("old", .int(1))])), ("DELETE", "", JSONValue.null)])
    func methodOverrideHeaderAndQuery(method: String, body: String, expected: JSONValue) {
        let db = DatabaseTestClient()
        db.put("/o.json?ns=a", #"{"old":1}"#)
        db.send(.post, "/o.json?ns=a", body, headers: [("X-HTTP-Method-Override", method)])
        #expect(db.value("/o.json?ns=a") == expected)
        db.put("/p.json?ns=a", #"{"old":1}"#)
        db.send(.post, "/p.json?ns=a&x-http-method-override=\(method)", body)
        #expect(db.value("/p.json?ns=a") == expected)
    }

    @Test func printSilentAndPretty() {
        let db = DatabaseTestClient()
        let silent = db.put("/a.json?ns=a&print=silent", #"{"b":1}"#)
        #expect(silent.status.code == 204)
        #expect(silent.bodyBytes.isEmpty)
        #expect(db.get("/a.json?ns=a&print=silent").status.code == 204)
        let pretty = db.get("/a.json?ns=a&print=pretty")
        #expect(pretty.bodyText.contains("\n"))
        #expect(json(pretty) == j(#"{"b":1}"#))
    }

    @Test func responsesCarryJSONContentTypeAndCORS() {
        let db = DatabaseTestClient()
        let r = db.get("/a.json?ns=a")
        #expect(r.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(r.headers["Access-Control-Allow-Origin"] == "*")
    }

    @Test func namespacesAreSeparateAndComeFromNsOrHost() {
        let db = DatabaseTestClient()
        db.put("/k.json?ns=one", "1")
        db.put("/k.json?ns=two", "2")
        #expect(db.value("/k.json?ns=one") == .int(1))
        #expect(db.value("/k.json?ns=two") == .int(2))
        #expect(db.get("/k.json", headers: [("Host", "one.localhost:9000")]).bodyText == "1")
        db.put("/k.json", "3", headers: [("Host", "localhost:9000")])
        #expect(db.value("/k.json?ns=localhost") == .int(3))
        db.put("/k.json", "4", headers: [("Host", "127.0.0.1:9000")])
        #expect(db.value("/k.json?ns=demo-default-rtdb") == .int(4))
    }

    @Test func inspectDatabasesListsNamespaces() {
        let db = DatabaseTestClient()
        db.put("/k.json?ns=alpha", "1")
        _ = db.get("/k.json?ns=beta")
        let r = db.get("/.inspect/databases.json?ns=alpha", headers: DatabaseTestClient.owner)
        #expect(json(r) == j(#"[{"name":"alpha"},{"name":"beta"}]"#))
    }

    @Test func pathWithoutJsonSuffixIsRejected() {
        let db = DatabaseTestClient()
        let r = db.get("/a?ns=a")
        #expect(r.status.code == 404)
        #expect(errorText(r) == "append .json to your request URI to use the REST API.")
    }
}

@Suite struct RESTDownloadTests {
    @Test func jsonpCallbackWrapsTheBody() {
        let db = DatabaseTestClient()
        db.put("/a.json?ns=d", #"{"b":1}"#)
        let r = db.get("/a.json?ns=d&callback=gotData")
        #expect(r.bodyText == #"gotData({"b":1});"#)
        #expect(r.headers["Content-Type"] == "application/javascript; charset=utf-8")
        #expect(db.get("/a.json?ns=d&callback=alert(1)").status.code == 400)
    }

    @Test func downloadSetsContentDisposition() {
        let db = DatabaseTestClient()
        let r = db.get("/a.json?ns=d&download=backup.json")
        #expect(r.headers["Content-Disposition"] == #"attachment; filename="backup.json""#)
    }
}
