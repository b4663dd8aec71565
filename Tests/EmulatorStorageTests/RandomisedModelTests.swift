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
    @Test(arguments: [(1, 3_600_000_000), (2, 3_600_000_000), (3, 40), (4, 40), (5, 200), (100, 3_600_000_000), (101, 300)] as [(UInt64, CommitTime)])
    func engineMatchesTheModel(seed: UInt64, retention: CommitTime) throws {
        let wide = seed >= 100
        let maxOperations = wide ? 40 : 5
        var rng = SeededGenerator(seed: seed)
        let clock = ManualClock()
        let engine = StorageEngine(retention: retention, clock: clock.storageClock)
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
        var expectedFeeds: [[(time: CommitTime, changes: [StorageKey: (ReferenceModel.Entry?, ReferenceModel.Entry?)], cleared: StorageKey?)]] =
            prefixes.map { _ in [] }

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
                    expectedFeeds[index].append((time, [:], subtree))
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
                        let depth = wide ? 3 : Int.random(in: 1...2, using: &rng)
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
                switch (outcome, model.commit(operations, at: expectedTime)) {
                case (.success(let result), .success(let changes)):
                    #expect(result.commitTime == expectedTime, "step \(step)")
                    #expect(Set(result.changes.map(\.key)) == Set(changes.keys), "step \(step): changed keys")
                    #expect(result.changes.count == changes.count, "step \(step): each key once")
                    for change in result.changes {
                        #expect(change.old?.value == changes[change.key]?.0?.value, "step \(step): old of \(change.key)")
                        #expect(change.new?.value == changes[change.key]?.1?.value, "step \(step): new of \(change.key)")
                    }
                    for (index, prefix) in prefixes.enumerated() {
                        let mine = changes.filter { prefix.contains($0.key) }
                        if !mine.isEmpty { expectedFeeds[index].append((expectedTime, mine, nil)) }
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
                #expect(batch.clearedSubtree == expected.cleared)
                #expect(Set(batch.changes.map(\.key)) == Set(expected.changes.keys))
                #expect(batch.changes.count == expected.changes.count)
            }
        }
        _ = subscriptions
    }
}
