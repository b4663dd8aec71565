import EmulatorTestSupport
import Testing
import EmulatorStorage
@testable import EmulatorSnapshot

@Suite struct DataDirectoryTests {
    let ns: NamespaceID = "firestore/demo/(default)"
    let rtdb: NamespaceID = "database/demo-default-rtdb"

    func put(_ engine: StorageEngine, _ ns: NamespaceID, _ key: String, _ value: String) throws {
        try engine.put(ns, key, value)
    }

    func contents(_ engine: StorageEngine) throws -> [String: String] { try engine.contents(namespaced: true) }

    /// Writes `a/1` = "one" and `a/2` = "two" through a data directory at `dir/live`, closes it and
    /// returns the name of its last journal file.
    func journalOfTwoWrites(in dir: TemporaryDirectory) throws -> String {
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine)
        try put(engine, ns, "a/1", "one")
        try put(engine, ns, "a/2", "two")
        data.close()
        return try SnapshotFileSystem().list(dir.path + "/live").filter { $0.hasPrefix("journal-") }.max() ?? ""
    }

    @Test func everyAcknowledgedWriteSurvivesWithoutAClose() throws {
        let dir = TemporaryDirectory()
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine)
        try put(engine, ns, "books/a", "1")
        try put(engine, rtdb, "users/u1/name", "ada")
        try put(engine, ns, "books/a", "2")
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            _ = try txn.put(ns, StorageKey("books/b"), Array("x".utf8))
            _ = try txn.delete(ns, StorageKey("books/a"))
        }
        engine.clear(rtdb, subtree: StorageKey("users"))
        try put(engine, rtdb, "users/u2/name", "grace")
        // No close(): as if the process was killed here.
        data.abandonForTesting()
        let restarted = StorageEngine()
        let reopened = try DataDirectory.open(dir.path + "/live", engine: restarted)
        defer { reopened.close() }
        #expect(try contents(restarted) == [
            "firestore/demo/(default)/books/b": "x",
            "database/demo-default-rtdb/users/u2/name": "grace",
        ])
        #expect(reopened.recovered.commits == 6)
    }

    @Test func aCommitThatCutsASubtreeIsJournaledAsOneRecordWithAClear() throws {
        let dir = TemporaryDirectory()
        let engine = StorageEngine(cutThreshold: 0)
        let data = try DataDirectory.open(dir.path + "/live", engine: engine)
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            for i in 0..<100 { _ = try txn.put(rtdb, StorageKey("rooms/r\(i)/name"), Array("n".utf8)) }
            _ = try txn.put(rtdb, StorageKey("keep"), Array("k".utf8))
        }
        let result = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            _ = try txn.put(rtdb, StorageKey("rooms/r1/name"), Array("before the cut".utf8))
            txn.deleteSubtree(rtdb, StorageKey("rooms"))
            _ = try txn.put(rtdb, StorageKey("rooms/r5/name"), Array("after".utf8))
        }
        #expect(result.cleared == [ClearedSubtree(namespace: rtdb, key: StorageKey("rooms"))])
        data.abandonForTesting()
        let restarted = StorageEngine()
        let reopened = try DataDirectory.open(dir.path + "/live", engine: restarted)
        defer { reopened.close() }
        #expect(try contents(restarted) == [
            "database/demo-default-rtdb/keep": "k",
            "database/demo-default-rtdb/rooms/r5/name": "after",
        ])
    }

    @Test func aSecondOpenOfTheSameDirectoryIsRefused() throws {
        let dir = TemporaryDirectory()
        let data = try DataDirectory.open(dir.path + "/live", engine: StorageEngine())
        do {
            _ = try DataDirectory.open(dir.path + "/live", engine: StorageEngine())
            Issue.record("expected a refusal")
        } catch {
            #expect(error.code == .refused)
        }
        data.close()
        let again = try DataDirectory.open(dir.path + "/live", engine: StorageEngine())
        again.close()
    }

    @Test func checkpointsReplaceOldJournals() throws {
        let dir = TemporaryDirectory()
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine, checkpointBytes: 2_000)
        for i in 0..<300 { try put(engine, ns, "docs/d\(i)", String(repeating: "v", count: 20) + "\(i)") }
        data.abandonForTesting()
        let files = try SnapshotFileSystem().list(dir.path + "/live")
        #expect(files.contains(DataDirectory.checkpointFile))
        #expect(files.filter { $0.hasPrefix("journal-") }.count <= 2)
        let restarted = StorageEngine()
        let reopened = try DataDirectory.open(dir.path + "/live", engine: restarted)
        defer { reopened.close() }
        #expect(try contents(restarted) == contents(engine))
        #expect(try contents(restarted).count == 300)
    }

    @Test func tornTailIsDroppedButEarlierWritesStay() throws {
        let dir = TemporaryDirectory()
        let journal = try journalOfTwoWrites(in: dir)
        let bytes = try dir.read("live/" + journal)
        // Half of a third record: its header announces more bytes than the file holds.
        let record = LevelDBLogWriter.encode([JournalRecord(commitTime: 1, operations: [.put(ns, StorageKey("a/3"), Array("three".utf8))]).encoded()])
        try dir.write("live/" + journal, bytes + record.prefix(record.count - 4))
        let restarted = StorageEngine()
        let reopened = try DataDirectory.open(dir.path + "/live", engine: restarted)
        defer { reopened.close() }
        #expect(try contents(restarted) == ["firestore/demo/(default)/a/1": "one", "firestore/demo/(default)/a/2": "two"])
    }

    @Test func corruptionBeforeTheTailIsRefusedAndNothingLoads() throws {
        let dir = TemporaryDirectory()
        let journal = try journalOfTwoWrites(in: dir)
        var bytes = try dir.read("live/" + journal)
        bytes[9] ^= 0xFF  // inside the first record
        try dir.write("live/" + journal, bytes)
        let restarted = StorageEngine()
        do {
            _ = try DataDirectory.open(dir.path + "/live", engine: restarted)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.code == .corrupted)
            #expect(error.file == dir.path + "/live/" + journal)
            #expect(error.offset == 0)
        }
        #expect(try contents(restarted).isEmpty)
    }

    @Test func corruptedCheckpointIsRefused() throws {
        let dir = TemporaryDirectory()
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine)
        try put(engine, ns, "a/1", "one")
        try data.checkpoint()
        data.close()
        var bytes = try dir.read("live/checkpoint.log")
        bytes[bytes.count - 2] ^= 0x01
        try dir.write("live/checkpoint.log", bytes)
        #expect(throws: SnapshotError.self) { _ = try DataDirectory.open(dir.path + "/live", engine: StorageEngine()) }
    }

    @Test func concurrentWritersAllSurvive() async throws {
        let dir = TemporaryDirectory()
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine, durability: .write, checkpointBytes: 20_000)
        let ns = self.ns
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for i in 0..<200 {
                        _ = try? engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                            _ = try txn.put(ns, StorageKey("w\(writer)/d\(i)"), Array("v\(i)".utf8))
                        }
                    }
                }
            }
        }
        data.abandonForTesting()
        let restarted = StorageEngine()
        let reopened = try DataDirectory.open(dir.path + "/live", engine: restarted)
        defer { reopened.close() }
        #expect(try contents(restarted).count == 800)
    }
}
