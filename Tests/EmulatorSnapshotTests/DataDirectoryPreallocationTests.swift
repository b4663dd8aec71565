import EmulatorTestSupport
import Testing
import EmulatorStorage
@testable import EmulatorSnapshot

/// A `.sync` journal is zero-filled ahead of its records; a crash leaves that zero tail.
@Suite struct DataDirectoryPreallocationTests {
    let ns: NamespaceID = "firestore/demo/(default)"

    func put(_ engine: StorageEngine, _ key: String, _ value: String) throws { try engine.put(ns, key, value) }

    func keys(_ engine: StorageEngine) throws -> [String] {
        let snapshot = try engine.snapshot()
        return snapshot.namespaces.flatMap { snapshot.scan($0).map { $0.key.description } }.sorted()
    }

    /// Writes two commits, crashes, and returns the newest journal's name, bytes and record end.
    func crashedJournal(_ dir: TemporaryDirectory) throws -> (name: String, bytes: [UInt8], end: Int) {
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine)
        try put(engine, "a/1", "one")
        try put(engine, "a/2", "two")
        data.abandonForTesting()
        let name = try SnapshotFileSystem().list(dir.path + "/live").filter { $0.hasPrefix("journal-") }.max() ?? ""
        let bytes = try dir.read("live/" + name)
        var reader = LevelDBLogReader(bytes: bytes, file: name)
        reader.zeroTailEndsLog = true
        #expect(try reader.readAll().count == 2)
        return (name, bytes, reader.validEnd)
    }

    @Test func aCrashLeavesAZeroTailThatRecoveryStopsAt() throws {
        let dir = TemporaryDirectory()
        let journal = try crashedJournal(dir)
        #expect(journal.bytes.count == Journal.preallocationSegment)
        #expect(journal.bytes[journal.end...].allSatisfy { $0 == 0 })
        let restarted = StorageEngine()
        let reopened = try DataDirectory.open(dir.path + "/live", engine: restarted)
        defer { reopened.close() }
        #expect(try keys(restarted) == ["/a/1", "/a/2"])
    }

    @Test func aTornRecordBeforeTheZeroTailIsDropped() throws {
        let dir = TemporaryDirectory()
        var journal = try crashedJournal(dir)
        let record = LevelDBLogWriter.encode([JournalRecord(commitTime: 1, operations: [.put(ns, StorageKey("a/3"), Array("three".utf8))]).encoded()])
        // The crash cut the third record's write short: its header and part of its data.
        journal.bytes.replaceSubrange(journal.end..<(journal.end + record.count - 4), with: record.prefix(record.count - 4))
        try dir.write("live/" + journal.name, journal.bytes)
        let restarted = StorageEngine()
        let reopened = try DataDirectory.open(dir.path + "/live", engine: restarted)
        defer { reopened.close() }
        #expect(try keys(restarted) == ["/a/1", "/a/2"])
    }

    @Test func aRecordAfterZerosIsRefusedWithFileAndOffset() throws {
        let dir = TemporaryDirectory()
        var journal = try crashedJournal(dir)
        let record = LevelDBLogWriter.encode([JournalRecord(commitTime: 1, operations: [.put(ns, StorageKey("a/3"), Array("three".utf8))]).encoded()])
        journal.bytes.replaceSubrange((journal.end + 64)..<(journal.end + 64 + record.count), with: record)
        try dir.write("live/" + journal.name, journal.bytes)
        let restarted = StorageEngine()
        do {
            _ = try DataDirectory.open(dir.path + "/live", engine: restarted)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.code == .corrupted)
            #expect(error.file == dir.path + "/live/" + journal.name)
            #expect(error.offset == journal.end)
        }
        #expect(try keys(restarted).isEmpty)
    }
}
