import EmulatorTestSupport
import Testing
@testable import EmulatorStorage

/// `CommitBuilder.putNewChildren` stores a run of new children at once; it must store exactly
/// what `put` stores child by child. Two engines get the same commits, one through
/// `putNewChildren` (and `put` for each child it stops at), the other through `put` alone, with
/// children that already exist, hold entries below, were deleted, repeat a name, have an empty
/// name or break the limits, under every level policy; their changes, data, reads at old times
/// and invariants must agree.
@Suite struct PutNewChildrenTests {
    static let policies: [(String, LevelPolicy)] = [
        ("standard", .standard),
        ("small", LevelPolicy(freshCapacity: 64, freshDivisor: 16, sealSize: 16, recentMinimum: 128, recentDivisor: 4,
            directClusters: false)),
        ("small, direct", LevelPolicy(freshCapacity: 64, freshDivisor: 16, sealSize: 16, recentMinimum: 128, recentDivisor: 4)),
        ("immediate", .immediate),
    ]

    @Test(arguments: 0..<policies.count, [false, true])
    func storesWhatPutStores(_ policy: Int, _ keepsHistory: Bool) throws {
        let (name, levels) = PutNewChildrenTests.policies[policy]
        let clock = ManualClock()
        let history: @Sendable (NamespaceID) -> Bool = { _ in keepsHistory }
        let batched = StorageEngine(clock: clock.storageClock, cutThreshold: 8, levels: levels, keepsHistory: history)
        let single = StorageEngine(clock: clock.storageClock, cutThreshold: 8, levels: levels, keepsHistory: history)
        for engine in [batched, single] { engine.configure(testNamespace, limits: NamespaceLimits(maxSegmentBytes: 12)) }
        var rng = SeededGenerator(seed: UInt64(policy * 2 + (keepsHistory ? 1 : 0) + 7))
        var times: [CommitTime] = []
        for round in 0..<80 {
            clock.advance(by: 10)
            // Children of one of a few parents: mostly new (in order or scattered), some old.
            let parent = key(["p", "p/q", "r"][Int.random(in: 0..<3, using: &rng)])
            var names: [String] = []
            var values: [[UInt8]] = []
            let bunched = Bool.random(using: &rng)
            for index in 0..<Int.random(in: 0..<60, using: &rng) {
                let number = bunched ? round * 60 + index : Int.random(in: 0..<3_000, using: &rng)
                switch Int.random(in: 0..<40, using: &rng) {
                case 0: names.append("")
                case 1: names.append("much-too-long-\(number)")
                case 2 where !names.isEmpty: names.append(names[Int.random(in: 0..<names.count, using: &rng)])
                case 3: names.append("q")  // the parent of `p/q`'s children
                default: names.append("c\(number)")
                }
                values.append([UInt8(round), UInt8.random(in: 0...255, using: &rng)])
            }
            // Now and then some entries below children, and deletions (tombstones, cuts).
            let extra = Int.random(in: 0..<4, using: &rng) == 0
            let deletes = (0..<Int.random(in: 0..<4, using: &rng)).map { _ in "c\(Int.random(in: 0..<3_000, using: &rng))" }
            let start = Int.random(in: 0..<2, using: &rng)
            let commit = { (engine: StorageEngine, batch: Bool) throws -> CommitResult<Void> in
                try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                    if extra { try txn.put(testNamespace, parent.appending("c\(round * 7)").appending("below"), [1]) }
                    for name in deletes { try txn.delete(testNamespace, parent.appending(name)) }
                    if round % 9 == 4 { txn.deleteSubtree(testNamespace, parent) }
                    var index = start
                    while index < names.count {
                        if batch {
                            index = txn.putNewChildren(testNamespace, of: parent, names, values, from: index)
                            guard index < names.count else { break }
                        }
                        _ = try? txn.put(testNamespace, parent.appending(names[index]), values[index])
                        index += 1
                    }
                }
            }
            let left = try commit(batched, true)
            let right = try commit(single, false)
            #expect(left.commitTime == right.commitTime)
            #expect(left.changes == right.changes, "\(name), round \(round): changes")
            #expect(left.cleared == right.cleared, "\(name), round \(round): cleared")
            times.append(left.commitTime)
            let (a, b) = (try batched.snapshot(), try single.snapshot())
            #expect(a.scan(testNamespace).map { $0 } == b.scan(testNamespace).map { $0 }, "\(name), round \(round): data")
            #expect(a.count(testNamespace) == b.count(testNamespace), "\(name), round \(round): count")
            #expect(batched.invariantViolations() == [], "\(name), round \(round)")
        }
        for time in times where time >= batched.retainedSince {
            let (a, b) = (try batched.snapshot(at: time), try single.snapshot(at: time))
            #expect(a.scan(testNamespace).map { $0 } == b.scan(testNamespace).map { $0 }, "\(name), at \(time)")
        }
    }

    /// The batch stops where `put` would find something: at a child that exists, and at the
    /// second of two equal names.
    @Test func stopsAtTheFirstChildThatIsNotNew() throws {
        let engine = StorageEngine()
        try engine.put([("p/b", "old")])
        let parent = key("p")
        let stops = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) -> [Int] in
            [
                txn.putNewChildren(testNamespace, of: parent, ["a", "c", "b", "d"], [[1], [2], [3], [4]], from: 0),
                txn.putNewChildren(testNamespace, of: parent, ["x", "y", "x", "z"], [[1], [2], [3], [4]], from: 0),
                txn.putNewChildren(testNamespace, of: parent, ["e", ""], [[1], [2]], from: 0),
                txn.putNewChildren(testNamespace, of: parent, ["f"], [[1]], from: 1),
            ]
        }
        #expect(stops.value == [2, 2, 1, 1])
        #expect(stops.changes.map(\.key) == ["p/a", "p/c", "p/x", "p/y", "p/e"].map(key))
    }
}
