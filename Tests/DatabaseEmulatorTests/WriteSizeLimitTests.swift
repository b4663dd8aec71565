import DatabaseEmulator
import EmulatorHTTP
import EmulatorSupport
import Testing

/// `writeSizeLimit`: a write that would touch more than its budget (new data plus the data it
/// replaces; `tiny` ≈ 1 MB, `small` ≈ 10 MB at 64 MB/min) is refused with production's 400 and
/// text, and nothing is written.
@Suite struct WriteSizeLimitTests {
    static let tooBig = "Data to write exceeds the maximum size that can be modified with a single request."

    /// `count` children of ~1 KB under `/big`, written as the owner without a limit.
    func seeded(children count: Int) -> DatabaseTestClient {
        let db = DatabaseTestClient()
        let text = String(repeating: "x", count: 1000)
        let body = "{" + (0..<count).map { "\"c\($0)\":\"\(text)\"" }.joined(separator: ",") + "}"
        #expect(db.put("/big.json?ns=w", body).status.code == 200)
        return db
    }

    @Test func tinyRefusesDeletingALargeLocation() {
        let db = seeded(children: 1500)  // ~1.5 MB
        let deleted = db.delete("/big.json?ns=w&writeSizeLimit=tiny")
        #expect(deleted.status.code == 400)
        #expect(errorText(deleted) == Self.tooBig)
        // firebase-tools deletes with PATCH null, then falls back to chunks of children.
        let patched = db.patch("/big.json?ns=w&print=silent&writeSizeLimit=tiny&disableTriggers=true", "null")
        #expect(patched.status.code == 400)
        #expect(errorText(patched) == Self.tooBig)
        if case .object(let members)? = db.value("/big.json?ns=w&shallow=true") {
            #expect(members.count == 1500)
        } else {
            Issue.record("the location was deleted")
        }
        let chunk = "{" + (0..<500).map { "\"c\($0)\":null" }.joined(separator: ",") + "}"
        #expect(db.patch("/big.json?ns=w&print=silent&writeSizeLimit=tiny", chunk).status.code == 204)
        #expect(db.delete("/big.json?ns=w&writeSizeLimit=small").status.code == 200)
        #expect(db.value("/big.json?ns=w") == .null)
    }

    @Test func tinyRefusesALargeBodyButUnlimitedAndNoLimitAccept() {
        let db = DatabaseTestClient()
        let body = "\"" + String(repeating: "y", count: 1_200_000) + "\""
        for target in ["/s.json?ns=w&writeSizeLimit=tiny", "/.json?ns=w&writeSizeLimit=tiny"] {
            let r = db.put(target, body)
            #expect(r.status.code == 400)
            #expect(errorText(r) == Self.tooBig)
        }
        let posted = db.post("/list.json?ns=w&writeSizeLimit=tiny", body)
        #expect(posted.status.code == 400)
        #expect(db.value("/.json?ns=w") == .null)
        #expect(db.put("/s.json?ns=w&writeSizeLimit=small", body).status.code == 200)
        #expect(db.put("/t.json?ns=w&writeSizeLimit=unlimited", body).status.code == 200)
        #expect(db.put("/u.json?ns=w", body).status.code == 200)
    }

    @Test func theReplacedDataCountsForSmallWrites() {
        let db = seeded(children: 1500)
        // A tiny body over a large location: the data it replaces is what costs.
        let r = db.put("/big.json?ns=w&writeSizeLimit=tiny", "1")
        #expect(r.status.code == 400)
        #expect(errorText(r) == Self.tooBig)
        let multi = db.patch("/.json?ns=w&writeSizeLimit=tiny", #"{"big":null,"other":1}"#)
        #expect(multi.status.code == 400)
        #expect(db.value("/other.json?ns=w") == .null)
        // Small writes next to (or below) the large data are fine.
        #expect(db.put("/big/c1.json?ns=w&writeSizeLimit=tiny", "2").status.code == 200)
        #expect(db.put("/other.json?ns=w&writeSizeLimit=tiny", "3").status.code == 200)
        #expect(db.put("/big/.priority.json?ns=w&writeSizeLimit=tiny", "4").status.code == 200)
    }
}
