import Testing
@testable import EmulatorStorage

@Suite struct ChangeFeedTests {
    @Test func subscribersHearOnlyChangesUnderTheirPrefix() throws {
        let engine = StorageEngine()
        let root = FeedRecorder(), users = FeedRecorder(), alice = FeedRecorder(), other = FeedRecorder()
        let subscriptions = [
            engine.subscribe(testNamespace) { root.record($0) },
            engine.subscribe(testNamespace, prefix: key("users")) { users.record($0) },
            engine.subscribe(testNamespace, prefix: key("users/alice")) { alice.record($0) },
            engine.subscribe("other") { other.record($0) },
        ]
        let time = try engine.put([("users/alice", "1"), ("users/bob", "2"), ("rooms/x", "3"), ("usersx", "4")])
        #expect(root.all.map { $0.changes.map(\.key) } == [[key("users/alice"), key("users/bob"), key("rooms/x"), key("usersx")]])
        #expect(users.all.map { $0.changes.map(\.key) } == [[key("users/alice"), key("users/bob")]])
        #expect(alice.all.map { $0.changes.map(\.key) } == [[key("users/alice")]])
        #expect(other.all.isEmpty)
        let batch = try #require(alice.all.first)
        #expect(batch.commitTime == time)
        #expect(batch.changes.first?.new?.value == bytes("1"))
        #expect(batch.changes.first?.old == nil)
        #expect(batch.after.get(testNamespace, key("users/bob"))?.value == bytes("2"))
        #expect(batch.before.get(testNamespace, key("users/alice")) == nil)
        _ = subscriptions
    }

    @Test func manySubscribersAreFoundByAncestorWalk() throws {
        let engine = StorageEngine()
        let recorders = (0..<10).map { _ in FeedRecorder() }
        let subscriptions = recorders.enumerated().map { index, recorder in
            engine.subscribe(testNamespace, prefix: key("c/\(index)")) { recorder.record($0) }
        }
        try engine.put([("c/3/x", "1"), ("c/3", "2"), ("c/7/y/z", "3"), ("c/30", "4")])
        #expect(recorders.map { $0.all.count } == [0, 0, 0, 1, 0, 0, 0, 1, 0, 0])
        #expect(recorders[3].all.first?.changes.map(\.key) == [key("c/3/x"), key("c/3")])
        _ = subscriptions
    }

    @Test func cancelledAndReleasedSubscriptionsHearNothing() throws {
        let engine = StorageEngine()
        let cancelled = FeedRecorder(), released = FeedRecorder()
        let subscription = engine.subscribe(testNamespace) { cancelled.record($0) }
        subscription.cancel()
        do { _ = engine.subscribe(testNamespace) { released.record($0) } }
        try engine.put([("a", "1")])
        #expect(cancelled.all.isEmpty)
        #expect(released.all.isEmpty)
    }

    @Test func noOpWritesAreNotReported() throws {
        let engine = StorageEngine()
        try engine.put([("a", "1")])
        let recorder = FeedRecorder()
        let subscription = engine.subscribe(testNamespace) { recorder.record($0) }
        try engine.put([("a", "1")])
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in try txn.delete(testNamespace, key("zz")) }
        #expect(recorder.all.isEmpty)
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in try txn.delete(testNamespace, key("a")) }
        #expect(recorder.all.first?.changes.first?.old?.value == bytes("1"))
        #expect(recorder.all.first?.changes.first?.new == nil)
        subscription.cancel()
    }

    @Test func clearsReachSubscribersAboveAtAndBelowTheSubtree() throws {
        let engine = StorageEngine()
        try engine.put([("a/b/c", "1"), ("a/x", "2"), ("z", "3")])
        let above = FeedRecorder(), at = FeedRecorder(), below = FeedRecorder(), beside = FeedRecorder()
        let subscriptions = [
            engine.subscribe(testNamespace) { above.record($0) },
            engine.subscribe(testNamespace, prefix: key("a/b")) { at.record($0) },
            engine.subscribe(testNamespace, prefix: key("a/b/c")) { below.record($0) },
            engine.subscribe(testNamespace, prefix: key("z")) { beside.record($0) },
        ]
        let time = engine.clear(testNamespace, subtree: key("a/b"))
        for recorder in [above, at, below] {
            #expect(recorder.all.map(\.clearedSubtrees) == [[key("a/b")]])
            #expect(recorder.all.first?.commitTime == time)
        }
        #expect(beside.all.isEmpty)
        #expect(try engine.snapshot().scan(testNamespace).map(\.key) == [key("a/x"), key("z")])
        #expect(try engine.snapshot().count(testNamespace) == 2)
        engine.clear(testNamespace)
        #expect(beside.all.map(\.clearedSubtrees) == [[.root]])
        #expect(engine.invariantViolations() == [])
        _ = subscriptions
    }
}
