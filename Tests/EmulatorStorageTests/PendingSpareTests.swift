import Testing
@testable import EmulatorStorage

/// A commit writes into the pending tree the head held before the last commit (kept by the
/// engine, brought up to date) instead of copying the published one's path to each key, as long
/// as no reader holds that older tree; readers, reads at earlier times and later commits see
/// exactly what they would have seen.
@Suite struct PendingSpareTests {
    /// The pending tree's root in the published head (held by nothing the caller keeps, when
    /// the caller holds it weakly).
    private func pendingRoot(_ engine: StorageEngine, _ namespace: NamespaceID = testNamespace) throws -> TreeNode {
        try #require(try engine.snapshot().state.namespaces.withState(namespace) { $0.pending.root })
    }

    @Test func anOverwriteWritesIntoTheTreeTheLastCommitReplaced() throws {
        let clock = ManualClock()
        let engine = StorageEngine(clock: clock.storageClock)
        var times: [CommitTime] = []
        clock.advance(by: 10)
        times.append(try engine.put((0..<10).map { ("d/\($0)", "v0") }))
        // Held weakly: a strong reference would be a reader holding the tree.
        weak let first = try pendingRoot(engine)
        for version in 1...6 {
            clock.advance(by: 10)
            times.append(try engine.put([("d/\(version % 3)", "v\(version)")]))
            let root = try pendingRoot(engine)
            // The second commit copies the published tree; from then on two trees take turns.
            #expect(version == 1 ? root !== first : (root === first) == (version % 2 == 0), "commit \(version)")
        }
        #expect(first != nil, "the tree the head replaced was freed instead of kept for the next commit")
        for version in 0...6 {
            let written = version == 0 ? 0 : version % 3
            #expect(try engine.value("d/\(written)", at: times[version]) == "v\(version)", "version \(version)")
        }
        #expect(try engine.value("d/0") == "v6" && engine.value("d/1") == "v4" && engine.value("d/2") == "v5")
        #expect(try engine.value("d/9") == "v0")
        #expect(engine.invariantViolations() == [])
    }

    /// A snapshot holding the older tree keeps it as it was: the commit copies what it shares.
    @Test func aHeldSnapshotKeepsWhatItSaw() throws {
        let engine = StorageEngine()
        try engine.put([("d/1", "a"), ("d/2", "b")])
        try engine.put([("d/1", "c")])
        let held = try engine.snapshot()
        weak let heldRoot = held.state.namespaces.withState(testNamespace) { $0.pending.root }
        for value in ["e", "f", "g"] { try engine.put([("d/2", value)]) }
        #expect(try pendingRoot(engine) !== heldRoot)
        #expect(held.get(testNamespace, key("d/1")).map(\.value) == bytes("c"))
        #expect(held.get(testNamespace, key("d/2")).map(\.value) == bytes("b"))
        #expect(try engine.value("d/1") == "c" && engine.value("d/2") == "g")
        withExtendedLifetime(held) {}
    }

    /// Deletes, new keys and a subtree cut between overwrites: the spare is brought up to date
    /// key by key, or dropped when the commit changed `pending` another way.
    @Test func deletesInsertsAndCutsKeepEveryRead() throws {
        let engine = StorageEngine(cutThreshold: 2)
        var model: [String: String] = [:]
        func commit(_ body: (inout CommitBuilder) throws(StorageError) -> Void) throws { try engine.commit(body) }
        for round in 0..<40 {
            try commit { (txn: inout CommitBuilder) throws(StorageError) in
                let path = "c/\(round % 7)"
                switch round % 5 {
                case 0, 1:
                    try txn.put(testNamespace, key(path), bytes("r\(round)"))
                    model[path] = "r\(round)"
                case 2:
                    try txn.delete(testNamespace, key(path))
                    model[path] = nil
                case 3:
                    try txn.put(testNamespace, key("n/\(round)"), bytes("new"))
                    model["n/\(round)"] = "new"
                    try txn.put(testNamespace, key(path), bytes("s\(round)"))
                    model[path] = "s\(round)"
                default:
                    if round % 10 == 4 {
                        txn.deleteSubtree(testNamespace, key("n"))
                        for name in model.keys where name.hasPrefix("n/") { model[name] = nil }
                    }
                    try txn.put(testNamespace, key(path), bytes("t\(round)"))
                    model[path] = "t\(round)"
                }
            }
            for index in 0..<7 { #expect(try engine.value("c/\(index)") == model["c/\(index)"], "round \(round) c/\(index)") }
            let stored = try engine.snapshot().scan(testNamespace).map { String(decoding: $0.key.encoded, as: UTF8.self) }
            #expect(stored.count == model.count, "round \(round)")
            #expect(engine.invariantViolations() == [])
        }
    }

    /// A namespace without history keeps no spare: what a commit superseded is freed when it ends.
    @Test func aNamespaceWithoutHistoryKeepsNoSpare() throws {
        let engine = StorageEngine(keepsHistory: { _ in false })
        try engine.put([("d/1", "a"), ("d/2", "b")])
        weak let first = try pendingRoot(engine)
        try engine.put([("d/1", "c")])
        try engine.put([("d/1", "e")])
        #expect(first == nil)
        #expect(try engine.value("d/1") == "e")
    }
}
