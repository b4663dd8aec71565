import EmulatorTestSupport
import Glibc
import Synchronization
import Testing
import EmulatorStorage
@testable import EmulatorSnapshot

/// Create and update times, and concurrent commits, across a live data directory's restart.
@Suite struct DataDirectoryTimesTests {
    let ns: NamespaceID = "firestore/demo/(default)"

    func put(_ engine: StorageEngine, _ key: String, _ value: String) throws { try engine.put(ns, key, value) }

    func times(_ engine: StorageEngine) throws -> [String: [CommitTime]] {
        var result: [String: [CommitTime]] = [:]
        for entry in try engine.snapshot().scan(ns) { result[entry.key.description] = [entry.createTime, entry.updateTime] }
        return result
    }

    @Test("entries keep their create and update times after a crash (journal replay) and after a checkpoint",
          arguments: [false, true])
    func timesSurviveRestart(checkpointFirst: Bool) throws {
        let dir = TemporaryDirectory()
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine)
        try put(engine, "books/a", "1")
        try put(engine, "books/b", "1")
        try put(engine, "books/a", "2")  // update: create time stays, update time moves
        if checkpointFirst { try data.checkpoint() }
        try put(engine, "books/c", "1")
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            _ = try txn.delete(ns, StorageKey("books/b"))
            _ = try txn.put(ns, StorageKey("books/b"), Array("again".utf8))  // re-created in one commit
        }
        let before = try times(engine)
        let last = engine.lastCommitTime
        data.abandonForTesting()

        let restarted = StorageEngine()
        let reopened = try DataDirectory.open(dir.path + "/live", engine: restarted)
        defer { reopened.close() }
        #expect(try times(restarted) == before)
        #expect(before["/books/a"].map { $0[0] < $0[1] } == true)
        // The clock continues after everything recovered.
        #expect(restarted.lastCommitTime >= last)
        try put(restarted, "books/d", "1")
        #expect(restarted.lastCommitTime > last)

        // And once more through the checkpoint the reopen wrote.
        reopened.abandonForTesting()
        let third = StorageEngine()
        let again = try DataDirectory.open(dir.path + "/live", engine: third)
        defer { again.close() }
        var expected = before
        expected["/books/d"] = try times(restarted)["/books/d"]
        #expect(try times(third) == expected)
    }

    @Test("concurrent commits with fdatasync group commit: every acknowledged write is recovered")
    func concurrentCommitsAllRecovered() throws {
        let dir = TemporaryDirectory()
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine, durability: .sync)
        let writers = 8, perWriter = 40
        final class Tally: Sendable { let count = Mutex(0) }
        let acknowledged = Tally()
        final class Box: Sendable {
            let engine: StorageEngine, id: Int, count: Int, acknowledged: Tally
            init(_ engine: StorageEngine, _ id: Int, _ count: Int, _ acknowledged: Tally) {
                self.engine = engine; self.id = id; self.count = count; self.acknowledged = acknowledged
            }
        }
        var threads: [pthread_t] = []
        for w in 0..<writers {
            var thread = pthread_t()
            let box = Box(engine, w, perWriter, acknowledged)
            pthread_create(&thread, nil, { raw in
                guard let raw else { return nil }
                let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
                for i in 0..<box.count {
                    let key = StorageKey("w\(box.id)/d\(i)")
                    let ok = (try? box.engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                        _ = try txn.put("firestore/demo/(default)", key, [UInt8(i % 256)])
                    }) != nil
                    if ok { box.acknowledged.count.withLock { $0 += 1 } }
                }
                return nil
            }, Unmanaged.passRetained(box).toOpaque())
            threads.append(thread)
        }
        for thread in threads { pthread_join(thread, nil) }
        data.abandonForTesting()
        let restarted = StorageEngine()
        let reopened = try DataDirectory.open(dir.path + "/live", engine: restarted)
        defer { reopened.close() }
        #expect(acknowledged.count.withLock { $0 } == writers * perWriter)
        #expect(try restarted.snapshot().count(ns) == writers * perWriter)
    }
}
