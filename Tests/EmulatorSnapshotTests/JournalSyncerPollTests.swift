import EmulatorStorage
import EmulatorTestSupport
import Glibc
import Synchronization
import Testing
@testable import EmulatorSnapshot

/// The syncer polls for `Journal.pollNanoseconds` before it sleeps; an append signals only a
/// sleeping syncer, so a record that arrives while it polls, or just as it gives up, must still be
/// synced without waiting for a later commit.
@Suite struct JournalSyncerPollTests {
    let ns: NamespaceID = "firestore/demo/(default)"

    static func nanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    @Test func commitsArrivingAroundThePollWindowAreAllAcknowledgedWithoutALaterCommit() throws {
        let dir = TemporaryDirectory()
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine)
        defer { data.close() }
        let acknowledged = Acknowledgements()
        let window = Journal.pollNanoseconds
        // Gaps after each acknowledgement from 0 to 1.5 × the poll window, in 1/64 steps: the next
        // commit lands while the syncer polls, as it gives up, and while it sleeps.
        var stuck = 0
        for step in 0...96 {
            let gap = window * Int64(step) / 64
            let start = Self.nanoseconds()
            while Self.nanoseconds() - start < gap {}
            let (_, scope) = try DurabilityScope.collect {
                try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                    _ = try txn.put(ns, StorageKey("docs/d\(step)"), Array("v\(step)".utf8))
                }
            }
            guard let scope else {
                Issue.record("a journaled commit left nothing to wait for")
                continue
            }
            scope.whenDurable { acknowledged.count.add(1, ordering: .releasing) }
            let expected = step + 1
            let waitStart = Self.nanoseconds()
            while acknowledged.count.load(ordering: .acquiring) < expected && Self.nanoseconds() - waitStart < 5_000_000_000 {
                usleep(20)
            }
            if acknowledged.count.load(ordering: .acquiring) < expected {
                stuck += 1
                // Unblock it with another commit (its append wakes the syncer) so the test ends.
                try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                    _ = try txn.put(ns, StorageKey("rescue/\(step)"), Array("r".utf8))
                }
                while acknowledged.count.load(ordering: .acquiring) < expected { usleep(20) }
            }
        }
        #expect(stuck == 0)
    }
}

/// Counts durability actions (run on the syncer's thread).
private final class Acknowledgements: Sendable {
    let count = Atomic<Int>(0)
}
