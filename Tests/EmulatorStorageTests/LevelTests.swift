import EmulatorTestSupport
import Glibc
import Testing
@testable import EmulatorStorage

/// The levels a namespace's writes pass through (pending → fresh trees → recent → draining →
/// main; see `LevelPolicy`), with sizes small enough that every few commits seal, merge and
/// drain: whatever level holds a key, reads, scans, counts and held snapshots must agree with a
/// plain dictionary of what was written.
@Suite struct LevelTests {
    static let small = LevelPolicy(
        freshCapacity: 64, freshDivisor: 16, sealSize: 16, recentMinimum: 128, recentDivisor: 4, directClusters: false)

    /// 60 commits of 50 writes over 1,500 keys (puts, overwrites, deletes), checked against a
    /// dictionary after every commit; snapshots taken along the way still read what they read.
    @Test func readsAgreeWithTheWritesWhileLevelsMergeAndDrain() throws {
        let engine = StorageEngine(levels: LevelTests.small)
        var rng = SeededGenerator(seed: 21)
        var model: [StorageKey: [UInt8]] = [:]
        var held: [(StorageSnapshot, [StorageKey: [UInt8]])] = []
        for round in 0..<60 {
            try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                for _ in 0..<50 {
                    let target = key("c/d\(Int.random(in: 0..<1_500, using: &rng))")
                    if Int.random(in: 0..<5, using: &rng) == 0 {
                        try txn.delete(testNamespace, target)
                        model[target] = nil
                    } else {
                        let value = [UInt8(round), UInt8.random(in: 0...255, using: &rng)]
                        try txn.put(testNamespace, target, value)
                        model[target] = value
                    }
                }
            }
            let snapshot = try engine.snapshot()
            let scanned = snapshot.scan(testNamespace).map { ($0.key, $0.value) }
            let expected = model.sorted { $0.key < $1.key }
            #expect(scanned.map(\.0) == expected.map(\.key), "round \(round): keys")
            #expect(scanned.map(\.1) == expected.map(\.value), "round \(round): values")
            #expect(snapshot.count(testNamespace) == model.count, "round \(round): count")
            for probe in 0..<20 {
                let target = key("c/d\(probe * 73)")
                #expect(snapshot.get(testNamespace, target)?.value == model[target], "round \(round): get \(target)")
            }
            #expect(engine.invariantViolations() == [], "round \(round)")
            if round % 7 == 0 { held.append((snapshot, model)) }
        }
        for (snapshot, state) in held {
            #expect(snapshot.scan(testNamespace).map(\.key) == state.keys.sorted())
            #expect(snapshot.scan(testNamespace, reverse: true).map(\.value) == state.sorted { $0.key > $1.key }.map(\.value))
        }
        // The levels did their work: most entries reached the main tree.
        let space = try #require(try engine.snapshot().state.namespaces[testNamespace])
        var inMain = 0
        space.main.tree.root.forEachKey { _ in inMain += 1 }
        #expect(inMain > model.count / 2)
    }

    /// A key written in several levels (an old version in main, newer ones above) counts once
    /// when its subtree is cleared or cut, and a tombstone above hides a live entry below.
    @Test func clearsCountEachKeyOnceWhateverLevelsHoldIt() throws {
        let engine = StorageEngine(levels: LevelTests.small)
        for round in 0..<12 {
            try engine.put((0..<40).map { ("s/k\($0)", "v\(round)") } + (0..<40).map { ("t/k\(round)-\($0)", "x") })
        }
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            for index in 0..<10 { try txn.delete(testNamespace, key("s/k\(index)")) }
        }
        try engine.put([("s/k0", "back")])
        #expect(try engine.snapshot().count(testNamespace) == 31 + 480)
        engine.clear(testNamespace, subtree: key("s"))
        #expect(try engine.snapshot().count(testNamespace) == 480)
        #expect(try engine.snapshot().scan(testNamespace, .subtree(of: key("s"))).map(\.key) == [])
        #expect(engine.invariantViolations() == [])
        let cut = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            txn.deleteSubtree(testNamespace, key("t"))
        }
        #expect(cut.value == 480)
        #expect(try engine.snapshot().count(testNamespace) == 0)
        #expect(engine.invariantViolations() == [])
    }

    /// A cut of nearly everything counts the few upper-level keys outside it instead of the many
    /// inside (`upperAdjustment`): the count must still be exact, with tombstones and overwrites
    /// outside, and with writes earlier in the same commit that the live count does not hold yet.
    @Test func aCutOfNearlyEverythingCountsFromTheKeysOutsideIt() throws {
        let engine = StorageEngine(levels: LevelTests.small)
        var rng = SeededGenerator(seed: 8)
        var live = Set<String>()
        for round in 0..<20 {
            var values = (0..<40).map { _ in ("big/k\(Int.random(in: 0..<700, using: &rng))", "v\(round)") }
            values += [("a/\(round % 4)", "x\(round)"), ("z/\(round % 3)", "y\(round)")]
            try engine.put(values)
            live.formUnion(values.map(\.0))
        }
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            try txn.delete(testNamespace, key("a/1"))
            try txn.delete(testNamespace, key("z/0"))
        }
        live.subtract(["a/1", "z/0"])
        let insideBefore = live.filter { $0.hasPrefix("big/") }.count
        let cut = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            for index in 0..<30 { try txn.put(testNamespace, key("big/new\(index)"), bytes("n")) }
            try txn.put(testNamespace, key("a/9"), bytes("n"))
            try txn.delete(testNamespace, key("a/2"))
            return txn.deleteSubtree(testNamespace, key("big"))
        }
        #expect(cut.value == insideBefore + 30)
        #expect(try engine.snapshot().count(testNamespace) == 4 + 2 - 1 + 1 - 1)
        #expect(engine.invariantViolations() == [])
        // The same through a clear outside a commit.
        try engine.put((0..<200).map { ("big/again\($0)", "w") })
        engine.clear(testNamespace, subtree: key("big"))
        #expect(try engine.snapshot().count(testNamespace) == 5)
        #expect(engine.invariantViolations() == [])
    }

    /// An import into a namespace that already holds data goes through the levels like writes.
    @Test func aRestoreIntoDataGoesThroughTheLevels() throws {
        let engine = StorageEngine(clock: ManualClock(9_000_000).storageClock, levels: LevelTests.small)
        try engine.put((0..<300).map { ("r/\($0)", "old") })
        let entries = (0..<1_000).reversed().map {
            StoredEntry(key: key("r/\($0)"), value: bytes("new"), createTime: 5_000_000, updateTime: 6_000_000)
        }
        try engine.restore(testNamespace, entries)
        let snapshot = try engine.snapshot()
        #expect(snapshot.count(testNamespace) == 1_000)
        #expect(snapshot.scan(testNamespace).allSatisfy { $0.value == bytes("new") && $0.updateTime == 6_000_000 })
        #expect(engine.invariantViolations() == [])
    }

    /// Writes in key order (push ids) skip the levels: each full pending tree goes straight into
    /// the main tree. A key an upper tree holds keeps the pending tree out of the main one.
    @Test func writesInKeyOrderGoStraightToTheMainTree() throws {
        var policy = LevelTests.small
        policy.directClusters = true
        let engine = StorageEngine(levels: policy)
        for round in 0..<40 {
            try engine.put((0..<25).map { (LevelTests.padded(round * 25 + $0), "v") })
        }
        var space = try #require(try engine.snapshot().state.namespaces[testNamespace])
        var inMain = 0
        space.main.tree.root.forEachKey { _ in inMain += 1 }
        #expect(inMain == 1_000)
        #expect(space.fresh.isEmpty && space.recent.root.isEmpty && space.draining.root.isEmpty)
        // Random keys over the same range do go through the levels (and agree with every read).
        var rng = SeededGenerator(seed: 5)
        for _ in 0..<10 {
            try engine.put((0..<25).map { _ in (LevelTests.padded(Int.random(in: 0..<1_000, using: &rng)), "w") })
        }
        space = try #require(try engine.snapshot().state.namespaces[testNamespace])
        #expect(!space.fresh.isEmpty || !space.recent.root.isEmpty || !space.draining.root.isEmpty)
        #expect(try engine.snapshot().count(testNamespace) == 1_000)
        #expect(engine.invariantViolations() == [])
    }

    /// A key written again and again stays in `pending`; its versions older than the retained
    /// history still go (before, a hot key kept every version it ever had), while reads inside
    /// the history see each version.
    @Test func aHotKeyKeepsOnlyTheRetainedHistory() throws {
        let clock = ManualClock()
        let engine = StorageEngine(retention: 1_000, clock: clock.storageClock)
        var times: [(CommitTime, String)] = []
        for round in 0..<300 {
            clock.advance(by: 100)
            times.append((try engine.put([("counter", "\(round)")]), "\(round)"))
        }
        let space = try #require(try engine.snapshot().state.namespaces[testNamespace])
        let entry = try #require(space.headEntry(key("counter").encoded))
        #expect(entry.history.count <= 12)
        for (time, value) in times.suffix(9) { #expect(try engine.value("counter", at: time) == value) }
        #expect(engine.invariantViolations() == [])
    }

    /// A merge computed off the commit (`MergeMode.deferred` here) is installed only over the
    /// trees it started from: installed, the levels hold the same entries as before with the
    /// merged trees gone; over a replaced tree (same entries, another object) it is dropped and
    /// nothing moves. Both the fresh merge and the drain.
    @Test func mergesOffTheCommitInstallOnlyOverTheTreesTheyStartedFrom() throws {
        let engine = StorageEngine(levels: LevelPolicy(
            freshCapacity: 32, sealSize: 16, recentMinimum: 64, recentDivisor: 1_000, directClusters: false, merges: .deferred))
        var rng = SeededGenerator(seed: 8)
        var sawFresh = false
        var sawDrain = false
        for round in 0..<200 where !(sawFresh && sawDrain) {
            _ = try engine.put((0..<16).map { _ in (LevelTests.padded(Int.random(in: 0..<5_000, using: &rng)), "r\(round)") })
            let space = try #require(try engine.snapshot().state.namespaces[testNamespace])
            let entries = LevelTests.entries(space)
            if space.freshJob != nil && !sawFresh {
                sawFresh = true
                var installed = space
                installed.installFinishedMerges(waiting: true)
                #expect(installed.freshJob == nil && installed.fresh.count < space.fresh.count)
                #expect(installed.recentEntries > space.recentEntries)
                #expect(LevelTests.entries(installed) == entries)
                var replaced = space
                replaced.recent = VersionedTree(root: replaced.recent.root.copy(horizon: 0))
                replaced.installFinishedMerges(waiting: true)
                #expect(replaced.freshJob == nil && replaced.fresh.count == space.fresh.count)
                #expect(replaced.recentEntries == space.recentEntries && LevelTests.entries(replaced) == entries)
            }
            if space.drainJob != nil && !sawDrain {
                sawDrain = true
                var installed = space
                installed.installFinishedMerges(waiting: true)
                #expect(installed.drainJob == nil && installed.drainingEntries < space.drainingEntries)
                #expect(installed.main.live > space.main.live && LevelTests.entries(installed) == entries)
                var replaced = space
                replaced.main.tree = VersionedTree(root: replaced.main.tree.root.copy(horizon: 0))
                replaced.installFinishedMerges(waiting: true)
                #expect(replaced.drainJob == nil && replaced.drainingEntries == space.drainingEntries)
                #expect(replaced.main.live == space.main.live && LevelTests.entries(replaced) == entries)
            }
        }
        #expect(sawFresh && sawDrain)
        #expect(engine.invariantViolations() == [])
    }

    /// With merges in the background, a namespace whose writes stop does not keep its merges
    /// waiting for a next commit: the engine installs them by itself a little later (and starts
    /// what is due then), leaving the same entries in fewer trees.
    @Test func mergesUnderWayWhenWritesStopAreInstalledWithoutACommit() throws {
        let engine = StorageEngine(levels: LevelPolicy(
            freshCapacity: 32, sealSize: 16, recentMinimum: 64, recentDivisor: 1_000, directClusters: false, merges: .background))
        var rng = SeededGenerator(seed: 9)
        var round = 0
        var space: NamespaceState
        repeat {
            _ = try engine.put((0..<16).map { _ in (LevelTests.padded(Int.random(in: 0..<5_000, using: &rng)), "r\(round)") })
            round += 1
            space = try #require(try engine.snapshot().state.namespaces[testNamespace])
        } while !space.mergesUnderWay && round < 200
        #expect(space.mergesUnderWay)
        let entries = LevelTests.entries(space)
        let lastCommit = engine.lastCommitTime
        var settled = space
        for _ in 0..<500 where settled.mergesUnderWay {
            usleep(10_000)
            settled = try #require(try engine.snapshot().state.namespaces[testNamespace])
        }
        #expect(!settled.mergesUnderWay)
        #expect(settled.fresh.count < space.fresh.count || settled.drainingEntries < space.drainingEntries)
        #expect(LevelTests.entries(settled) == entries && engine.lastCommitTime == lastCommit)
        #expect(engine.invariantViolations() == [])
    }

    /// Every entry the namespace's trees answer for (newest wins), in key order.
    static func entries(_ space: NamespaceState) -> [StoredEntry] {
        var cursor = StackCursor(space.headStack)
        cursor.seek(atLeast: [])
        var entries: [StoredEntry] = []
        while let entry = cursor.current {
            if let value = entry.value {
                entries.append(StoredEntry(
                    key: StorageKey(trustedEncoding: entry.key), value: value, createTime: entry.createTime,
                    updateTime: entry.updateTime))
            }
            cursor.next()
        }
        return entries
    }

    /// "p/00042": ids whose byte order is their numeric order.
    static func padded(_ number: Int) -> String {
        let digits = String(number)
        return "p/" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
    }
}
