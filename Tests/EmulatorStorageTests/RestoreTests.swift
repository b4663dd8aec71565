import Testing
@testable import EmulatorStorage

@Suite("Restoring entries with their own times")
struct RestoreTests {
    func entry(_ path: String, _ value: String, created: CommitTime, updated: CommitTime) -> StoredEntry {
        StoredEntry(key: key(path), value: bytes(value), createTime: created, updateTime: updated)
    }

    @Test("a bulk load into an empty namespace reads back every entry with its times, in order", arguments: [0, 1, 57, 4_000, 70_000])
    func bulkLoad(count: Int) throws {
        let engine = StorageEngine(clock: ManualClock(5_000_000).storageClock)
        var entries: [StoredEntry] = []
        for i in 0..<count {
            let digits = String(i)
            let path = "docs/" + String(repeating: "0", count: 6 - digits.count) + digits
            entries.append(entry(path, "v" + digits, created: CommitTime(100 + i), updated: CommitTime(200 + 2 * i)))
        }
        try engine.restore(testNamespace, entries)
        let snapshot = try engine.snapshot()
        let read = Array(snapshot.scan(testNamespace))
        #expect(read == entries)
        #expect(snapshot.count(testNamespace) == count)
        if count > 0 { #expect(snapshot.get(testNamespace, entries[count / 2].key) == entries[count / 2]) }
        #expect(engine.invariantViolations().isEmpty)
        // Commits after the load land in the loaded tree and keep working.
        try engine.put([("docs/000000", "changed"), ("docs/zzz", "new")])
        #expect(try engine.value("docs/000000") == "changed")
        #expect(try engine.snapshot().count(testNamespace) == max(count, 1) + 1)
        #expect(engine.invariantViolations().isEmpty)
    }

    @Test("commit times after a restore are later than every restored time, even ones from the future")
    func clockStartsAfterRestoredTimes() throws {
        let clock = ManualClock(1_000)
        let engine = StorageEngine(clock: clock.storageClock)
        let restored = try engine.restore(testNamespace, [entry("a/1", "x", created: 50, updated: 9_000_000)])
        #expect(restored >= 9_000_000)
        let next = try engine.put([("a/2", "y")])
        #expect(next > 9_000_000)
        #expect(try engine.snapshot().get(testNamespace, key("a/1"))?.updateTime == 9_000_000)
    }

    @Test("entries without times get the restore's own commit time")
    func zeroTimesMeanNow() throws {
        let engine = StorageEngine(clock: ManualClock(7_000_000).storageClock)
        let time = try engine.restore(testNamespace, [entry("a/1", "x", created: 0, updated: 0)])
        let stored = try #require(try engine.snapshot().get(testNamespace, key("a/1")))
        #expect(stored.createTime == time && stored.updateTime == time)
    }

    @Test("into a namespace that holds data, or out of order, each entry replaces what its key held")
    func mergeRestore() throws {
        let engine = StorageEngine(clock: ManualClock(7_000_000).storageClock)
        try engine.put([("a/1", "old"), ("a/5", "kept")])
        try engine.restore(testNamespace, [entry("a/9", "nine", created: 10, updated: 20), entry("a/1", "one", created: 11, updated: 21)])
        let snapshot = try engine.snapshot()
        #expect(snapshot.scan(testNamespace).map { String(decoding: $0.value, as: UTF8.self) } == ["one", "kept", "nine"])
        #expect(snapshot.get(testNamespace, key("a/1"))?.createTime == 11)
        #expect(snapshot.count(testNamespace) == 3)
        #expect(engine.invariantViolations().isEmpty)
    }

    @Test("subscribers hear a restore as one batch of creations")
    func feedHearsRestore() throws {
        let engine = StorageEngine()
        let recorder = FeedRecorder()
        let subscription = engine.subscribe(testNamespace) { recorder.record($0) }
        defer { subscription.cancel() }
        try engine.restore(testNamespace, [entry("a/1", "x", created: 5, updated: 6), entry("a/2", "y", created: 5, updated: 6)])
        #expect(recorder.all.count == 1)
        #expect(recorder.all.first?.changes.map(\.new?.updateTime) == [6, 6])
    }

    @Test("an entry over the namespace limits restores nothing")
    func limitsChecked() throws {
        let engine = StorageEngine()
        engine.configure(testNamespace, limits: NamespaceLimits(maxValueBytes: 4))
        #expect(throws: StorageError.self) {
            try engine.restore(testNamespace, [entry("a/1", "ok", created: 1, updated: 1), entry("a/2", "too long", created: 1, updated: 1)])
        }
        #expect(try engine.snapshot().count(testNamespace) == 0)
    }
}
