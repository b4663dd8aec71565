import EmulatorHTTP
import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import Testing

@testable import DatabaseEmulator

/// The REST GET's kept encodings of packed objects: the same bytes as an encoding made now, in
/// every form, and never an answer from bytes no longer stored.
@Suite struct AnswerCacheTests {
    /// Packed: an object of at most two levels with no priority inside.
    static let node = #"{"n":1,"payload":"xxxx","sub":{"a":true}}"#

    func body(_ response: HTTPResponse) -> String { String(decoding: response.bodyBytes, as: UTF8.self) }

    @Test func aKeptAnswerIsTheEncodingOfTheNodeInEachForm() throws {
        let db = DatabaseTestClient()
        db.put("/o.json?ns=c", Self.node)
        let stored = try #require(db.emulator.service.namespace("c").head.packedEntry(at: DatabasePath(keys: ["o"])))
        let node = try #require(DatabaseStorageMapping.storedNode(stored.value))
        for (query, export, pretty) in [("", false, false), ("&print=pretty", false, true), ("&format=export", true, false),
                                        ("&format=export&print=pretty", true, true)] {
            let first = db.get("/o.json?ns=c" + query)
            let second = db.get("/o.json?ns=c" + query)
            #expect(first.status.code == 200)
            #expect(first.bodyBytes == node.encoded(export: export, pretty: pretty), "\(query)")
            #expect(second.bodyBytes == first.bodyBytes, "\(query)")
            #expect(first.headers["Content-Type"] == "application/json; charset=utf-8")
        }
        #expect(db.emulator.answers.count == 4)
    }

    @Test func aWriteIsSeenByTheNextRead() {
        let db = DatabaseTestClient()
        db.put("/o.json?ns=c", Self.node)
        #expect(json(db.get("/o.json?ns=c")) == j(Self.node))
        db.put("/o/n.json?ns=c", "2")
        #expect(json(db.get("/o.json?ns=c"))?[member: "n"] == .int(2))
        db.patch("/o.json?ns=c", #"{"payload":"y"}"#)
        #expect(json(db.get("/o.json?ns=c"))?[member: "payload"] == .string("y"))
        db.delete("/o.json?ns=c")
        #expect(body(db.get("/o.json?ns=c")) == "null")
        db.put("/o.json?ns=c", Self.node)
        #expect(json(db.get("/o.json?ns=c"))?[member: "n"] == .int(1))
    }

    @Test func rulesAreCheckedOnEveryRead() {
        let db = DatabaseTestClient()
        db.put("/o.json?ns=c", Self.node, headers: DatabaseTestClient.owner)
        #expect(db.put("/.settings/rules.json?ns=c", #"{"rules":{".read":true}}"#, headers: DatabaseTestClient.owner).status.code == 200)
        #expect(db.get("/o.json?ns=c").status.code == 200)
        #expect(db.put("/.settings/rules.json?ns=c", #"{"rules":{".read":false}}"#, headers: DatabaseTestClient.owner).status.code == 200)
        #expect(db.get("/o.json?ns=c").status.code == 401)
        #expect(db.get("/o.json?ns=c", headers: DatabaseTestClient.owner).status.code == 200)
    }

    @Test func etagsQueriesAndLeavesTakeTheUsualPath() {
        let db = DatabaseTestClient()
        db.put("/o.json?ns=c", Self.node)
        db.put("/leaf.json?ns=c", "7")
        db.put("/prioritized.json?ns=c", #"{"a":1,"b":{"c":2,".priority":3}}"#)
        _ = db.get("/o.json?ns=c", headers: [("X-Firebase-ETag", "true")])
        _ = db.get("/o.json?ns=c&shallow=true")
        _ = db.get("/o.json?ns=c&orderBy=\"$key\"&limitToFirst=1")
        _ = db.get("/o.json?ns=c&print=silent")
        _ = db.get("/leaf.json?ns=c")
        #expect(json(db.get("/prioritized.json?ns=c&format=export")) == j(#"{"a":1,"b":{"c":2,".priority":3}}"#))
        #expect(db.emulator.answers.count == 0)
        #expect(body(db.get("/o.json?ns=c&shallow=true")) == #"{"n":true,"payload":true,"sub":true}"#)
    }

    @Test func theCacheKeepsItsBudget() {
        let cache = DatabaseAnswerCache(budgetBytes: 4096, maxAnswerBytes: 1000)
        let ns = NamespaceID("database/c")
        func entry(_ i: Int, _ bytes: [UInt8]) -> StoredEntry {
            StoredEntry(key: StorageKey(segments: ["k\(i)"]), value: bytes, createTime: 1, updateTime: 1)
        }
        var made = 0
        for i in 0..<100 {
            _ = cache.answer(ns, entry(i, [1, 2, 3]), export: false, pretty: false) {
                made += 1
                return Array(repeating: 0, count: 200)
            }
        }
        #expect(made == 100)
        #expect(cache.count < 20)
        // Too large to keep; and different bytes at the same key are made again.
        _ = cache.answer(ns, entry(200, [1]), export: false, pretty: false) { Array(repeating: 0, count: 2000) }
        _ = cache.answer(ns, entry(99, [1]), export: false, pretty: false) {
            made += 1
            return [9]
        }
        #expect(made == 101)
        #expect(cache.answer(ns, entry(99, [1]), export: false, pretty: false) { nil } == [9])
        #expect(cache.answer(ns, entry(98, [4]), export: false, pretty: false) { nil } == nil)
    }
}
