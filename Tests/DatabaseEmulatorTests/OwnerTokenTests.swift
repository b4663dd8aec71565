import DatabaseEmulator
import EmulatorHTTP
import EmulatorSupport
import Testing

/// The admin token bypasses rules whatever its case, in the header or the query.
@Suite struct OwnerTokenTests {
    static func locked() -> DatabaseTestClient {
        let db = DatabaseTestClient()
        let r = db.put("/.settings/rules.json?ns=o", #"{"rules":{".read":false,".write":false}}"#, headers: DatabaseTestClient.owner)
        #expect(r.status.code == 200)
        return db
    }

    @Test(arguments: ["Bearer owner", "bearer OWNER", "Bearer Owner", "Firebase owner"])
    func ownerHeadersInAnyCaseBypassRules(_ header: String) {
        let db = Self.locked()
        #expect(db.put("/a.json?ns=o", "1").status.code == 401)
        #expect(db.put("/a.json?ns=o", "1", headers: [("Authorization", header)]).status.code == 200)
        #expect(db.get("/a.json?ns=o", headers: [("Authorization", header)]).bodyText == "1")
        #expect(db.stream("/a.json?ns=o", headers: [("Authorization", header)]).status.code == 200)
    }

    @Test(arguments: ["access_token=owner", "auth=OWNER", "access_token=Owner"])
    func ownerInTheQueryBypassesRules(_ parameter: String) {
        let db = Self.locked()
        #expect(db.put("/a.json?ns=o&\(parameter)", "1").status.code == 200)
        #expect(db.get("/a.json?ns=o&\(parameter)").bodyText == "1")
    }

    @Test func aStreamIsDeniedLikeARead() {
        let db = Self.locked()
        #expect(db.stream("/a.json?ns=o").status.code == 401)
    }

    @Test func aMalformedTokenIsTheOfficialError() {
        let db = Self.locked()
        let r = db.get("/a.json?ns=o", headers: [("Authorization", "Bearer not.a.jwt")])
        #expect(r.status.code == 401)
        #expect(errorText(r) == "Could not parse auth token.")
    }
}
