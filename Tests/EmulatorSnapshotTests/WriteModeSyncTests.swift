import EmulatorTestSupport
import Testing
import Glibc
import EmulatorStorage
@testable import EmulatorSnapshot

/// `--data-dir-no-fsync` acknowledges after `write`; a background thread still syncs the journal
/// now and then, so a power loss cannot take more than about one interval of writes.
@Suite struct WriteModeSyncTests {
    let ns: NamespaceID = "rtdb/demo"

    func put(_ engine: StorageEngine, _ key: String) throws { try engine.put(ns, key, "value") }

    /// Waits up to two seconds for the journal to have nothing unsynced.
    func waitUntilSynced(_ journal: Journal) -> Bool {
        for _ in 0..<200 {
            if journal.unsyncedBytes == 0 { return true }
            usleep(10_000)
        }
        return false
    }

    @Test func backgroundSyncCatchesUpWithWrites() throws {
        let dir = TemporaryDirectory()
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine, durability: .write, writeModeSyncMilliseconds: 20)
        defer { data.close() }
        try put(engine, "a")
        #expect(waitUntilSynced(data.journal))
        try put(engine, "b")
        try put(engine, "c")
        #expect(waitUntilSynced(data.journal))
    }

    @Test func withoutTheIntervalNothingSyncsInTheBackground() throws {
        let dir = TemporaryDirectory()
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine, durability: .write, writeModeSyncMilliseconds: 0)
        defer { data.close() }
        try put(engine, "a")
        usleep(100_000)
        #expect(data.journal.unsyncedBytes > 0)
    }

    @Test func restartAfterBackgroundSyncsKeepsEveryWrite() throws {
        let dir = TemporaryDirectory()
        do {
            let engine = StorageEngine()
            let data = try DataDirectory.open(dir.path + "/live", engine: engine, durability: .write, writeModeSyncMilliseconds: 5)
            for index in 0..<50 { try put(engine, "k\(index)") }
            #expect(waitUntilSynced(data.journal))
            data.abandonForTesting()
        }
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine, durability: .write)
        defer { data.close() }
        let snapshot = try engine.snapshot()
        #expect(Array(snapshot.scan(ns)).count == 50)
    }
}
