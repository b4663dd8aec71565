import DatabaseEmulator
import EmulatorHTTP
import EmulatorStorage
import EmulatorSupport
import Synchronization
import Testing

/// Deleting or replacing a large subtree: the engine cuts it out whole, streams get one event,
/// conditional writes still work and older read times still see the data.
@Suite struct SubtreeDeletionTests {
    static let children = 300

    /// A database with `children` children of two leaves each under `/c`, plus `/keep`. Its
    /// engine keeps history (a suite's keeps none for the RTDB), so the tests can read the data
    /// at the time before a cut.
    static func loaded() -> DatabaseTestClient {
        let db = DatabaseTestClient(storage: StorageEngine())
        let members = (0..<children).map { #""d\#($0)":{"name":"user\#($0)","n":\#($0)}"# }.joined(separator: ",")
        db.patch("/c.json?ns=big", "{" + members + "}")
        db.put("/keep.json?ns=big", "1")
        return db
    }

    /// What the engine's change feed reported for each commit in `database/big`.
    final class Feed: Sendable {
        let batches = Mutex<[(cleared: [StorageKey], changes: Int)]>([])
    }

    static func watch(_ db: DatabaseTestClient) -> (Feed, Subscription) {
        let feed = Feed()
        let subscription = db.storage.subscribe("database/big") { batch in
            feed.batches.withLock { $0.append((batch.clearedSubtrees, batch.changes.count)) }
        }
        return (feed, subscription)
    }

    @Test func putNullAtTheRootIsOneEventPerStreamAndOneClearedSubtree() throws {
        let db = Self.loaded()
        let before = db.storage.lastCommitTime
        let root = db.stream("/.json?ns=big"), subtree = db.stream("/c.json?ns=big"), leaf = db.stream("/c/d7/name.json?ns=big")
        let (feed, subscription) = Self.watch(db)
        #expect(db.put("/.json?ns=big", "null").status.code == 200)
        for stream in [root, subtree, leaf] {
            let got = events(stream.writer.text)
            #expect(got.count == 2)
            #expect(got.last?.name == "put")
            #expect(got.last?.data == j(#"{"path":"/","data":null}"#))
        }
        let heard = feed.batches.withLock { $0 }
        #expect(heard.count == 1)
        #expect(heard.first?.cleared == [.root])
        #expect(heard.first?.changes == 0)
        #expect(db.value("/.json?ns=big") == .null)
        #expect(try db.storage.snapshot().count("database/big") == 0)
        // A read at the time before the PUT (what a Firestore readTime is to the engine) still sees it all.
        let old = try db.storage.snapshot(at: before)
        // Each child is one packed entry.
        #expect(old.scan("database/big").map(\.key).count == Self.children + 1)
        #expect(old.get("database/big", StorageKey("c/d7")) != nil)
        #expect(try db.storage.snapshot().get("database/big", StorageKey("c/d7")) == nil)
        #expect(old.children("database/big", of: StorageKey("c")).map(\.key).count == Self.children)
        _ = subscription
    }

    @Test func deleteAndPatchNullCutTheSubtreeAndLeaveTheRest() throws {
        for write in [("DELETE", ""), ("PATCH", #"{"c":null,"other":2}"#)] {
            let db = Self.loaded()
            let before = db.storage.lastCommitTime
            let root = db.stream("/.json?ns=big"), subtree = db.stream("/c.json?ns=big")
            let (feed, subscription) = Self.watch(db)
            let response = write.0 == "DELETE" ? db.delete("/c.json?ns=big") : db.patch("/.json?ns=big", write.1)
            #expect(response.status.code == 200)
            let rootEvents = events(root.writer.text)
            #expect(rootEvents.count == 2)
            #expect(rootEvents.last?.name == (write.0 == "DELETE" ? "put" : "patch"))
            #expect(events(subtree.writer.text).count == 2)
            #expect(events(subtree.writer.text).last?.data == j(#"{"path":"/","data":null}"#))
            #expect(feed.batches.withLock { $0.map(\.cleared) } == [[StorageKey("c")]])
            #expect(db.value("/c.json?ns=big") == .null)
            #expect(db.value("/keep.json?ns=big") == .int(1))
            #expect(try db.storage.snapshot(at: before).scan("database/big", .subtree(of: StorageKey("c"))).map(\.key).count == Self.children)
            _ = subscription
        }
    }

    @Test func putReplacingABigSubtreeKeepsOnlyTheNewValue() throws {
        let db = Self.loaded()
        let subtree = db.stream("/c.json?ns=big")
        db.put("/c.json?ns=big", #"{"d7":{"name":"again"},"z":1}"#)
        let got = events(subtree.writer.text)
        #expect(got.count == 2)
        #expect(got.last?.data == j(#"{"path":"/","data":{"d7":{"name":"again"},"z":1}}"#))
        #expect(db.value("/c.json?ns=big") == j(#"{"d7":{"name":"again"},"z":1}"#))
        // The new value is small: one packed entry.
        #expect(try db.storage.snapshot().scan("database/big").map(\.key.description) == ["/c", "/keep"])
        #expect(db.storage.invariantViolations() == [])
    }

    @Test func conditionalPutNullOverABigSubtreeUsesItsETag() {
        let db = Self.loaded()
        let etag = db.get("/c.json?ns=big", headers: ETagTests.etagHeader).headers["ETag"] ?? ""
        let stale = db.put("/c.json?ns=big", "null", headers: [("if-match", "stale")])
        #expect(stale.status.code == 412)
        #expect(db.get("/c.json?ns=big&shallow=true").bodyText.contains("d299"))
        let done = db.put("/c.json?ns=big", "null", headers: [("if-match", etag)])
        #expect(done.status.code == 200)
        #expect(done.headers["ETag"] == "null_etag")
        #expect(db.value("/c.json?ns=big") == .null)
        // The REST transaction loop: the old ETag no longer matches, null_etag does.
        #expect(db.put("/c.json?ns=big", #"{"a":1}"#, headers: [("if-match", etag)]).status.code == 412)
        #expect(db.put("/c.json?ns=big", #"{"a":1}"#, headers: [("if-match", "null_etag")]).status.code == 200)
        #expect(db.value("/c.json?ns=big") == j(#"{"a":1}"#))
    }
}
