import EmulatorStorage
import EmulatorTestSupport
import Glibc
import Synchronization
import Testing

@testable import EmulatorSnapshot

/// Commits inside a `DurabilityScope` return before their sync; the scope's action runs after it.
@Suite struct DeferredDurabilityTests {
    let rtdb: NamespaceID = "database/demo-default-rtdb"

    func put(_ engine: StorageEngine, _ key: String, _ value: String) throws { try engine.put(rtdb, key, value) }

    final class Flag: Sendable {
        private let value = Watched(false)
        func set() { value.update { $0 = true } }
        var isSet: Bool { value.current }
        /// Waits up to 2 s for the flag to be set.
        func wait() -> Bool { value.wait(seconds: 2) { $0 } }
    }

    /// Waits up to 2 s for `flag`.
    func eventually(_ flag: Flag) -> Bool { flag.wait() }

    @Test(arguments: [DataDirectory.Durability.sync, .write])
    func actionRunsOnceTheCollectedCommitsAreDurableAndTheyRecover(durability: DataDirectory.Durability) throws {
        let dir = TemporaryDirectory()
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine, durability: durability)
        let ((), scope) = try DurabilityScope.collect {
            try put(engine, "a", "1")
            try put(engine, "b", "2")
        }
        let collected = try #require(scope)
        let done = Flag()
        collected.whenDurable { done.set() }
        #expect(eventually(done))
        // Acknowledged, so it must survive a crash right now.
        data.abandonForTesting()
        let restarted = StorageEngine()
        let reopened = try DataDirectory.open(dir.path + "/live", engine: restarted)
        defer { reopened.close() }
        #expect(reopened.recovered.commits == 2)
        #expect(try restarted.snapshot().get(rtdb, StorageKey("b")).map { String(decoding: $0.value, as: UTF8.self) } == "2")
    }

    @Test func aScopeWithoutCommitsOrWithoutAJournalHasNothingToWaitFor() throws {
        let engine = StorageEngine()
        let ((), withoutJournal) = try DurabilityScope.collect { try put(engine, "a", "1") }
        #expect(withoutJournal == nil)
        let dir = TemporaryDirectory()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine)
        defer { data.close() }
        let (_, readOnly) = try DurabilityScope.collect { try engine.snapshot() }
        #expect(readOnly == nil)
    }

    @Test func anActionPendingAtCloseRunsWhenTheJournalIsFlushed() throws {
        let dir = TemporaryDirectory()
        let engine = StorageEngine()
        let data = try DataDirectory.open(dir.path + "/live", engine: engine)
        let done = Flag()
        for i in 0..<50 {
            let ((), scope) = try DurabilityScope.collect { try put(engine, "k\(i)", "v") }
            scope?.whenDurable { if i == 49 { done.set() } }
        }
        data.close()
        #expect(done.isSet)
    }
}
