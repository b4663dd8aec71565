import Testing
@testable import EmulatorStorage

@Suite struct HistoryTests {
    @Test func readsAtOldTimesSeeOldVersions() throws {
        let clock = ManualClock()
        let engine = StorageEngine(clock: clock.storageClock)
        let t1 = try engine.put([("d", "1"), ("e", "x")])
        clock.advance(by: 10)
        let t2 = try engine.put([("d", "2")])
        clock.advance(by: 10)
        let t3 = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            try txn.delete(testNamespace, key("d"))
        }.commitTime
        clock.advance(by: 10)
        let t4 = try engine.put([("d", "4")])
        #expect(try engine.value("d", at: t1 - 1) == nil)
        #expect(try engine.value("d", at: t1) == "1")
        #expect(try engine.value("d", at: t2 - 1) == "1")
        #expect(try engine.value("d", at: t2) == "2")
        #expect(try engine.value("d", at: t3) == nil)
        #expect(try engine.value("d", at: t4) == "4")
        #expect(try engine.snapshot(at: t2).get(testNamespace, key("d"))?.createTime == t1)
        #expect(try engine.snapshot(at: t4).get(testNamespace, key("d"))?.createTime == t4)
        #expect(try engine.snapshot(at: t2).scan(testNamespace).map(\.key) == [key("d"), key("e")])
        #expect(try engine.snapshot(at: t3).scan(testNamespace).map(\.key) == [key("e")])
        #expect(try engine.snapshot(at: t2).children(testNamespace, of: .root).map(\.key) == [key("d"), key("e")])
        #expect(try engine.snapshot(at: t3).children(testNamespace, of: .root).map(\.key) == [key("e")])
        #expect(engine.invariantViolations() == [])
    }

    @Test func historyExpiresAfterTheRetentionWindow() throws {
        let clock = ManualClock()
        let engine = StorageEngine(retention: 1_000, clock: clock.storageClock)
        let t1 = try engine.put([("d", "1")])
        clock.advance(by: 500)
        try engine.put([("d", "2")])
        #expect(try engine.value("d", at: t1) == "1")
        clock.advance(by: 2_000)
        try engine.put([("d", "3")])
        #expect(throws: StorageError.self) { try engine.snapshot(at: t1) }
        do {
            _ = try engine.snapshot(at: t1)
        } catch {
            #expect(error.code == .historyExpired)
        }
        #expect(engine.retainedSince == clock.now - 1_000)
        #expect(engine.invariantViolations() == [])
    }

    /// (With levels, versions are pruned as entries reach the main tree: `.immediate` sends each
    /// commit there, so the leaf holding both keys is rewritten by the last commit.)
    @Test func expiredVersionsAndTombstonesAreCollectedWhenTouched() throws {
        let clock = ManualClock()
        let engine = StorageEngine(retention: 1_000, clock: clock.storageClock, levels: .immediate)
        try engine.put([("d", "1"), ("gone", "x")])
        try engine.put([("d", "2")])
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in try txn.delete(testNamespace, key("gone")) }
        clock.advance(by: 5_000)
        try engine.put([("d", "3")])  // touches the leaf holding both keys
        let snapshot = try engine.snapshot()
        let tree = try #require(snapshot.state.namespaces[testNamespace]?.main.tree)
        #expect(tree.entry(key("gone").encoded) == nil)
        #expect(tree.entry(key("d").encoded)?.history.count == 1)  // only the version superseded just now
    }

    @Test func aSnapshotNeverChanges() throws {
        let engine = StorageEngine()
        try engine.put([("a", "1"), ("b", "1")])
        let snapshot = try engine.snapshot()
        try engine.put([("a", "2"), ("c", "3")])
        engine.clear(testNamespace)
        #expect(snapshot.scan(testNamespace).map { String(decoding: $0.value, as: UTF8.self) } == ["1", "1"])
        #expect(try engine.snapshot().scan(testNamespace).map(\.key) == [])
    }

    @Test func headSnapshotsCarryTheLastCommitTime() throws {
        let engine = StorageEngine()
        let time = try engine.put([("a", "1")])
        let snapshot = try engine.snapshot(at: time + 1_000_000)
        #expect(snapshot.readTime == time)
        #expect(snapshot.isHead)
        #expect(try !engine.snapshot(at: time - 1).isHead)
    }
}

@Suite struct HistorySweepTests {
    @Test func versionsInLeavesNoCommitTouchesAreSweptEventually() throws {
        let clock = ManualClock()
        let engine = StorageEngine(retention: 1_000, clock: clock.storageClock, levels: .immediate)
        try engine.put((0..<300).map { (String(format3($0)), "v") })
        try engine.put([("000", "changed")])
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in try txn.delete(testNamespace, key("001")) }
        clock.advance(by: 5_000)
        for round in 0..<200 { try engine.put([("999", "\(round)")]) }  // only ever touches the last leaf
        let tree = try #require(try engine.snapshot().state.namespaces[testNamespace]?.main.tree)
        #expect(tree.entry(key("000").encoded)?.history.isEmpty == true)
        #expect(tree.entry(key("001").encoded) == nil)
        #expect(engine.invariantViolations() == [])
    }

    private func format3(_ number: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: 3 - digits.count) + digits
    }
}
