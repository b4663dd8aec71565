import EmulatorModel
import Testing

@testable import FirestoreEmulator

/// The lock manager on its own: a pure state machine, driven step by step.
@Suite struct LockTableTests {
    static let db = DatabaseID(project: "demo", database: "(default)")
    static func key(_ path: String) -> LockTable.Key {
        LockTable.Key(database: db, path: ResourcePath(segments: path.split(separator: "/").map(String.init)))
    }
    static let a = key("c/a")
    static let b = key("c/b")

    /// `#expect` for conditions whose evaluation steps the table (mutating calls).
    func check(_ condition: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(condition, sourceLocation: sourceLocation)
    }

    @Test func sharedLocksAreCompatibleAndExclusiveWaitsForAnOlderReader() {
        var t = LockTable()
        check(t.acquire(1, age: 1, [Self.a: .shared], woundable: true, deadline: 100).0 == .granted)
        check(t.acquire(2, age: 2, [Self.a: .shared], woundable: true, deadline: 100).0 == .granted)
        // A younger transaction's commit waits for the older reader.
        check(t.acquire(2, age: 2, [Self.a: .exclusive], woundable: true, finishing: true, deadline: 100).0 == .waiting)
        #expect(t.isWaiting(2))
        // The older one ends: the younger is granted.
        check(t.release(1) == [LockTable.Resolution(owner: 2, error: nil)])
        #expect(t.holds(2, Self.a) == .exclusive)
        check(t.release(2).isEmpty)
        #expect(t.isIdle)
    }

    @Test func anOlderRequestWoundsYoungerHolders() {
        var t = LockTable()
        check(t.acquire(1, age: 1, [Self.a: .shared], woundable: true, deadline: 100).0 == .granted)
        check(t.acquire(2, age: 2, [Self.a: .shared], woundable: true, deadline: 100).0 == .granted)
        // The younger waits for the older...
        check(t.acquire(2, age: 2, [Self.a: .exclusive], woundable: true, finishing: true, deadline: 100).0 == .waiting)
        // ...and the older's commit wounds it: its wait fails, its lock goes, the older is granted.
        let (outcome, resolutions) = t.acquire(1, age: 1, [Self.a: .exclusive], woundable: true, finishing: true, deadline: 100)
        #expect(outcome == .granted)
        #expect(resolutions == [LockTable.Resolution(owner: 2, error: LockTable.wounded)])
        #expect(t.isWounded(2))
        #expect(t.holds(2, Self.a) == nil)
        // A wounded owner's next request fails at once.
        check(t.acquire(2, age: 2, [Self.b: .shared], woundable: true, deadline: 100).0 == .failed(LockTable.wounded))
    }

    @Test func aCommittingTransactionIsWaitedForNotWounded() {
        var t = LockTable()
        check(t.acquire(2, age: 2, [Self.a: .exclusive], woundable: true, finishing: true, deadline: 100).0 == .granted)
        // Older, but the holder is already committing: wait.
        check(t.acquire(1, age: 1, [Self.a: .shared], woundable: true, deadline: 100).0 == .waiting)
        #expect(!t.isWounded(2))
        check(t.release(2) == [LockTable.Resolution(owner: 1, error: nil)])
    }

    @Test func youngerRequestsQueueBehindAnOlderWaiter() {
        var t = LockTable()
        check(t.acquire(1, age: 1, [Self.a: .shared], woundable: true, deadline: 100).0 == .granted)
        // A write (one-shot, age 2) waits for the reader.
        check(t.acquire(2, age: 2, [Self.a: .exclusive], woundable: false, deadline: 100).0 == .waiting)
        // A younger reader would be compatible with the holder, but queues behind the older writer.
        check(t.acquire(3, age: 3, [Self.a: .shared], woundable: true, deadline: 100).0 == .waiting)
        let resolutions = t.release(1)
        #expect(resolutions.first == LockTable.Resolution(owner: 2, error: nil))
        #expect(t.isWaiting(3))
        check(t.release(2) == [LockTable.Resolution(owner: 3, error: nil)])
    }

    @Test func waitsTimeOut() {
        var t = LockTable()
        check(t.acquire(1, age: 1, [Self.a: .exclusive], woundable: false, deadline: 100).0 == .granted)
        check(t.acquire(2, age: 2, [Self.a: .shared], woundable: true, deadline: 50).0 == .waiting)
        check(t.expire(now: 49).isEmpty)
        check(t.expire(now: 50) == [LockTable.Resolution(owner: 2, error: LockTable.timeout)])
        #expect(!t.isWaiting(2))
        // Without a deadline a request cannot wait.
        check(t.acquire(3, age: 3, [Self.a: .shared], woundable: true, deadline: nil).0 == .failed(LockTable.timeout))
    }

    @Test func cancellingAWaitLetsYoungerRequestsThrough() {
        var t = LockTable()
        check(t.acquire(1, age: 1, [Self.a: .shared], woundable: true, deadline: 100).0 == .granted)
        check(t.acquire(2, age: 2, [Self.a: .exclusive, Self.b: .exclusive], woundable: false, deadline: 100).0 == .waiting)
        // b is free, but the older writer waits for it too.
        check(t.acquire(3, age: 3, [Self.b: .shared], woundable: true, deadline: 100).0 == .waiting)
        check(t.cancelWait(2) == [LockTable.Resolution(owner: 3, error: nil)])
        #expect(t.holds(3, Self.b) == .shared)
    }

    @Test func blanketWritersHoldEverythingBriefly() {
        var t = LockTable()
        check(t.admitBlanket())
        check(t.acquire(1, age: 1, [Self.a: .shared], woundable: true, deadline: 100).0 == .waiting)
        // While a transaction waits, writers take the per-document path.
        check(!t.admitBlanket())
        check(t.releaseBlanket() == [LockTable.Resolution(owner: 1, error: nil)])
    }

    /// Two transactions each hold what the other wants: wound-wait breaks the cycle at once.
    @Test func crossedLocksNeverDeadlock() {
        var t = LockTable()
        check(t.acquire(1, age: 1, [Self.a: .shared], woundable: true, deadline: 100).0 == .granted)
        check(t.acquire(2, age: 2, [Self.b: .shared], woundable: true, deadline: 100).0 == .granted)
        check(t.acquire(2, age: 2, [Self.a: .exclusive], woundable: true, finishing: true, deadline: 100).0 == .waiting)
        let (outcome, resolutions) = t.acquire(1, age: 1, [Self.b: .exclusive], woundable: true, finishing: true, deadline: 100)
        #expect(outcome == .granted)
        #expect(resolutions == [LockTable.Resolution(owner: 2, error: LockTable.wounded)])
    }

    /// Two requests of one transaction wait at once (concurrent reads): one wait covers both.
    @Test func aSecondRequestOfAWaitingOwnerJoinsItsWait() {
        var t = LockTable()
        check(t.acquire(1, age: 1, [Self.a: .exclusive, Self.b: .exclusive], woundable: false, deadline: 100).0 == .granted)
        check(t.acquire(2, age: 2, [Self.a: .shared], woundable: true, deadline: 100).0 == .waiting)
        check(t.acquire(2, age: 2, [Self.b: .shared], woundable: true, deadline: 100).0 == .waiting)
        check(t.release(1) == [LockTable.Resolution(owner: 2, error: nil)])
        #expect(t.holds(2, Self.a) == .shared)
        #expect(t.holds(2, Self.b) == .shared)
    }
}
