import Testing
@testable import EmulatorStorage

/// An overwrite of a document with a long history costs the same as one with a short history:
/// the new version goes into the buffer the published history shares (no version is copied), the
/// leaf's copy does not store the history again, and readers of the published tree and of
/// earlier times still see exactly what they saw.
@Suite struct HistorySharingTests {
    private let path = "docs/a"

    private func history(_ snapshot: StorageSnapshot) throws -> VersionHistory {
        try #require(snapshot.state.namespaces.withState(testNamespace) { $0.headEntry(key(path).encoded)?.history } ?? nil)
    }

    private func pendingLeaf(_ snapshot: StorageSnapshot) throws -> TreeNode {
        let root = try #require(snapshot.state.namespaces.withState(testNamespace) { $0.pending.root })
        return root.isLeaf ? root : VersionedTree(root: root).leaf(for: key(path).encoded)
    }

    @Test func anOverwriteAppendsToTheSharedHistoryWithoutCopyingIt() throws {
        let clock = ManualClock()
        // What a copy of the published leaf shares: without the recycled tree (`PendingSpare`),
        // which would be written instead.
        let engine = StorageEngine(clock: clock.storageClock, recyclesPending: false)
        var times: [CommitTime] = []
        for version in 0..<100 {
            clock.advance(by: 10)
            times.append(try engine.put([(path, "v\(version)"), ("docs/b\(version % 7)", "w\(version)")]))
        }
        let before = try engine.snapshot()
        let published = try history(before)
        #expect(published.count == 99)

        clock.advance(by: 10)
        try engine.put([(path, "v100")])
        let after = try engine.snapshot()
        let appended = try history(after)
        #expect(appended.count == 100 && appended.last?.time == times[99])
        #expect(appended.sharesBuffer(with: published), "the write copied the 99 versions kept")
        let (oldLeaf, newLeaf) = (try pendingLeaf(before), try pendingLeaf(after))
        #expect(oldLeaf !== newLeaf)
        #expect(newLeaf.histories.sharesChunk(0, with: oldLeaf.histories), "the copied leaf stored the history again")

        // The published tree and reads at earlier times see what they saw.
        #expect(try history(before).count == 99)
        #expect(try engine.value(path, at: times[99]) == "v99")
        #expect(try engine.value(path, at: times[40]) == "v40")
        #expect(try engine.value(path) == "v100")
        #expect(before.get(testNamespace, key(path)).map { String(decoding: $0.value, as: UTF8.self) } == "v99")
    }

    /// A write that returns a key to its value before the commit takes back its version; a later
    /// write from the published state must not see the version taken back, or lose its own.
    @Test func aTakenBackVersionIsNotSeenByLaterWrites() throws {
        let clock = ManualClock()
        let engine = StorageEngine(clock: clock.storageClock)
        var times: [CommitTime] = []
        for version in 0..<5 {
            clock.advance(by: 10)
            times.append(try engine.put([(path, "v\(version)")]))
        }
        clock.advance(by: 10)
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            try txn.put(testNamespace, key(path), bytes("changed"))
            try txn.put(testNamespace, key(path), bytes("v4"))
        }
        #expect(try history(engine.snapshot()).count == 4)
        clock.advance(by: 10)
        let last = try engine.put([(path, "v5")])
        let kept = try history(engine.snapshot())
        #expect(kept.map(\.time) == times)
        #expect(try engine.value(path, at: times[4]) == "v4" && engine.value(path, at: last) == "v5")
        #expect(try engine.value(path, at: times[0]) == "v0")
    }

    /// An abandoned commit's append stays out of every history.
    @Test func anAbandonedCommitLeavesNoVersionBehind() throws {
        let clock = ManualClock()
        let engine = StorageEngine(clock: clock.storageClock)
        var times: [CommitTime] = []
        for version in 0..<3 {
            clock.advance(by: 10)
            times.append(try engine.put([(path, "v\(version)")]))
        }
        clock.advance(by: 10)
        let abandoned = engine.applyCommit { txn in
            _ = try? txn.put(testNamespace, key(path), bytes("never"))
            return false
        }
        #expect(abandoned == nil)
        clock.advance(by: 10)
        try engine.put([(path, "v3")])
        #expect(try history(engine.snapshot()).map(\.time) == times)
        #expect(try engine.value(path, at: times[2]) == "v2" && engine.value(path) == "v3")
    }
}
