import EmulatorTestSupport
import Testing
@testable import EmulatorStorage

/// `CommitBuilder.mayHoldEntries`, the check writers make before scanning below a location:
/// whatever level holds a key (and with this commit's own writes), it must never answer false
/// for a range a scan finds entries in, and it must answer false for most ranges nothing was
/// ever written in (else it saves nothing).
@Suite struct MayHoldEntriesTests {
    /// Puts (five times in six) or deletes `c/p<n>` for a random parent below `parents`, or a
    /// child `c/p<n>/x<write % 3>` of every `nestedEvery`-th parent.
    static func randomWrite(
        _ txn: inout CommitBuilder, _ rng: inout SeededGenerator, _ write: Int, parents: Int, nestedEvery: Int
    ) throws(StorageError) {
        let parent = Int.random(in: 0..<parents, using: &rng)
        let target = parent % nestedEvery == 0 ? key("c/p\(parent)/x\(write % 3)") : key("c/p\(parent)")
        if Int.random(in: 0..<6, using: &rng) == 0 {
            try txn.delete(testNamespace, target)
        } else {
            try txn.put(testNamespace, target, [UInt8(write)])
        }
    }

    @Test func neverMissesAnEntryAndRulesOutEmptySubtrees() throws {
        let engine = StorageEngine(levels: LevelTests.small)
        var rng = SeededGenerator(seed: 7)
        var ruledOut = 0
        var emptyProbes = 0
        for _ in 0..<40 {
            try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                for write in 0..<40 {
                    // Nested keys under every tenth parent, so subtrees hold several entries.
                    try Self.randomWrite(&txn, &rng, write, parents: 2_000, nestedEvery: 10)
                    // Probed mid-commit too: this commit's own writes count.
                    if write % 8 == 0 {
                        (ruledOut, emptyProbes) = Self.probe(txn, &rng, ruledOut, emptyProbes)
                    }
                }
            }
        }
        #expect(emptyProbes > 100)
        // Most probes of subtrees never written are answered without a scan.
        #expect(ruledOut * 2 > emptyProbes)
    }

    /// The search for many subtrees in ascending order (`mayHoldEntries(inSubtreesOfAscending:)`,
    /// which reuses the last leaf) answers what one search per subtree answers, whatever levels
    /// hold the entries, and both answers change as the data does.
    @Test func ascendingSearchesAnswerWhatSingleSearchesAnswer() throws {
        let engine = StorageEngine(levels: LevelTests.small)
        var rng = SeededGenerator(seed: 11)
        var answers: Set<Bool> = []
        for _ in 0..<30 {
            try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                for write in 0..<40 {
                    try Self.randomWrite(&txn, &rng, write, parents: 600, nestedEvery: 7)
                }
            }
            let space = try #require(try engine.snapshot().state.namespaces[testNamespace])
            let prefixes = (0..<200).map { _ in key("c/p\(Int.random(in: 0..<700, using: &rng))").encoded }
                .sorted { ByteOrder.less($0, $1) }
            let batch = space.mayHoldEntries(inSubtreesOfAscending: prefixes)
            let single = prefixes.map { space.mayHoldEntries(inSubtreeOf: $0) }
            #expect(batch == single)
            answers.formUnion(batch)
        }
        #expect(answers == [false, true])
    }

    /// Checks 20 random subtrees and ranges; returns the running counts of probes answered false
    /// and of probes whose scan was empty.
    private static func probe(
        _ txn: CommitBuilder, _ rng: inout SeededGenerator, _ ruledOut: Int, _ emptyProbes: Int
    ) -> (Int, Int) {
        var (ruledOut, emptyProbes) = (ruledOut, emptyProbes)
        for _ in 0..<20 {
            let probe = key("c/p\(Int.random(in: 0..<3_000, using: &rng))")
            let subtree = StorageKeyRange.subtree(of: probe)
            let holds = txn.scan(testNamespace, subtree).contains { _ in true }
            let mayHold = txn.mayHoldEntries(testNamespace, inSubtreeOf: probe)
            #expect(mayHold == txn.mayHoldEntries(testNamespace, in: subtree))
            if holds {
                #expect(mayHold, "\(probe) holds entries")
            } else {
                emptyProbes += 1
                if !mayHold { ruledOut += 1 }
            }
            // Open-ended and whole-namespace ranges.
            let open = StorageKeyRange(lower: probe.encoded, upper: nil)
            if txn.scan(testNamespace, open).contains(where: { _ in true }) {
                #expect(txn.mayHoldEntries(testNamespace, in: open))
            }
        }
        if txn.scan(testNamespace).contains(where: { _ in true }) {
            #expect(txn.mayHoldEntries(testNamespace, inSubtreeOf: .root))
        }
        return (ruledOut, emptyProbes)
    }
}
