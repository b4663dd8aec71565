import Testing
@testable import EmulatorStorage

/// `CommitBuilder.deleteSubtree` on subtrees large enough to be cut out whole.
@Suite struct SubtreeCutTests {
    /// An engine that cuts every non-empty subtree (threshold 0), with `count` children under "big".
    static func engine(_ clock: ManualClock, count: Int = 300, retention: CommitTime = 3_600_000_000) throws -> (StorageEngine, CommitTime) {
        let engine = StorageEngine(retention: retention, clock: clock.storageClock, cutThreshold: 0)
        let time = try engine.put((0..<count).map { ("big/\($0)", "v\($0)") } + [("bigger", "b"), ("a", "a")])
        clock.advance(by: 10)
        return (engine, time)
    }

    @Test func aCutIsOneClearedSubtreeAndOlderReadsStillSeeTheEntries() throws {
        let clock = ManualClock()
        let (engine, loaded) = try Self.engine(clock)
        let result = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            txn.deleteSubtree(testNamespace, key("big"))
        }
        #expect(result.value == 300)
        #expect(result.cleared == [ClearedSubtree(namespace: testNamespace, key: key("big"))])
        #expect(result.changes.isEmpty)
        let head = try engine.snapshot()
        #expect(head.scan(testNamespace).map(\.key) == [key("a"), key("bigger")])
        #expect(head.get(testNamespace, key("big/7")) == nil)
        #expect(head.count(testNamespace) == 2)
        let old = try engine.snapshot(at: result.commitTime - 1)
        #expect(old.get(testNamespace, key("big/7"))?.value == bytes("v7"))
        #expect(old.get(testNamespace, key("big/7"))?.createTime == loaded)
        #expect(old.scan(testNamespace).map(\.key).count == 302)
        #expect(old.scan(testNamespace, reverse: true).map(\.key).count == 302)
        #expect(old.scan(testNamespace, .subtree(of: key("big"))).map(\.key).count == 300)
        #expect(Array(old.scan(testNamespace, StorageKeyRange(from: .including(key("big/5")), to: .unbounded))).first?.key == key("big/5"))
        #expect(old.children(testNamespace, of: .root).map(\.key) == [key("a"), key("big"), key("bigger")])
        #expect(old.children(testNamespace, of: key("big")).map(\.key).count == 300)
        #expect(engine.invariantViolations() == [])
    }

    @Test func aCutIsAtomicWithTheRestOfItsCommit() throws {
        let clock = ManualClock()
        let (engine, _) = try Self.engine(clock)
        #expect(throws: StorageError.self) {
            try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                txn.deleteSubtree(testNamespace, key("big"))
                try txn.put(testNamespace, key("a"), bytes("new"), precondition: .missing)
            }
        }
        #expect(try engine.snapshot().scan(testNamespace, .subtree(of: key("big"))).map(\.key).count == 300)
        #expect(engine.invariantViolations() == [])
    }

    @Test func writesAfterTheCutInTheSameCommitAreNewEntries() throws {
        let clock = ManualClock()
        let (engine, loaded) = try Self.engine(clock)
        let result = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            try txn.put(testNamespace, key("big/1"), bytes("before the cut"))
            txn.deleteSubtree(testNamespace, key("big"))
            #expect(txn.get(testNamespace, key("big/2")) == nil)
            #expect(txn.children(testNamespace, of: key("big")).map(\.key) == [])
            try txn.put(testNamespace, key("big/2"), bytes("v2"), precondition: .missing)
            try txn.put(testNamespace, key("big/new"), bytes("n"))
        }
        let time = result.commitTime
        #expect(result.changes.map(\.key) == [key("big/2"), key("big/new")])
        #expect(result.changes.allSatisfy { $0.old == nil })
        let head = try engine.snapshot()
        #expect(head.scan(testNamespace, .subtree(of: key("big"))).map(\.key) == [key("big/2"), key("big/new")])
        #expect(head.get(testNamespace, key("big/2")).map { [$0.createTime, $0.updateTime] } == [time, time])
        #expect(head.count(testNamespace) == 4)
        let old = try engine.snapshot(at: time - 1)
        #expect(old.get(testNamespace, key("big/1"))?.value == bytes("v1"))
        #expect(old.get(testNamespace, key("big/2"))?.updateTime == loaded)
        #expect(engine.invariantViolations() == [])
    }

    @Test func overlappingCutsAtDifferentTimesAnswerEachReadTime() throws {
        let clock = ManualClock()
        let (engine, t0) = try Self.engine(clock)
        let t1 = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            txn.deleteSubtree(testNamespace, key("big/1"))
            try txn.put(testNamespace, key("big/1/x"), bytes("x"))
        }.commitTime
        clock.advance(by: 10)
        let t2 = try engine.put([("big/1/y", "y"), ("big/2", "two")])
        clock.advance(by: 10)
        let t3 = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in txn.deleteSubtree(testNamespace, .root) }.commitTime
        clock.advance(by: 10)
        let t4 = try engine.put([("big/1", "again")])
        func keys(_ time: CommitTime, _ prefix: String) throws -> [String] {
            try engine.snapshot(at: time).scan(testNamespace, .subtree(of: key(prefix))).map { "\($0.key)=\(String(decoding: $0.value, as: UTF8.self))" }
        }
        #expect(try keys(t0, "big/1") == ["/big/1=v1"])
        #expect(try keys(t1, "big/1") == ["/big/1/x=x"])
        #expect(try keys(t2, "big/1") == ["/big/1/x=x", "/big/1/y=y"])
        #expect(try keys(t3, "big") == [])
        #expect(try keys(t4, "big") == ["/big/1=again"])
        #expect(try engine.snapshot(at: t2).get(testNamespace, key("big/2"))?.value == bytes("two"))
        #expect(try engine.snapshot(at: t1).get(testNamespace, key("big/2"))?.value == bytes("v2"))
        #expect(try engine.snapshot(at: t2).scan(testNamespace).map(\.key).count == 303)
        #expect(try engine.snapshot(at: t2).scan(testNamespace, reverse: true).map(\.key).first == key("bigger"))
        #expect(engine.invariantViolations() == [])
    }

    @Test func retiredTreesGoWhenTheHistoryHorizonPassesThem() throws {
        let clock = ManualClock()
        let (engine, _) = try Self.engine(clock, retention: 1_000)
        let cut = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            txn.deleteSubtree(testNamespace, key("big"))
        }.commitTime
        #expect(try engine.snapshot(at: cut - 1).get(testNamespace, key("big/3")) != nil)
        clock.advance(by: 2_000)
        try engine.put([("other", "o")], in: "elsewhere")
        #expect(throws: StorageError.self) { try engine.snapshot(at: cut - 1) }
        #expect(try engine.snapshot().state.namespaces[testNamespace]?.retired.isEmpty == true)
        #expect(engine.invariantViolations() == [])
    }

    @Test func aClearForgetsTheHistoryRetiredSubtreesHeld() throws {
        let clock = ManualClock()
        let (engine, _) = try Self.engine(clock)
        let cut = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            txn.deleteSubtree(testNamespace, key("big"))
        }.commitTime
        engine.clear(testNamespace, subtree: key("big/1"))
        let old = try engine.snapshot(at: cut - 1)
        #expect(old.get(testNamespace, key("big/1")) == nil)
        #expect(old.get(testNamespace, key("big/2"))?.value == bytes("v2"))
        engine.clear(testNamespace)
        #expect(try engine.snapshot(at: cut - 1).get(testNamespace, key("big/2")) == nil)
        #expect(engine.invariantViolations() == [])
    }

    @Test func subscribersAboveAtAndBelowHearOneClearedSubtree() throws {
        let clock = ManualClock()
        let (engine, _) = try Self.engine(clock)
        let above = FeedRecorder(), at = FeedRecorder(), below = FeedRecorder(), beside = FeedRecorder()
        let subscriptions = [
            engine.subscribe(testNamespace) { above.record($0) },
            engine.subscribe(testNamespace, prefix: key("big")) { at.record($0) },
            engine.subscribe(testNamespace, prefix: key("big/4")) { below.record($0) },
            engine.subscribe(testNamespace, prefix: key("bigger")) { beside.record($0) },
        ]
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            txn.deleteSubtree(testNamespace, key("big"))
            try txn.put(testNamespace, key("big/4"), bytes("back"))
        }
        for recorder in [above, at, below] {
            #expect(recorder.all.count == 1)
            #expect(recorder.all.first?.clearedSubtrees == [key("big")])
            #expect(recorder.all.first?.changes.map(\.key) == [key("big/4")])
            #expect(recorder.all.first?.before.get(testNamespace, key("big/9"))?.value == bytes("v9"))
        }
        #expect(beside.all.isEmpty)
        _ = subscriptions
    }

    @Test func indexesInsideTheCutAreEmptiedAndIndexesAroundItGoKeyByKey() throws {
        let clock = ManualClock()
        let (engine, _) = try Self.engine(clock)
        let inside = IndexDefinition(id: "inside", scope: key("big"), includes: { _ in true }) { _, value in [value] }
        let around = IndexDefinition(id: "around", scope: .root, includes: { _ in true }) { _, value in [value] }
        engine.ensureIndex(testNamespace, inside)
        let inner = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            txn.deleteSubtree(testNamespace, key("big"))
            try txn.put(testNamespace, key("big/z"), bytes("z"))
        }
        #expect(inner.cleared.count == 1)
        #expect(try engine.snapshot().scanIndex(testNamespace, "inside").map(\.key) == [key("big/z")])
        engine.ensureIndex(testNamespace, around)
        try engine.put([("big/a", "1"), ("big/b", "2")])
        let outer = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            txn.deleteSubtree(testNamespace, key("big"))
        }
        #expect(outer.cleared == [])
        #expect(outer.changes.count == 3)
        #expect(try engine.snapshot().scanIndex(testNamespace, "around").map(\.key) == [key("a"), key("bigger")])
        #expect(engine.invariantViolations() == [])
    }

    @Test func smallSubtreesGoKeyByKeyUnderTheDefaultThreshold() throws {
        let engine = StorageEngine()
        try engine.put((0..<10).map { ("small/\($0)", "v") } + (0..<100).map { ("large/\($0)", "v") })
        let refused = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in txn.cutSubtree(testNamespace, key("small")) }
        #expect(refused.value == nil)
        #expect(refused.cleared.isEmpty && refused.changes.isEmpty)
        let small = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in txn.deleteSubtree(testNamespace, key("small")) }
        #expect(small.cleared == [])
        #expect(small.changes.count == 10)
        let large = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in txn.deleteSubtree(testNamespace, key("large")) }
        #expect(large.cleared == [ClearedSubtree(namespace: testNamespace, key: key("large"))])
        #expect(large.changes.isEmpty)
        #expect(large.value == 100)
        #expect(try engine.snapshot().count(testNamespace) == 0)
        #expect(engine.invariantViolations() == [])
    }
}
