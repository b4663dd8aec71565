package import EmulatorSupport
import Synchronization

/// How one rule, or one whole request, came out.
package enum RulesOutcome: String, Sendable, Hashable {
    /// The rule was true (for a request: it was allowed).
    case allow
    /// The rule was false (for a request: denied).
    case deny
    /// The rule failed to evaluate (an error, a non-boolean, a limit): it denies.
    case error
    /// A request by the owner (`Bearer owner`, the admin): no rule is asked.
    case owner
}

/// One rule that ran during a check: where its expression starts in the rules file (1-based
/// line, column in UTF-8 bytes) and how it came out.
package struct RulesLineOutcome: Sendable, Hashable {
    package var line: Int
    package var column: Int
    package var outcome: RulesOutcome

    package init(line: Int, column: Int, outcome: RulesOutcome) {
        self.line = line
        self.column = column
        self.outcome = outcome
    }
}

/// A rules file as it was installed: shared by every record and coverage report of its rules.
package final class RulesSourceText: Sendable {
    package let fileName: String
    package let text: String

    package init(fileName: String, text: String) {
        self.fileName = fileName
        self.text = text
    }
}

/// What a record says about its request, worked out only when someone reads it.
package struct RulesRequestDescription: Sendable {
    /// `get`, `list`, `create`, `update`, `delete` (Firestore); `read`, `write` (Realtime Database).
    package var method: String
    package var path: String
    /// The caller's uid; nil when signed out (or the owner).
    package var uid: String?
    /// `request` as the rules saw it (auth, time, the new data of a write, the query).
    package var request: JSONValue
    /// The stored data the rules saw (`resource` / `data`), when known.
    package var resource: JSONValue?

    package init(method: String, path: String, uid: String?, request: JSONValue = .object([]), resource: JSONValue? = nil) {
        self.method = method
        self.path = path
        self.uid = uid
        self.request = request
        self.resource = resource
    }
}

/// One rules decision of either emulator, for the Emulator UI's Requests view.
///
/// Kept cheap to make: everything textual (the path, the uid, the request and resource as JSON)
/// comes from `describe`, which runs only when a page reads the record.
package struct RulesRequestRecord: Sendable {
    /// 1, 2, 3, … in order of arrival (set by ``RulesRequestLog``).
    package var sequence = 0
    /// Milliseconds since the Unix epoch.
    package var time: Int64
    /// `firestore` or `database`.
    package var emulator: StaticString
    package var outcome: RulesOutcome
    /// The rules that ran, in evaluation order.
    package var lines: [RulesLineOutcome]
    /// The denial's message (empty when allowed).
    package var message: String
    /// `debug()` output.
    package var debugOutput: [String]
    package var rules: RulesSourceText?
    package var describe: @Sendable () -> RulesRequestDescription

    package init(
        time: Int64, emulator: StaticString, outcome: RulesOutcome, lines: [RulesLineOutcome] = [], message: String = "",
        debugOutput: [String] = [], rules: RulesSourceText?, describe: @escaping @Sendable () -> RulesRequestDescription
    ) {
        self.time = time
        self.emulator = emulator
        self.outcome = outcome
        self.lines = lines
        self.message = message
        self.debugOutput = debugOutput
        self.rules = rules
        self.describe = describe
    }

    /// The outcome of a whole check from its decision: a denial every ran rule of which failed
    /// to evaluate is an error, other denials are denials.
    package static func outcome(of decision: RulesDecision) -> RulesOutcome {
        if decision.isAllowed { return .allow }
        if !decision.evaluated.isEmpty, decision.evaluated.allSatisfy({ $0.outcome == .error }) { return .error }
        return .deny
    }
}

/// The most recent rules decisions of both emulators: a ring of at most `capacity` records,
/// numbered so that a page polling `after: n` gets only what it has not seen.
///
/// Recording takes one lock and stores the record as made (no text is built); while no page
/// has read the log for ``watchWindow`` milliseconds, ``isWatched`` is false and the emulators
/// leave the stored data (`resource`, the new data of a write) out of what they keep, so the
/// ring holds no documents nobody looks at.
package final class RulesRequestLog: Sendable {
    package struct Page: Sendable {
        package var records: [RulesRequestRecord]
        package var last: Int
        /// Records between the one asked after and the oldest kept were dropped.
        package var skipped: Bool
    }

    package let capacity: Int
    /// How long after a page's last read the log still counts as watched (ms).
    package static let watchWindow: Int64 = 30_000
    private let state: Mutex<NumberedRing<RulesRequestRecord>>
    private let lastRead = Atomic<Int64>(Int64.min / 2)
    private let clock: @Sendable () -> Int64

    package init(capacity: Int = 2_000, clock: @escaping @Sendable () -> Int64 = { WallClock.nowMilliseconds() }) {
        self.capacity = max(1, capacity)
        self.state = Mutex(NumberedRing(capacity: capacity))
        self.clock = clock
    }

    package func now() -> Int64 { clock() }

    /// Whether a page read the log recently (see the type's documentation).
    package var isWatched: Bool {
        clock() - lastRead.load(ordering: .relaxed) < Self.watchWindow
    }

    package func record(_ record: RulesRequestRecord) {
        state.withLock { ring in
            ring.append { number in
                var record = record
                record.sequence = number
                return record
            }
        }
    }

    /// The kept records numbered above `after`, oldest first, at most `limit` (the newest ones
    /// when more are waiting). Marks the log as watched.
    package func records(after: Int, limit: Int = 1_000) -> Page {
        lastRead.store(clock(), ordering: .relaxed)
        return state.withLock { ring in
            var newer = ring.newer(than: after).map(\.element)
            let dropped = newer.count > limit ? newer.count - max(0, limit) : 0
            if dropped > 0 { newer.removeFirst(dropped) }
            let first = newer.first?.sequence ?? ring.last + 1
            return Page(records: newer, last: ring.last, skipped: first > after + 1 && after < ring.last)
        }
    }

    /// The record numbered `sequence`, while it is kept.
    package func record(_ sequence: Int) -> RulesRequestRecord? {
        state.withLock { $0.element(sequence) }
    }

    /// Forgets every record (numbering goes on).
    package func clear() {
        state.withLock { $0.removeAll() }
    }
}
