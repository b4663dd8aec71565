package import EmulatorHTTP
package import EmulatorStorage
import Glibc
import Synchronization

/// A commit log whose "sync" the test opens and closes: while held, records are not durable, so
/// `waitUntilDurable` would block (it counts such waits and gives up after `blockLimit`) and
/// `whenDurable` actions wait for ``release()``.
package final class HeldCommitLog: CommitLog {
    private struct State {
        var appended: UInt64 = 0
        var durable: UInt64 = 0
        var held = true
        var waiting: [(token: UInt64, action: @Sendable () -> Void)] = []
        var blockingWaits = 0
    }

    private let state = Watched(State())
    package let blockLimitMicroseconds: UInt32

    package init(blockLimitMicroseconds: UInt32 = 2_000_000) { self.blockLimitMicroseconds = blockLimitMicroseconds }

    /// A gate that holds replies until the commits of their work are durable (the suite's).
    package static let gate = ReplyGate { work in
        let ((), scope) = DurabilityScope.collect(work)
        guard let scope else { return nil }
        return { action in scope.whenDurable(action) }
    }

    package func append(_ changes: [StorageChange], cleared: [ClearedSubtree], commitTime: CommitTime) -> UInt64 { next() }
    package func appendClear(_ namespace: NamespaceID, subtree: StorageKey, commitTime: CommitTime) -> UInt64 { next() }

    private func next() -> UInt64 {
        state.update { s in
            s.appended += 1
            if !s.held { s.durable = s.appended }
            return s.appended
        }
    }

    package func waitUntilDurable(_ token: UInt64) {
        let blocked = state.update { s -> Bool in
            guard s.durable < token else { return false }
            s.blockingWaits += 1
            return true
        }
        guard blocked else { return }
        state.wait(seconds: Double(blockLimitMicroseconds) / 1e6) { $0.durable >= token }
    }

    package func whenDurable(_ token: UInt64, _ action: @escaping @Sendable () -> Void) {
        let now = state.update { s -> Bool in
            if s.durable >= token { return true }
            s.waiting.append((token, action))
            return false
        }
        if now { action() }
    }

    /// Makes everything appended durable and runs the waiting actions (this thread, like a syncer).
    package func release() {
        let actions = state.update { s -> [@Sendable () -> Void] in
            s.held = false
            s.durable = s.appended
            defer { s.waiting = [] }
            return s.waiting.map(\.action)
        }
        for action in actions { action() }
    }

    package var appended: UInt64 { state.current.appended }

    /// Waits until `count` records were appended, for at most `seconds`; whether they were.
    package func waitUntilAppended(_ count: UInt64, seconds: Double = 2) -> Bool {
        state.wait(seconds: seconds) { $0.appended >= count }
    }
    /// How many commits waited for durability on their own thread.
    package var blockingWaits: Int { state.current.blockingWaits }
}
