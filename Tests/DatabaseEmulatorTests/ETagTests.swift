import DatabaseEmulator
import EmulatorHTTP
import EmulatorModel
import EmulatorSupport
import EmulatorTestSupport
import Testing

/// ETags, conditional writes and the REST transaction loop.
@Suite struct ETagTests {
    static let etagHeader = [("X-Firebase-ETag", "true")]

    @Test func getReturnsETagOnlyWhenAsked() {
        let db = DatabaseTestClient()
        db.put("/c.json?ns=e", "42")
        #expect(db.get("/c.json?ns=e").headers["ETag"] == nil)
        let r = db.get("/c.json?ns=e", headers: Self.etagHeader)
        #expect(r.headers["ETag"] == DatabaseNode.leaf(.int(42)).hash)
        #expect(db.get("/missing.json?ns=e", headers: Self.etagHeader).headers["ETag"] == "null_etag")
    }

    @Test func ifMatchWritesWhenTheETagMatches() {
        let db = DatabaseTestClient()
        db.put("/c.json?ns=e", "42")
        let etag = db.get("/c.json?ns=e", headers: Self.etagHeader).headers["ETag"] ?? ""
        let r = db.put("/c.json?ns=e", "43", headers: [("if-match", etag)])
        #expect(r.status.code == 200)
        #expect(r.headers["ETag"] == DatabaseNode.leaf(.int(43)).hash)
        #expect(db.value("/c.json?ns=e") == .int(43))
    }

    @Test func ifMatchMismatchIs412WithCurrentValueAndETag() {
        let db = DatabaseTestClient()
        db.put("/c.json?ns=e", #"{"n":1}"#)
        let r = db.put("/c.json?ns=e", "99", headers: [("if-match", "stale")])
        #expect(r.status.code == 412)
        #expect(json(r) == j(#"{"n":1}"#))
        #expect(r.headers["ETag"] == db.get("/c.json?ns=e", headers: Self.etagHeader).headers["ETag"])
        #expect(db.value("/c.json?ns=e") == j(#"{"n":1}"#))
        let d = db.delete("/c.json?ns=e", headers: [("if-match", "stale")])
        #expect(d.status.code == 412)
        #expect(db.value("/c.json?ns=e") == j(#"{"n":1}"#))
    }

    @Test func nullETagMeansOnlyIfAbsent() {
        let db = DatabaseTestClient()
        #expect(db.put("/c.json?ns=e", "1", headers: [("if-match", "null_etag")]).status.code == 200)
        let second = db.put("/c.json?ns=e", "2", headers: [("if-match", "null_etag")])
        #expect(second.status.code == 412)
        #expect(second.bodyText == "1")
        #expect(db.value("/c.json?ns=e") == .int(1))
    }

    @Test func ifNoneMatchGives304WhenUnchanged() {
        let db = DatabaseTestClient()
        db.put("/c.json?ns=e", "1")
        let etag = db.get("/c.json?ns=e", headers: Self.etagHeader).headers["ETag"] ?? ""
        let same = db.get("/c.json?ns=e", headers: [("if-none-match", etag)])
        #expect(same.status.code == 304)
        #expect(same.bodyBytes.isEmpty)
        db.put("/c.json?ns=e", "2")
        let changed = db.get("/c.json?ns=e", headers: [("if-none-match", etag)])
        #expect(changed.status.code == 200)
        #expect(changed.bodyText == "2")
        #expect(changed.headers["ETag"] != etag)
    }

    @Test func getWithIfMatchIsRejected() {
        let db = DatabaseTestClient()
        #expect(db.get("/c.json?ns=e", headers: [("if-match", "x")]).status.code == 400)
    }

    @Test func postAndDeleteReturnETagsOfWhatTheyWrote() {
        let db = DatabaseTestClient()
        let p = db.post("/l.json?ns=e", "\"v\"", headers: Self.etagHeader)
        #expect(p.headers["ETag"] == DatabaseNode.leaf(.string("v")).hash)
        let d = db.delete("/l.json?ns=e", headers: Self.etagHeader)
        #expect(d.headers["ETag"] == "null_etag")
    }

    @Test func restTransactionLoopIncrementsExactly() {
        let db = DatabaseTestClient()
        db.put("/count.json?ns=e", "0")
        for _ in 0..<10 {
            while true {
                let r = db.get("/count.json?ns=e", headers: Self.etagHeader)
                guard case .int(let n)? = json(r), let etag = r.headers["ETag"] else { return }
                if db.put("/count.json?ns=e", "\(n + 1)", headers: [("if-match", etag)]).status.code == 200 { break }
            }
        }
        #expect(db.value("/count.json?ns=e") == .int(10))
    }
}

/// Node hash vectors (EmulatorTestSupport's `nodeHashVectors`) through the emulator's write path.
@Suite struct NodeHashTests {
    @Test(arguments: nodeHashVectors)
    func hashMatchesTheSDKs(value: String, expected: String) throws {
        let node = DatabaseNode.build(try JSONReader.parse(value), existing: .empty, now: 0)
        #expect(node.hash == expected)
    }
}
