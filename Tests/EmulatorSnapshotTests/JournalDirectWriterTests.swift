import EmulatorStorage
import EmulatorTestSupport
import Glibc
import Testing
@testable import EmulatorSnapshot

/// The `O_DIRECT | O_DSYNC` journal writer rewrites the partial last block ahead of every write;
/// the file must read back as exactly the concatenation of what was written, zeros after.
@Suite struct JournalDirectWriterTests {
    /// A zero-filled file of `size` bytes (the journal's synced preallocation).
    func preallocated(_ dir: TemporaryDirectory, size: Int) throws -> String {
        let path = dir.path + "/journal"
        try dir.write("journal", [UInt8](repeating: 0, count: size))
        return path
    }

    @Test func writesOfEverySizeReadBackInOrderWithZerosAfter() throws {
        let dir = TemporaryDirectory()
        let size = 1 << 20
        let path = try preallocated(dir, size: size)
        guard let writer = JournalDirectWriter.open(path: path, fault: nil) else {
            // /tmp refuses O_DIRECT on this machine: nothing to check here.
            return
        }
        var expected: [UInt8] = []
        // Small records inside one block, records crossing blocks, one exactly a block, one
        // larger than the writer's initial buffer (64 KiB), and an empty write.
        let sizes = [1, 37, 300, 4096 - 338, 4096, 5000, 0, 100_000, 3, 8191, 12]
        for (index, count) in sizes.enumerated() {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index &+ 1) }
            #expect(try writer.write(bytes, at: expected.count))
            expected += bytes
        }
        writer.close()
        let file = try SnapshotFileSystem().read(path)
        #expect(file.count == size)
        #expect(Array(file.prefix(expected.count)) == expected)
        #expect(file[expected.count...].allSatisfy { $0 == 0 })
    }

    @Test func aWriteFaultIsReportedWithThePath() throws {
        let dir = TemporaryDirectory()
        let path = try preallocated(dir, size: 1 << 16)
        guard let writer = JournalDirectWriter.open(path: path, fault: { _ in ENOSPC }) else { return }
        do {
            _ = try writer.write([1, 2, 3], at: 0)
            Issue.record("expected the injected fault")
        } catch {
            #expect(error.code == .io)
            #expect(error.file == path)
        }
    }

    /// Whether this machine's /tmp accepts `O_DIRECT` (tmpfs may not).
    func directIOAvailable(_ dir: TemporaryDirectory) throws -> Bool {
        let path = try preallocated(dir, size: 4096)
        return JournalDirectWriter.open(path: path, fault: nil) != nil
    }

    /// Commits through rotations (a small checkpoint threshold), crashes without a close, and
    /// recovers everything: with direct writes (where available) and with the fallback.
    @Test(arguments: [true, false])
    func everyAcknowledgedCommitSurvivesACrashThroughRotations(direct: Bool) throws {
        let dir = TemporaryDirectory()
        let available = try directIOAvailable(dir)
        var fileSystem = SnapshotFileSystem()
        fileSystem.directJournalWrites = direct
        let ns: NamespaceID = "firestore/demo/(default)"
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine, checkpointBytes: 3_000, fileSystem: fileSystem)
        #expect(data.journal.writesDirectly == (direct && available))
        for i in 0..<400 {
            try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                _ = try txn.put(ns, StorageKey("docs/d\(i)"), Array((String(repeating: "v", count: i % 97) + "\(i)").utf8))
            }
        }
        // Rotations opened new journal files; they still write directly. A rotation runs on the
        // checkpoint's own thread, which a loaded machine may not have run yet: wait for it.
        let deadline = ContinuousClock.now + .seconds(20)
        while data.journal.sequence == 1 && ContinuousClock.now < deadline { usleep(2_000) }
        #expect(data.journal.sequence > 1)
        #expect(data.journal.writesDirectly == (direct && available))
        data.abandonForTesting()
        let restarted = StorageEngine()
        let reopened = try DataDirectory.open(dir.path + "/live", engine: restarted)
        defer { reopened.close() }
        let snapshot = try restarted.snapshot()
        let values = Dictionary(uniqueKeysWithValues: snapshot.scan(ns).map { ($0.key.description, String(decoding: $0.value, as: UTF8.self)) })
        #expect(values.count == 400)
        #expect(values["/docs/d399"] == String(repeating: "v", count: 399 % 97) + "399")
        #expect(values["/docs/d96"] == String(repeating: "v", count: 96) + "96")
    }
}
