import EmulatorTestSupport
import Testing
@testable import EmulatorStorage

@Suite struct RandomisedModelTests {
    static let narrow = ["a", "b", "c", "a\u{0}"]
    static let wide = narrow + (0..<20).map { "w\($0)" }
    static let values: [[UInt8]] = [[], [1], [2, 2], Array("long value ".utf8) + Array(repeating: 7, count: 40), Array(repeating: 9, count: 300)]

    static func randomKey(_ rng: inout SeededGenerator, wide: Bool, depth: Int? = nil) -> StorageKey {
        let segments = wide ? RandomisedModelTests.wide : narrow
        let depth = depth ?? Int.random(in: 1...3, using: &rng)
        return StorageKey(segments: (0..<depth).map { _ in segments.randomElement(using: &rng) ?? "a" })
    }

    static func randomPrecondition(_ rng: inout SeededGenerator, wide: Bool, _ model: ReferenceModel, _ key: StorageKey) -> Precondition {
        // Wide runs make big commits, so preconditions must be rare for most to succeed.
        if wide && Int.random(in: 0..<30, using: &rng) != 0 { return .none }
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return .exists
        case 1: return .missing
        case 2: return .updateTime(model.head[key]?.updateTime ?? 12345)
        case 3: return .updateTime(Int64.random(in: 0...2_000_000, using: &rng))
        case 4: return .value(Bool.random(using: &rng) ? model.head[key]?.value : values.randomElement(using: &rng))
        default: return .none
        }
    }

    /// Seeds ≥ 100 draw keys from a wide alphabet (thousands of keys, multi-level trees, 40-op commits).
    /// With `cuts`, `deleteSubtree` cuts every subtree out whole (except around the index's scope),
    /// so reads at old times are answered from retired trees.
    ///
    /// Seeds 10...19 and 110...119 run with tiny level sizes, so writes are merged from the fresh
    /// trees to the recent one and on to the main one every few commits: reads, scans, cuts and
    /// history then cross levels all the time (odd seeds also let bunched writes go straight to
    /// the main tree). Seeds 20...29 and 120...129 do the same with the merges computed off the
    /// commits and installed by later ones: deferred (installed by the next commit that settles;
    /// seeds 20, 21, 24, 25, 120, 121) or on the background queue (installed whenever they finish).
    @Test(arguments: [
        (1, 3_600_000_000, false), (2, 3_600_000_000, false), (3, 40, false), (4, 40, false), (5, 200, false),
        (100, 3_600_000_000, false), (101, 300, false),
        (6, 3_600_000_000, true), (7, 40, true), (8, 200, true), (9, 3_600_000_000, true),
        (102, 3_600_000_000, true), (103, 300, true),
        (10, 3_600_000_000, false), (11, 40, false), (12, 200, false), (13, 3_600_000_000, true), (14, 40, true),
        (15, 200, true), (110, 3_600_000_000, false), (111, 300, false), (112, 3_600_000_000, true), (113, 300, true),
        (20, 3_600_000_000, false), (21, 40, false), (22, 200, true), (23, 40, true), (24, 3_600_000_000, true),
        (25, 200, false), (120, 3_600_000_000, false), (121, 300, true), (122, 300, true), (123, 3_600_000_000, false),
    ] as [(UInt64, CommitTime, Bool)])
    func engineMatchesTheModel(seed: UInt64, retention: CommitTime, cuts: Bool) throws {
        let wide = seed >= 100
        let maxOperations = wide ? 40 : 5
        var rng = SeededGenerator(seed: seed)
        let clock = ManualClock()
        let tiny = seed % 100 >= 10
        let merges: MergeMode = seed % 100 < 20 ? .inCommit : (seed / 2) % 2 == 0 ? .deferred : .background
        let engine = StorageEngine(
            retention: retention, clock: clock.storageClock, cutThreshold: cuts ? 0 : .max,
            levels: tiny
                ? LevelPolicy(
                    freshCapacity: 3, recentMinimum: 5, recentDivisor: 2, directClusters: seed % 2 == 1,
                    merges: merges)
                : .standard)
        let indexScope = key("a")
        var model = ReferenceModel()
        // An index the invariant checker verifies against the data after every step.
        engine.ensureIndex(testNamespace, IndexDefinition(id: "byValue", scope: key("a"), includes: { $0.depth > 1 }) { _, value in
            value.isEmpty ? [] : [value, [value[0]]]
        })
        let prefixes = [StorageKey.root, key("a"), key("a/b"), key("c/c")]
        let recorders = prefixes.map { _ in FeedRecorder() }
        let subscriptions = zip(prefixes, recorders).map { prefix, recorder in
            engine.subscribe(testNamespace, prefix: prefix) { recorder.record($0) }
        }
        var expectedFeeds: [[(time: CommitTime, changes: Set<StorageKey>, cleared: [StorageKey])]] = prefixes.map { _ in [] }

        let steps = wide ? 200 : 400
        for step in 0..<steps {
            clock.advance(by: CommitTime.random(in: 0...15, using: &rng))
            if Int.random(in: 0..<40, using: &rng) == 0 {
                let subtree = wide
                    ? RandomisedModelTests.randomKey(&rng, wide: wide, depth: 2)
                    : Bool.random(using: &rng) ? StorageKey.root : RandomisedModelTests.randomKey(&rng, wide: wide, depth: 1)
                let time = engine.clear(testNamespace, subtree: subtree)
                model.clear(subtree, at: time)
                for (index, prefix) in prefixes.enumerated() where prefix.contains(subtree) || subtree.contains(prefix) {
                    expectedFeeds[index].append((time, [], [subtree]))
                }
            } else {
                var operations: [ReferenceModel.Operation] = []
                for _ in 0..<Int.random(in: 1...maxOperations, using: &rng) {
                    let target = RandomisedModelTests.randomKey(&rng, wide: wide)
                    switch Int.random(in: 0..<20, using: &rng) {
                    case 0..<12:
                        let value = RandomisedModelTests.values.randomElement(using: &rng) ?? []
                        operations.append(.put(target, value, RandomisedModelTests.randomPrecondition(&rng, wide: wide, model, target)))
                    case 12..<17:
                        operations.append(.delete(target, RandomisedModelTests.randomPrecondition(&rng, wide: wide, model, target)))
                    case 17..<19:
                        let depth = wide ? (cuts ? Int.random(in: 1...3, using: &rng) : 3) : Int.random(in: 1...2, using: &rng)
                        operations.append(.deleteSubtree(RandomisedModelTests.randomKey(&rng, wide: wide, depth: depth)))
                    default:
                        if !wide || Int.random(in: 0..<30, using: &rng) == 0 { operations.append(.abort) }
                    }
                }
                let before = engine.lastCommitTime
                let expectedTime = max(clock.now, before + 1)
                var outcome: Result<CommitResult<Void>, StorageError>
                do {
                    outcome = .success(try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                        for operation in operations {
                            switch operation {
                            case .put(let key, let value, let precondition): try txn.put(testNamespace, key, value, precondition: precondition)
                            case .delete(let key, let precondition): try txn.delete(testNamespace, key, precondition: precondition)
                            case .deleteSubtree(let key): txn.deleteSubtree(testNamespace, key)
                            case .abort: throw StorageError(.aborted, "abort")
                            }
                        }
                    })
                } catch {
                    outcome = .failure(error)
                }
                let modelOutcome = model.commit(operations, at: expectedTime, cuts: cuts) { indexScope.isAncestor(of: $0) }
                switch (outcome, modelOutcome) {
                case (.success(let result), .success(let (changes, modelCuts))):
                    #expect(result.commitTime == expectedTime, "step \(step)")
                    // Cut subtrees replace the per-key deletions under them; keys written again
                    // after the cut are listed with no old value.
                    let cleared = result.cleared.map(\.key)
                    #expect(cleared.allSatisfy { modelCuts.contains($0) }, "step \(step): cuts \(cleared) \(modelCuts)")
                    #expect(result.cleared.allSatisfy { $0.namespace == testNamespace })
                    func underCut(_ key: StorageKey) -> Bool { cleared.contains { $0.contains(key) } }
                    let listed = changes.filter { !(underCut($0.key) && $0.value.1 == nil) }
                    #expect(Set(result.changes.map(\.key)) == Set(listed.keys), "step \(step): changed keys")
                    #expect(result.changes.count == listed.count, "step \(step): each key once")
                    for change in result.changes {
                        let old = underCut(change.key) ? nil : changes[change.key]?.0?.value
                        #expect(change.old?.value == old, "step \(step): old of \(change.key)")
                        #expect(change.new?.value == changes[change.key]?.1?.value, "step \(step): new of \(change.key)")
                    }
                    for (index, prefix) in prefixes.enumerated() {
                        let mine = Set(result.changes.map(\.key).filter { prefix.contains($0) })
                        let cut = cleared.filter { prefix.contains($0) || $0.contains(prefix) }
                        if !mine.isEmpty || !cut.isEmpty { expectedFeeds[index].append((expectedTime, mine, cut)) }
                    }
                case (.failure(let error), .failure(let expected)):
                    #expect(error.code == expected.code, "step \(step)")
                    #expect(engine.lastCommitTime == before, "step \(step): failed commit left time")
                default:
                    Issue.record("step \(step): engine \(outcome) but model \(model.history.count)")
                    return
                }
            }

            // Big runs check every few steps to keep the suite fast.
            guard !wide || step % 8 == 0 || step == steps - 1 else { continue }
            // The head matches the model exactly, times included.
            let snapshot = try engine.snapshot()
            let stored = snapshot.scan(testNamespace).map { ($0.key, ReferenceModel.Entry(value: $0.value, createTime: $0.createTime, updateTime: $0.updateTime)) }
            let expected = model.head.sorted { $0.key < $1.key }
            #expect(stored.map(\.0) == expected.map(\.key), "step \(step): keys")
            #expect(stored.map(\.1) == expected.map(\.value), "step \(step): entries")
            #expect(snapshot.count(testNamespace) == model.head.count, "step \(step): count")
            // Reads at a random retained time match the model's state then.
            if let past = model.history.filter({ $0.time >= engine.retainedSince }).randomElement(using: &rng) {
                let old = try engine.snapshot(at: past.time)
                let seen = old.scan(testNamespace).map { ($0.key, ReferenceModel.Entry(value: $0.value, createTime: $0.createTime, updateTime: $0.updateTime)) }
                let want = model.state(at: past.time).sorted { $0.key < $1.key }
                #expect(seen.map(\.0) == want.map(\.key), "step \(step): keys at \(past.time)")
                #expect(seen.map(\.1) == want.map(\.value), "step \(step): entries at \(past.time)")
                let parent = RandomisedModelTests.randomKey(&rng, wide: wide, depth: Int.random(in: 0...1, using: &rng))
                let children = Set(want.map(\.key).compactMap { key -> StorageKey? in
                    guard parent.isAncestor(of: key) else { return nil }
                    return StorageKey(segments: key.segments.prefix(parent.depth + 1))
                })
                #expect(old.children(testNamespace, of: parent).map(\.key) == children.sorted(), "step \(step): children")
                #expect(old.scan(testNamespace, reverse: true).map(\.key) == want.map(\.key).reversed(), "step \(step): reverse")
                #expect(old.children(testNamespace, of: parent, reverse: true).map(\.key) == children.sorted().reversed(), "step \(step): reverse children")
                let subtree = old.scan(testNamespace, .subtree(of: parent)).map(\.key)
                #expect(subtree == want.map(\.key).filter { parent.contains($0) }, "step \(step): subtree scan")
                let state = model.state(at: past.time)
                for _ in 0..<8 {
                    let probe = RandomisedModelTests.randomKey(&rng, wide: wide)
                    let got = old.get(testNamespace, probe).map { ReferenceModel.Entry(value: $0.value, createTime: $0.createTime, updateTime: $0.updateTime) }
                    #expect(got == state[probe], "step \(step): get \(probe) at \(past.time)")
                }
            }
            let problems = engine.invariantViolations()
            #expect(problems == [], "step \(step)")
            if !problems.isEmpty { return }
        }

        // Every subscriber heard each of its commits exactly once, in order.
        for (index, recorder) in recorders.enumerated() {
            let heard = recorder.all
            let want = expectedFeeds[index]
            #expect(heard.map(\.commitTime) == want.map(\.time), "subscriber \(index): commit times")
            for (batch, expected) in zip(heard, want) {
                #expect(batch.clearedSubtrees == expected.cleared)
                #expect(Set(batch.changes.map(\.key)) == expected.changes)
                #expect(batch.changes.count == expected.changes.count)
            }
        }
        _ = subscriptions
    }
}
