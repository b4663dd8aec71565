package import EmulatorModel
import EmulatorSupport
import Synchronization

/// The documents of every database, multi-versioned, behind one lock.
///
/// Reads run a closure over a database's state at a read time; commits run a closure that sees
/// the head state (plus its own earlier writes), may throw to write nothing, and are applied
/// atomically at a strictly increasing microsecond commit time.
package final class DocumentStore: Sendable {
    struct State: Sendable {
        var databases: [DatabaseID: DatabaseState] = [:]
        var lastCommitTime: Int64 = 0
    }

    private let state = Mutex(State())
    private let now: @Sendable () -> Int64
    /// How long history is kept for reads at a past time (one hour, as production allows).
    package static let retention: Int64 = 3_600_000_000

    package init(now: @escaping @Sendable () -> Int64 = { WallClock.nowMicroseconds() }) {
        self.now = now
    }

    /// The newest commit time, or the current time when it is later: the time a head read sees.
    package func currentTime() -> Int64 {
        let t = now()
        return state.withLock { max($0.lastCommitTime, t) }
    }

    /// Runs `body` over `database` with the lock held. `headTime` is the time a read of the head
    /// state reports: the later of the newest commit and the clock.
    func read<R: Sendable>(
        _ database: DatabaseID, _ body: (inout DatabaseState, _ headTime: Int64) throws(EmulatorError) -> R
    ) throws(EmulatorError) -> R {
        let clock = now()
        let result: Result<R, EmulatorError> = state.withLock { s in
            let headTime = max(s.lastCommitTime, clock)
            if s.databases[database] == nil {
                var empty = DatabaseState()
                return Result { () throws(EmulatorError) -> R in try body(&empty, headTime) }
            }
            return Result { () throws(EmulatorError) -> R in try body(&s.databases[database]!, headTime) }
        }
        return try result.get()
    }

    /// Runs `body` with a buffer over the head state of `database` and applies its writes at a new
    /// commit time, or writes nothing when it throws. Returns the body's result and the commit time.
    func commit<R: Sendable>(
        _ database: DatabaseID, _ body: (inout CommitBuffer) throws(EmulatorError) -> R
    ) throws(EmulatorError) -> (result: R, commitTime: Int64) {
        let clock = now()
        let outcome: Result<(R, Int64), EmulatorError> = state.withLock { s in
            let time = max(clock, s.lastCommitTime + 1)
            let staged: Result<(R, [(path: ResourcePath, bytes: [UInt8]?)]), EmulatorError> = {
                var buffer = CommitBuffer(view: s.databases[database] ?? DatabaseState(), commitTime: time)
                return Result { () throws(EmulatorError) in
                    let r = try body(&buffer)
                    return (r, buffer.finalChanges)
                }
            }()
            switch staged {
            case .failure(let e): return .failure(e)
            case .success(let (r, changes)):
                s.lastCommitTime = time
                if !changes.isEmpty {
                    s.databases[database, default: DatabaseState()]
                        .apply(changes, at: time, retainAfter: time - Self.retention)
                }
                return .success((r, time))
            }
        }
        let (r, t) = try outcome.get()
        return (r, t)
    }

    /// Removes every document of `database` at or below `path` (all history too).
    package func clear(_ database: DatabaseID, under path: ResourcePath) {
        state.withLock { s in
            if path.isEmpty { s.databases[database] = nil } else { s.databases[database]?.clear(under: path) }
        }
    }

    /// Removes everything in every database.
    package func clearAll() {
        state.withLock { $0.databases = [:] }
    }
}
