import Dispatch
import Testing

@testable import FirestoreEmulator

/// `LockAttempt.current` is the attempt whose request runs on the calling thread, and nothing
/// elsewhere: the service reads it to reuse a run's lock owner and begun transaction.
@Suite struct LockAttemptCurrentTests {
    @Test func currentIsTheRunningAttemptOnItsThreadOnly() {
        #expect(LockAttempt.current == nil)
        let outer = LockAttempt()
        let inner = LockAttempt()
        let outcome = outer.run({ () -> [Bool] in
            var seen = [LockAttempt.current === outer]
            // Another thread, during the run, sees none.
            let group = DispatchGroup()
            let elsewhere = ElsewhereBox()
            DispatchQueue.global().async(group: group) { elsewhere.sawNone = LockAttempt.current == nil }
            group.wait()
            seen.append(elsewhere.sawNone)
            // A nested run sees its own, and the outer one is current again after it.
            if case .now(let nested) = inner.run({ LockAttempt.current === inner }, resumable: { { false } }) {
                seen.append(nested)
            }
            seen.append(LockAttempt.current === outer)
            return seen
        }, resumable: { { [] } })
        guard case .now(let seen) = outcome else {
            Issue.record("the run parked")
            return
        }
        #expect(seen == [true, true, true, true])
        #expect(LockAttempt.current == nil)
    }

    private final class ElsewhereBox: @unchecked Sendable {
        // @unchecked: written by one block before `group.wait()` returns, read after it.
        var sawNone = false
    }
}
