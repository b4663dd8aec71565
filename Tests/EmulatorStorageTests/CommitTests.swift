import Testing
@testable import EmulatorStorage

@Suite struct CommitTests {
    @Test(arguments: [
        (false, Precondition.exists, StorageError.Code?.some(.notFound)),
        (true, .exists, nil),
        (false, .missing, nil),
        (true, .missing, .alreadyExists),
        (false, .updateTime(5), .notFound),
        (false, .value(nil), nil),
        (true, .value(nil), .failedPrecondition),
        (true, .value(Array("old".utf8)), nil),
        (true, .value(Array("other".utf8)), .failedPrecondition),
        (false, .value(Array("old".utf8)), .failedPrecondition),
    ])
    func preconditions(present: Bool, precondition: Precondition, expected: StorageError.Code?) throws {
        let engine = StorageEngine()
        if present { try engine.put([("d/1", "old")]) }
        var thrown: StorageError.Code?
        do {
            try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                try txn.put(testNamespace, key("d/1"), bytes("new"), precondition: precondition)
            }
        } catch {
            thrown = error.code
        }
        #expect(thrown == expected)
        #expect(try engine.value("d/1") == (expected == nil ? "new" : (present ? "old" : nil)))
    }

    @Test func updateTimePreconditionMatchesOnlyTheCurrentVersion() throws {
        let engine = StorageEngine()
        let first = try engine.put([("d/1", "a")])
        let second = try engine.put([("d/1", "b")])
        #expect(throws: StorageError.self) {
            try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                try txn.put(testNamespace, key("d/1"), bytes("c"), precondition: .updateTime(first))
            }
        }
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            try txn.put(testNamespace, key("d/1"), bytes("c"), precondition: .updateTime(second))
        }
        #expect(try engine.value("d/1") == "c")
    }

    @Test func aFailureAnywhereAppliesNothing() throws {
        let engine = StorageEngine()
        try engine.put([("a", "1"), ("b", "2")])
        let before = engine.lastCommitTime
        let recorder = FeedRecorder()
        let subscription = engine.subscribe(testNamespace) { recorder.record($0) }
        #expect(throws: StorageError.self) {
            try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                try txn.put(testNamespace, key("a"), bytes("changed"))
                txn.deleteSubtree(testNamespace, key("b"))
                try txn.put(testNamespace, key("c"), bytes("new"))
                #expect(txn.get(testNamespace, key("a"))?.value == bytes("changed"))  // own writes visible
                try txn.put(testNamespace, key("a"), bytes("x"), precondition: .missing)
            }
        }
        #expect(try engine.value("a") == "1")
        #expect(try engine.value("b") == "2")
        #expect(try engine.value("c") == nil)
        #expect(engine.lastCommitTime == before)
        #expect(recorder.all.isEmpty)
        #expect(engine.invariantViolations() == [])
        subscription.cancel()
    }

    @Test func commitTimesStrictlyIncreaseEvenWhenTheClockStands() throws {
        let clock = ManualClock()
        let engine = StorageEngine(clock: clock.storageClock)
        var times: [CommitTime] = []
        for _ in 0..<5 {
            times.append(try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                try txn.delete(testNamespace, key("missing"))  // deleting nothing still commits
            }.commitTime)
        }
        #expect(times == (0..<5).map { clock.now + CommitTime($0) })
        clock.advance(by: 1_000_000)
        #expect(try engine.put([("a", "1")]) == clock.now)
    }

    @Test func createTimeSurvivesOverwriteAndNoOpKeepsUpdateTime() throws {
        let engine = StorageEngine()
        let created = try engine.put([("d", "1")])
        let updated = try engine.put([("d", "2")])
        let same = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            try txn.put(testNamespace, key("d"), bytes("2"))
        }
        #expect(same.value == WriteTimes(updateTime: updated, createTime: created))
        #expect(same.changes.isEmpty)
        let entry = try #require(try engine.snapshot().get(testNamespace, key("d")))
        #expect(entry.createTime == created)
        #expect(entry.updateTime == updated)
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in try txn.delete(testNamespace, key("d")) }
        let recreated = try engine.put([("d", "2")])
        #expect(try engine.snapshot().get(testNamespace, key("d"))?.createTime == recreated)
    }

    @Test func severalWritesToOneKeyNetOut() throws {
        let engine = StorageEngine()
        let created = try engine.put([("k", "a")])
        let result = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            try txn.put(testNamespace, key("k"), bytes("b"))
            try txn.delete(testNamespace, key("k"))
            try txn.put(testNamespace, key("k"), bytes("a"))
            try txn.put(testNamespace, key("n"), bytes("x"))
            try txn.delete(testNamespace, key("n"))
        }
        #expect(result.changes.isEmpty)
        let entry = try #require(try engine.snapshot().get(testNamespace, key("k")))
        #expect(entry.updateTime == created)
        #expect(entry.createTime == created)
        #expect(try engine.value("n") == nil)
        #expect(engine.invariantViolations() == [])
        let second = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            try txn.put(testNamespace, key("k"), bytes("b"))
            try txn.put(testNamespace, key("k"), bytes("c"))
        }
        #expect(second.changes.map(\.new?.value) == [bytes("c")])
        #expect(second.changes.map(\.old?.value) == [bytes("a")])
    }

    @Test(arguments: [
        ("a/b/c/d", "x", StorageError.Code.keyTooDeep),
        ("a/bbbbbbbbbbbbbbbbbbbbb", "x", .segmentTooLong),
        ("a/b", String(repeating: "v", count: 101), .valueTooLarge),
    ])
    func limitsAreEnforcedAndLeaveTheStoreUntouched(path: String, value: String, code: StorageError.Code) throws {
        let engine = StorageEngine()
        engine.configure(testNamespace, limits: NamespaceLimits(maxValueBytes: 100, maxSegments: 3, maxSegmentBytes: 20))
        try engine.put([("ok", "1")])
        do {
            try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                try txn.put(testNamespace, key("ok"), bytes("2"))
                try txn.put(testNamespace, key(path), bytes(value))
            }
            Issue.record("expected \(code)")
        } catch {
            #expect(error.code == code)
        }
        #expect(try engine.value("ok") == "1")
        #expect(try engine.value(path) == nil)
        // The limits are inclusive.
        try engine.put([("a/b/c", String(repeating: "v", count: 100)), (String(repeating: "s", count: 20), "x")])
    }

    /// A commit looks each namespace's limits up once (`CommitBuilder.lastLimits`): writes that
    /// alternate between an unlimited namespace and a limited one still get each one's limits.
    @Test func limitsFollowTheNamespaceWithinOneCommit() throws {
        let engine = StorageEngine()
        let limited: NamespaceID = "test/limited"
        engine.configure(limited, limits: NamespaceLimits(maxValueBytes: 4))
        let big = bytes(String(repeating: "v", count: 10))
        do {
            try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                try txn.put(testNamespace, key("a"), big)
                try txn.put(limited, key("a"), bytes("ok"))
                try txn.put(testNamespace, key("b"), big)
                try txn.put(limited, key("b"), big)
            }
            Issue.record("expected valueTooLarge")
        } catch {
            #expect(error.code == .valueTooLarge)
        }
        try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            try txn.put(limited, key("c"), bytes("ok"))
            try txn.put(testNamespace, key("c"), big)
        }
        #expect(try engine.value("c") == String(repeating: "v", count: 10))
        #expect(try engine.value("a", in: limited) == nil)
    }

    @Test func theRootCannotHoldAValue() {
        let engine = StorageEngine()
        #expect(throws: StorageError.self) {
            try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                try txn.put(testNamespace, .root, bytes("x"))
            }
        }
    }

    @Test func deleteSubtreeTombstonesEverythingBelow() throws {
        let engine = StorageEngine()
        try engine.put([("a", "1"), ("a/b", "2"), ("a/b/c", "3"), ("ab", "4")])
        let result = try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
            txn.deleteSubtree(testNamespace, key("a"))
        }
        #expect(result.value == 3)
        #expect(try engine.snapshot().scan(testNamespace).map(\.key) == [key("ab")])
        #expect(try engine.snapshot(at: result.commitTime - 1).scan(testNamespace).map(\.key).count == 4)
        #expect(engine.invariantViolations() == [])
    }

    @Test func namespacesAreIndependent() throws {
        let engine = StorageEngine()
        try engine.put([("k", "one")], in: "one")
        try engine.put([("k", "two")], in: "two")
        engine.clear("one")
        #expect(try engine.value("k", in: "one") == nil)
        #expect(try engine.value("k", in: "two") == "two")
        #expect(try engine.snapshot().namespaces == ["one", "two"])
    }

    @Test func droppedNamespaceIsGoneAndTheOthersStay() throws {
        let engine = StorageEngine()
        for name in ["a", "b", "c"] { try engine.put([("k", name)], in: NamespaceID(name)) }
        let before = try engine.snapshot()
        #expect(engine.drop("b"))
        #expect(!engine.drop("b"))
        #expect(try engine.snapshot().namespaces == ["a", "c"])
        #expect(try engine.value("k", in: "a") == "a")
        #expect(try engine.value("k", in: "c") == "c")
        #expect(try engine.value("k", in: "b") == nil)
        #expect(before.get("b", StorageKey("k")) != nil)  // a snapshot taken before keeps it
        try engine.put([("k", "again")], in: "b")
        #expect(try engine.value("k", in: "b") == "again")
        #expect(engine.invariantViolations() == [])
    }
}
