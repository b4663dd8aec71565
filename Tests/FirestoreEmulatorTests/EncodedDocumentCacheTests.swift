import EmulatorHTTP
import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import Testing

@testable import FirestoreEmulator

/// GetDocument's kept answers: the same bytes as a fresh encoding, never a stale version, bounded.
@Suite struct EncodedDocumentCacheTests {
    let c = FirestoreTestClient()

    @Test func aKeptAnswerFollowsEveryWriteOfTheDocument() {
        let path = "/v1/\(c.name("cache/a"))"
        #expect(c.send(.patch, path, #"{"fields":{"n":{"integerValue":"1"}}}"#).status == 200)
        let first = c.send(.get, path)
        #expect(first.json[member: "fields"]?[member: "n"]?[member: "integerValue"]?.string == "1")
        #expect(c.send(.get, path).text == first.text)

        #expect(c.send(.patch, path, #"{"fields":{"n":{"integerValue":"2"}}}"#).status == 200)
        let second = c.send(.get, path)
        #expect(second.json[member: "fields"]?[member: "n"]?[member: "integerValue"]?.string == "2")
        #expect(second.json[member: "updateTime"] != first.json[member: "updateTime"])

        #expect(c.send(.delete, path).status == 200)
        #expect(c.send(.get, path).status == 404)
        // Re-created with the first fields: a new create time, so not the first answer.
        #expect(c.send(.patch, path, #"{"fields":{"n":{"integerValue":"1"}}}"#).status == 200)
        let again = c.send(.get, path)
        #expect(again.json[member: "createTime"] != first.json[member: "createTime"])
        #expect(again.json[member: "fields"]?[member: "n"]?[member: "integerValue"]?.string == "1")
    }

    @Test func answersMatchAFreshEncodingAndTheMaskedPath() {
        let path = "/v1/\(c.name("cache/b"))"
        #expect(c.send(.patch, path, #"{"fields":{"x":{"stringValue":"é\n"},"y":{"doubleValue":1.5}}}"#).status == 200)
        let kept = c.send(.get, path)
        // A mask bypasses the kept answers: same document, encoded afresh.
        let masked = c.send(.get, "\(path)?mask.fieldPaths=x&mask.fieldPaths=y")
        #expect(kept.json == masked.json)
        #expect(c.send(.get, path).text == kept.text)
    }

    @Test func readsAtAnEarlierTimeSeeThatVersion() {
        let path = "/v1/\(c.name("cache/c"))"
        let written = c.send(.patch, path, #"{"fields":{"n":{"integerValue":"1"}}}"#)
        guard let time = written.json[member: "updateTime"]?.string else {
            Issue.record("no update time")
            return
        }
        _ = c.send(.get, path)
        #expect(c.send(.patch, path, #"{"fields":{"n":{"integerValue":"2"}}}"#).status == 200)
        let old = c.send(.get, "\(path)?readTime=\(time)")
        #expect(old.json[member: "fields"]?[member: "n"]?[member: "integerValue"]?.string == "1")
        let now = c.send(.get, path)
        #expect(now.json[member: "fields"]?[member: "n"]?[member: "integerValue"]?.string == "2")
    }

    @Test func theCacheStaysWithinItsBudget() throws {
        let cache = EncodedDocumentCache(budgetBytes: 64 * 1024, maxAnswerBytes: 4 * 1024)
        let namespace = NamespaceID("firestore/p/(default)")
        var made = 0
        for i in 0..<1_000 {
            let name = try DocumentName.document("projects/p/databases/(default)/documents/c/d\(i)")
            let entry = StoredEntry(
                key: StorageKey(segments: ["c", "d\(i)"]), value: Array(repeating: 1, count: 100), createTime: 1, updateTime: 1)
            let answer = try cache.answer(name, entry, in: namespace) { () throws(EmulatorError) -> [UInt8] in
                made += 1
                return Array(repeating: 2, count: 200)
            }
            #expect(answer.count == 200)
        }
        #expect(made == 1_000)
        // Each answer costs 200 + 100 + 256 bytes: at most the budget's worth are kept.
        #expect(cache.count <= 64 * 1024 / 556 + 1)
        #expect(cache.count > 0)
        // Too large to keep: made every time.
        let big = try DocumentName.document("projects/p/databases/(default)/documents/c/big")
        let entry = StoredEntry(key: StorageKey(segments: ["c", "big"]), value: [1], createTime: 1, updateTime: 1)
        for _ in 0..<2 {
            _ = try cache.answer(big, entry, in: namespace) { () throws(EmulatorError) -> [UInt8] in
                made += 1
                return Array(repeating: 0, count: 5_000)
            }
        }
        #expect(made == 1_002)
    }

    @Test func aKeptAnswerIsTakenOnlyForTheSameNameAndVersion() throws {
        let cache = EncodedDocumentCache()
        let namespace = NamespaceID("firestore/p/(default)")
        let name = try DocumentName.document("projects/p/databases/(default)/documents/c/d")
        let entry = StoredEntry(key: StorageKey(segments: ["c", "d"]), value: [1, 2, 3], createTime: 1, updateTime: 1)
        func answer(_ name: DocumentName, _ entry: StoredEntry, _ made: [UInt8]) throws -> [UInt8] {
            try cache.answer(name, entry, in: namespace) { () throws(EmulatorError) -> [UInt8] in made }
        }
        #expect(try answer(name, entry, [1]) == [1])
        #expect(try answer(name, entry, [2]) == [1])
        var changed = entry
        changed.value = [1, 2, 4]
        #expect(try answer(name, changed, [3]) == [3])
        changed.updateTime = 2
        #expect(try answer(name, changed, [4]) == [4])
        let other = try DocumentName.document("projects/q/databases/(default)/documents/c/d")
        #expect(try answer(other, changed, [5]) == [5])
    }
}
