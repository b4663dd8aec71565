import EmulatorTestSupport
import Testing
@testable import EmulatorStorage

/// Behaviour of trees several levels deep (thousands of keys), where range cuts, in-place
/// commit updates and held snapshots meet node boundaries.
@Suite struct LargeTreeTests {
    /// 3 collections × `perCollection` documents, written in 500-key commits in a scrambled order.
    static func filled(perCollection: Int = 6_000) throws -> (StorageEngine, [StorageKey]) {
        let engine = StorageEngine()
        var keys: [StorageKey] = []
        for collection in ["a", "m", "z"] {
            for index in 0..<perCollection { keys.append(key("\(collection)/d\((index &* 7919) % perCollection)")) }
        }
        var rng = SeededGenerator(seed: 11)
        let order = keys.shuffled(using: &rng)
        var offset = 0
        while offset < order.count {
            let batch = order[offset..<min(offset + 500, order.count)]
            try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                for key in batch { try txn.put(testNamespace, key, Array(key.description.utf8)) }
            }
            offset += 500
        }
        return (engine, keys.sorted())
    }

    @Test(arguments: ["m", "a", "z", "m/d17", "nothing"])
    func clearingASubtreeOfABigTreeRemovesExactlyIt(subtree: String) throws {
        let (engine, keys) = try LargeTreeTests.filled()
        let held = try engine.snapshot()
        let cut = key(subtree)
        engine.clear(testNamespace, subtree: cut)
        let expected = keys.filter { !cut.contains($0) }
        let snapshot = try engine.snapshot()
        #expect(snapshot.scan(testNamespace).map(\.key) == expected)
        #expect(snapshot.scan(testNamespace, reverse: true).map(\.key) == expected.reversed())
        #expect(snapshot.count(testNamespace) == expected.count)
        #expect(engine.invariantViolations() == [])
        // The snapshot taken before the clear still sees everything.
        #expect(held.scan(testNamespace).map(\.key) == keys)
        // The namespace keeps working after the cut.
        try engine.put([("\(subtree)/again", "x"), ("m/d1", "y")])
        #expect(try engine.value("\(subtree)/again") == "x")
        #expect(try engine.value("m/d1") == "y")
        #expect(engine.invariantViolations() == [])
    }

    @Test func clearingWithAnIndexDropsTheSubtreesIndexEntries() throws {
        let (engine, _) = try LargeTreeTests.filled(perCollection: 3_000)
        engine.ensureIndex(testNamespace, IndexDefinition(id: "all", scope: .root) { _, value in [value] })
        engine.clear(testNamespace, subtree: key("m"))
        let hits = try engine.snapshot().scanIndex(testNamespace, "all").map(\.key)
        #expect(hits.count == 6_000)
        #expect(!hits.contains { key("m").contains($0) })
        #expect(engine.invariantViolations() == [])
    }

    /// Later commits (inserts that split leaves and internal nodes, deletes, overwrites) never
    /// change what a snapshot taken earlier reads, by point reads or scans.
    @Test func snapshotsHeldAcrossManyCommitsOnABigTreeNeverChange() throws {
        let (engine, keys) = try LargeTreeTests.filled(perCollection: 4_000)
        let held = try engine.snapshot()
        let before = held.scan(testNamespace).map { ($0.key, $0.value, $0.updateTime) }
        var rng = SeededGenerator(seed: 5)
        for round in 0..<20 {
            try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                for _ in 0..<300 {
                    let target = keys[Int.random(in: 0..<keys.count, using: &rng)]
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: try txn.delete(testNamespace, target)
                    case 1: try txn.put(testNamespace, target, [UInt8(round)])
                    default: try txn.put(testNamespace, target.appending("n\(round)"), [1])
                    }
                }
            }
        }
        let after = held.scan(testNamespace).map { ($0.key, $0.value, $0.updateTime) }
        #expect(after.elementsEqual(before) { $0 == $1 })
        for key in keys {
            #expect(held.get(testNamespace, key)?.value == Array(key.description.utf8))
        }
        #expect(engine.invariantViolations() == [])
    }

    /// Internal nodes copied by a commit share their children with the node they were copied
    /// from and record replaced children as patches; a chain of snapshots, one per commit, each
    /// still reads exactly its own version while later commits patch, re-patch and split the
    /// same nodes.
    @Test func everySnapshotInAChainOfSmallCommitsKeepsItsOwnVersion() throws {
        let (engine, keys) = try LargeTreeTests.filled(perCollection: 3_000)
        var rng = SeededGenerator(seed: 23)
        var model = Dictionary(uniqueKeysWithValues: keys.map { ($0, Array($0.description.utf8)) })
        var held: [(StorageSnapshot, [StorageKey: [UInt8]])] = []
        for round in 0..<40 {
            try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                // A few writes per commit, so each copied internal node gets one or two patches.
                for step in 0..<6 {
                    let target = keys[Int.random(in: 0..<keys.count, using: &rng)]
                    if step == 0 {
                        let added = target.appending("r\(round)")
                        try txn.put(testNamespace, added, [UInt8(round)])
                        model[added] = [UInt8(round)]
                    } else if step == 1 {
                        try txn.delete(testNamespace, target)
                        model[target] = nil
                    } else {
                        try txn.put(testNamespace, target, [UInt8(round), UInt8(step)])
                        model[target] = [UInt8(round), UInt8(step)]
                    }
                }
            }
            held.append((try engine.snapshot(), model))
            #expect(engine.invariantViolations() == [])
        }
        for (index, (snapshot, expected)) in held.enumerated() {
            let seen = snapshot.scan(testNamespace).map { ($0.key, $0.value) }
            let want = expected.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            #expect(seen.elementsEqual(want) { $0 == $1 }, "snapshot \(index)")
            for (key, value) in want.prefix(200) { #expect(snapshot.get(testNamespace, key)?.value == value) }
        }
    }
}
