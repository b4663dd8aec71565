import Testing

@testable import EmulatorStorage

/// Namespaces that no reader asks about at an earlier time (the RTDB's) keep no history: what
/// a commit overwrote or deleted is freed when it ends, not after the retention window.
@Suite struct HistoryPolicyTests {
    static let big = String(repeating: "v", count: 64 * 1024)

    static func engine(keeping: Bool, clock: ManualClock, levels: LevelPolicy = .standard) -> StorageEngine {
        StorageEngine(clock: clock.storageClock, levels: levels, keepsHistory: { _ in keeping })
    }

    @Test(arguments: [LevelPolicy.standard, .immediate])
    func overwritesAndDeletesKeepNothingWithoutHistory(levels: LevelPolicy) throws {
        let clock = ManualClock()
        let engine = Self.engine(keeping: false, clock: clock, levels: levels)
        var times: [CommitTime] = []
        for i in 0..<30 {
            clock.advance(by: 10)
            times.append(try engine.put([("doc", Self.big + "\(i)"), ("other\(i)", "x")]))
        }
        clock.advance(by: 10)
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in try txn.delete(testNamespace, key("doc")) }
        // Before: 30 × 64 KiB stayed readable (at `times`) for an hour.
        #expect(engine.historyFootprint(of: testNamespace).bytes == 0)
        #expect(try engine.value("doc") == nil)
        #expect(try engine.value("other29") == "x")
        #expect(engine.invariantViolations() == [])
        // A write after the delete starts afresh.
        clock.advance(by: 10)
        try engine.put([("doc", "again")])
        #expect(try engine.value("doc") == "again")
        #expect(engine.invariantViolations() == [])
    }

    @Test func namespacesWithHistoryStillServeEarlierReads() throws {
        let clock = ManualClock()
        let engine = Self.engine(keeping: true, clock: clock)
        clock.advance(by: 10)
        let t1 = try engine.put([("doc", Self.big)])
        clock.advance(by: 10)
        try engine.put([("doc", "small")])
        #expect(try engine.value("doc", at: t1) == Self.big)
        #expect(engine.historyFootprint(of: testNamespace).bytes == Self.big.utf8.count)
    }

    /// A held snapshot (a running transaction, an export) still sees what it saw.
    @Test func heldSnapshotsKeepTheirView() throws {
        let clock = ManualClock()
        let engine = Self.engine(keeping: false, clock: clock)
        clock.advance(by: 10)
        try engine.put([("doc", "first")])
        let held = try engine.snapshot()
        clock.advance(by: 10)
        try engine.put([("doc", "second")])
        clock.advance(by: 10)
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in try txn.delete(testNamespace, key("doc")) }
        #expect(held.get(testNamespace, key("doc")).map { String(decoding: $0.value, as: UTF8.self) } == "first")
        #expect(try engine.value("doc") == nil)
    }

    /// A second write of a key in the same commit still sees the version before the commit.
    @Test func rewriteInOneCommitRestoresTheEarlierValue() throws {
        let clock = ManualClock()
        let engine = Self.engine(keeping: false, clock: clock)
        clock.advance(by: 10)
        try engine.put([("doc", "kept")])
        clock.advance(by: 10)
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            try txn.put(testNamespace, key("doc"), Array("temp".utf8))
            try txn.delete(testNamespace, key("doc"))
            try txn.put(testNamespace, key("doc"), Array("kept".utf8))
        }
        #expect(try engine.value("doc") == "kept")
        #expect(engine.invariantViolations() == [])
    }

    @Test func subtreeDeletesRetireNothingWithoutHistory() throws {
        let clock = ManualClock()
        let engine = StorageEngine(clock: clock.storageClock, cutThreshold: 0, keepsHistory: { _ in false })
        clock.advance(by: 10)
        try engine.put((0..<100).map { ("t/\($0)", Self.big) })
        clock.advance(by: 10)
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in txn.deleteSubtree(testNamespace, key("t")) }
        #expect(engine.historyFootprint(of: testNamespace) == (0, 0))
        #expect(try engine.value("t/5") == nil)
    }
}

/// History is bounded by memory as well as by time.
@Suite struct HistoryMemoryBoundTests {
    @Test func pastTheBoundTheOldestVersionsExpireFirst() throws {
        let clock = ManualClock()
        let engine = StorageEngine(clock: clock.storageClock, levels: .immediate, maxHistoryBytes: 100 * 1024)
        let value = String(repeating: "v", count: 30 * 1024)
        var times: [CommitTime] = []
        for i in 0..<10 {
            clock.advance(by: 10)
            times.append(try engine.put([("doc", value + "\(i)")]))
        }
        // Nine overwrites of 30 KiB each; 100 KiB keep the last three superseded versions.
        #expect(try engine.value("doc", at: times[8]) == value + "8")
        #expect(try engine.value("doc", at: times[6]) == value + "6")
        #expect(throws: StorageError.self) { try engine.snapshot(at: times[5]) }
        do {
            _ = try engine.snapshot(at: times[0])
        } catch {
            #expect(error.code == .historyExpired)
        }
        // Expired versions are freed when their leaf is next written, merged or swept, and a
        // commit prunes with the horizon the commits before it set: the bound plus at most one
        // commit's worth (before: all nine versions, 270 KiB).
        #expect(engine.historyFootprint(of: testNamespace).bytes <= 131 * 1024)
        clock.advance(by: 10)
        try engine.put([("doc", "small")])
        #expect(engine.historyFootprint(of: testNamespace).bytes <= 131 * 1024)
        #expect(engine.invariantViolations() == [])
    }

    /// Small versions count for what they hold in memory, not just their bytes: 1,000
    /// overwrites of a 2-byte value pass a 64 KiB bound (before, they counted 7 bytes each).
    @Test func smallVersionsCountTheirOverhead() throws {
        let clock = ManualClock()
        let engine = StorageEngine(clock: clock.storageClock, levels: .immediate, maxHistoryBytes: 64 * 1024)
        var times: [CommitTime] = []
        for i in 0..<1000 {
            clock.advance(by: 10)
            times.append(try engine.put([("doc", String(i % 100))]))
        }
        #expect(throws: StorageError.self) { try engine.snapshot(at: times[0]) }
        #expect(try engine.value("doc", at: times[998]) == "98")
        #expect(engine.historyFootprint(of: testNamespace).bytes < 64 * 1024)
    }

    @Test func withinTheBoundEverythingStaysReadable() throws {
        let clock = ManualClock()
        let engine = StorageEngine(clock: clock.storageClock, maxHistoryBytes: 1 << 20)
        clock.advance(by: 10)
        let t1 = try engine.put([("doc", "one")])
        clock.advance(by: 10)
        try engine.put([("doc", "two")])
        #expect(try engine.value("doc", at: t1) == "one")
    }
}
