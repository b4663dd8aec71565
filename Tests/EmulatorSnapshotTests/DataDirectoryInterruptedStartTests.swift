import EmulatorTestSupport
import Glibc
import Testing
import EmulatorStorage
@testable import EmulatorSnapshot

/// A journal file is created before the previous one is finished with: at a start (before the
/// checkpoint of what was recovered) and at a rotation (before the last flush into the old
/// file). A crash in that window leaves a torn record in a journal that is not the newest.
@Suite struct DataDirectoryInterruptedStartTests {
    let ns: NamespaceID = "firestore/demo/(default)"

    func put(_ engine: StorageEngine, _ key: String, _ value: String) throws { try engine.put(ns, key, value) }

    func contents(_ engine: StorageEngine) throws -> [String: String] { try engine.contents(namespaced: false) }

    func journals(_ dir: TemporaryDirectory) throws -> [String] {
        try SnapshotFileSystem().list(dir.path + "/live").filter { $0.hasPrefix("journal-") }.sorted()
    }

    /// The first kill -9: two acknowledged commits, then a third cut short inside its write.
    /// Returns the journal's name, its sequence and where its last complete record ends.
    func killedWhileAppending(_ dir: TemporaryDirectory, zeroTail: Bool) throws -> (name: String, sequence: Int, end: Int) {
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine)
        try put(engine, "a/1", "one")
        try put(engine, "a/2", "two")
        data.abandonForTesting()
        let name = try journals(dir).last ?? ""
        var bytes = try dir.read("live/" + name)
        var reader = LevelDBLogReader(bytes: bytes, file: name)
        reader.zeroTailEndsLog = true
        #expect(try reader.readAll().count == 2)
        let end = reader.validEnd
        let record = LevelDBLogWriter.encode([
            JournalRecord(commitTime: 1, operations: [.put(ns, StorageKey("a/3"), Array("three".utf8))]).encoded()
        ])
        let torn = Array(record.prefix(record.count - 4))
        if zeroTail {
            // `.sync`: the write landed in the zero-filled part of the file.
            #expect(bytes.count > end + torn.count)
            bytes.replaceSubrange(end..<(end + torn.count), with: torn)
        } else {
            bytes = Array(bytes[..<end]) + torn
        }
        try dir.write("live/" + name, bytes)
        return (name, DataDirectoryRecovery.journalSequence(name) ?? -1, end)
    }

    /// The restart after it must restore both commits, take new ones, and a third start too.
    func expectRestartsKeepWorking(_ dir: TemporaryDirectory) throws {
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine)
        #expect(try contents(engine) == ["/a/1": "one", "/a/2": "two"])
        #expect(data.recovered.commits == 2)
        try put(engine, "a/4", "four")
        data.abandonForTesting()  // killed again, after an acknowledged write
        let third = StorageEngine()
        let reopened = try DataDirectory.open(dir.path + "/live", engine: third)
        #expect(try contents(third) == ["/a/1": "one", "/a/2": "two", "/a/4": "four"])
        try put(third, "a/5", "five")
        reopened.close()
        let fourth = StorageEngine()
        let last = try DataDirectory.open(dir.path + "/live", engine: fourth)
        defer { last.close() }
        #expect(try contents(fourth) == ["/a/1": "one", "/a/2": "two", "/a/4": "four", "/a/5": "five"])
    }

    @Test(arguments: [false, true])
    func aTornJournalFollowedByAnEmptyJournalRestores(zeroTail: Bool) throws {
        let dir = TemporaryDirectory()
        let first = try killedWhileAppending(dir, zeroTail: zeroTail)
        // The second start created the next journal, then was killed before its checkpoint
        // (or a rotation created it and the flush into the old file was cut short).
        try dir.write("live/" + DataDirectory.journalName(first.sequence + 1), [])
        try expectRestartsKeepWorking(dir)
    }

    @Test(arguments: [false, true])
    func aTornJournalFollowedByZeroFilledJournalsRestores(zeroTail: Bool) throws {
        let dir = TemporaryDirectory()
        let first = try killedWhileAppending(dir, zeroTail: zeroTail)
        // A `.sync` journal zero-filled ahead of its first record; and a third start killed too.
        try dir.write("live/" + DataDirectory.journalName(first.sequence + 1), [UInt8](repeating: 0, count: Journal.preallocationSegment))
        try dir.write("live/" + DataDirectory.journalName(first.sequence + 2), [UInt8](repeating: 0, count: 4096))
        try expectRestartsKeepWorking(dir)
    }

    @Test func aTornJournalFollowedByARecordIsRefusedWithFileAndOffset() throws {
        let dir = TemporaryDirectory()
        let first = try killedWhileAppending(dir, zeroTail: true)
        let later = DataDirectory.journalName(first.sequence + 1)
        let record = LevelDBLogWriter.encode([
            JournalRecord(commitTime: 9, operations: [.put(ns, StorageKey("b/1"), Array("later".utf8))]).encoded()
        ])
        try dir.write("live/" + later, record + [UInt8](repeating: 0, count: 1024))
        for _ in 0..<2 {  // and refused again: nothing was changed by the first refusal
            let error = try expectRefusal(dir, file: first.name, code: .corrupted)
            #expect(error?.offset == first.end)
            #expect(error?.message.contains(later) == true)
        }
    }

    /// The real sequence: the restart after the first kill dies while writing its checkpoint.
    @Test func aStartKilledDuringItsCheckpointLeavesADirectoryTheNextStartRestores() throws {
        let dir = TemporaryDirectory()
        let first = try killedWhileAppending(dir, zeroTail: true)
        // The checkpoint write fails as a kill would leave it: a temporary file, not renamed.
        let failing = SnapshotFileSystem(writeFault: { $0.hasSuffix(".tmp") ? EIO : nil })
        do {
            _ = try DataDirectory.open(dir.path + "/live", engine: StorageEngine(), fileSystem: failing)
            Issue.record("expected the checkpoint to fail")
        } catch {
            #expect(error.code == .io)
        }
        let names = try journals(dir)
        #expect(names == [first.name, DataDirectory.journalName(first.sequence + 1)])
        // The dropped tail was cut off (synced) before the next journal was created.
        #expect(SnapshotFileSystem().fileSize(dir.path + "/live/" + first.name) == first.end)
        #expect(SnapshotFileSystem().exists(dir.path + "/live/" + DataDirectory.checkpointFile + ".tmp"))
        // Same process: the failed open released the lock.
        try expectRestartsKeepWorking(dir)
        #expect(!SnapshotFileSystem().exists(dir.path + "/live/" + DataDirectory.checkpointFile + ".tmp"))
    }

    @Test func aLeftoverCheckpointTemporaryFileDoesNotBlockAStart() throws {
        let dir = TemporaryDirectory()
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine)
        try put(engine, "a/1", "one")
        try put(engine, "a/2", "two")
        data.abandonForTesting()
        // A checkpoint killed halfway: garbage in the temporary file, never renamed.
        try dir.write("live/" + DataDirectory.checkpointFile + ".tmp", Array("emulators-checkpoint-2 half".utf8))
        try expectRestartsKeepWorking(dir)
    }

    /// Opens the directory with a fresh engine and expects a refusal with `code` naming `file`,
    /// with nothing loaded; returns the error (nil if the open succeeded) for further checks.
    @discardableResult
    func expectRefusal(_ dir: TemporaryDirectory, file: String, code: SnapshotError.Code = .notFound) throws -> SnapshotError? {
        let restarted = StorageEngine()
        var refusal: SnapshotError?
        do {
            try DataDirectory.open(dir.path + "/live", engine: restarted).close()
            Issue.record("expected a refusal")
        } catch {
            #expect(error.code == code)
            #expect(error.file == dir.path + "/live/" + file)
            refusal = error
        }
        #expect(try contents(restarted).isEmpty)
        return refusal
    }

    @Test func aMissingJournalIsRefusedNamingIt() throws {
        let dir = TemporaryDirectory()
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine)
        try put(engine, "a/1", "one")
        data.abandonForTesting()
        #expect(try journals(dir) == [DataDirectory.journalName(1)])
        let first = try dir.read("live/" + DataDirectory.journalName(1))
        try dir.write("live/" + DataDirectory.journalName(3), first)
        try expectRefusal(dir, file: DataDirectory.journalName(2))
        // The checkpoint's own first journal missing.
        SnapshotFileSystem().removeTree(dir.path + "/live/" + DataDirectory.journalName(1))
        try expectRefusal(dir, file: DataDirectory.journalName(1))
        SnapshotFileSystem().removeTree(dir.path + "/live/" + DataDirectory.journalName(3))
        try expectRefusal(dir, file: DataDirectory.journalName(1))
    }

    @Test func aMissingCheckpointIsRefused() throws {
        let dir = TemporaryDirectory()
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine)
        try put(engine, "a/1", "one")
        data.close()
        let again = StorageEngine()
        let reopened = try DataDirectory.open(dir.path + "/live", engine: again)  // checkpoint, journal 2
        try put(again, "a/2", "two")
        reopened.abandonForTesting()
        #expect(try journals(dir) == [DataDirectory.journalName(2)])
        SnapshotFileSystem().removeTree(dir.path + "/live/" + DataDirectory.checkpointFile)
        try expectRefusal(dir, file: DataDirectory.checkpointFile)
    }

    @Test func onlyJournalNamesTheJournalWritesCount() {
        #expect(DataDirectoryRecovery.journalSequence(DataDirectory.journalName(42)) == 42)
        #expect(DataDirectoryRecovery.journalSequence(DataDirectory.journalName(123_456_789)) == 123_456_789)
        for name in ["journal-42.log", "journal-+0000042.log", "journal-00000000.log", "journal-0000004x.log", "journal-00000042.log.tmp"] {
            #expect(DataDirectoryRecovery.journalSequence(name) == nil)
        }
    }
}
