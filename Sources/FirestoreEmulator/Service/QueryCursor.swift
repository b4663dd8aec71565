package import EmulatorModel
import Dispatch
import EmulatorStorage
import EmulatorSupport
import Synchronization

/// RunQuery's answer made a document at a time while the transport has room (REST's paced JSON
/// array, gRPC's paced responses): see ``FirestoreService/openQuery(_:parent:query:consistency:caller:explain:)``.
/// The service's own folds (aggregations, a Listen target's first result, the names a read-write
/// transaction locks or records) read through one too, so that each holds what its fold keeps.
///
/// A query ordered by name alone reads its documents in key order from one snapshot and decodes
/// one at a time (``NameOrderedScan``): the cursor holds the snapshot, a position, the keys of the
/// few documents whose names key order misplaces, and one decoded document ahead (to tell the
/// last answer). One sorted on a field holds a path and the sort values per match
/// (``SortedScan``). The cursor ends, and frees its snapshot, after the last document; a
/// transport that drops it (the client went away) frees it all; a client that stops reading
/// for ``FirestoreService/queryIdleTimeout`` loses its snapshot and its call ends with
/// DEADLINE_EXCEEDED (see ``failure``).
///
/// ```swift
/// let cursor = try service.openQuery(db, parent: [], query: query)
/// while let (document, isLast) = cursor.next() { … }   // document is nil for an empty answer
/// ```
package final class QueryCursor: Sendable {
    /// The transaction the request began, answered first.
    package let transaction: [UInt8]?
    /// The read time of every answer.
    package let readTime: Int64
    private let select: [FieldPath]?
    private let probe: QueryCursorProbe?
    private let explain: Explain?
    private let state: Mutex<State>

    /// What `explain_options` asked for: the plan, and with `analyze` the run's statistics.
    struct Explain: Sendable {
        var plan: ExplainMetrics
        var analyze: Bool
    }

    private struct State {
        var producer: any QueryDocumentProducer
        /// The next document to hand out (decoded), so that each answer knows whether it is the last.
        var lookahead: StoredDocument?
        var started = false
        var finished = false
        var skipped: Int
        var failure: EmulatorError?
        /// Documents handed out.
        var returned = 0
        /// Time spent reading and decoding (explain's execution time).
        var busy: UInt64 = 0
        /// When the transport last had a document it asked for (monotonic ns).
        var lastAsked: UInt64 = MonotonicClock.nanoseconds()
    }

    init(
        transaction: [UInt8]?, readTime: Int64, producer: sending any QueryDocumentProducer, skipped: Int = 0,
        select: [FieldPath]?, explain: Explain? = nil, probe: QueryCursorProbe?
    ) {
        self.transaction = transaction
        self.readTime = readTime
        self.explain = explain
        self.select = select
        self.probe = probe
        probe?.opened(holding: producer.held)
        state = Mutex(State(producer: producer, skipped: skipped))
    }

    deinit {
        let held = state.withLock { s in s.producer.held + (s.lookahead == nil ? 0 : 1) }
        probe?.closed(releasing: held)
    }

    /// How many documents the offset skipped: final once ``next()`` answered first.
    package var skipped: Int { state.withLock { $0.skipped } }

    /// Why the answers ended early (a stored document that does not decode, a client that read
    /// nothing for too long), if they did.
    package var failure: EmulatorError? { state.withLock { $0.failure } }

    /// With `explain_options`: the plan, and with `analyze` the statistics of the run (complete
    /// once the last answer was handed out).
    package var explainMetrics: ExplainMetrics? {
        guard let explain else { return nil }
        guard explain.analyze else { return explain.plan }
        return state.withLock { s in
            var metrics = explain.plan
            let n = s.returned
            metrics.executionStats = .init(
                resultsReturned: n, executionNanoseconds: max(1, s.busy), readOperations: max(1, n), documentsScanned: n,
                indexEntriesScanned: n + s.skipped)
            return metrics
        }
    }

    /// The next answer and whether it is the last; nil after the last. A query without documents
    /// answers once, with no document (the transports still send the read time).
    package func next() -> (StoredDocument?, Bool)? {
        state.withLock { s -> (StoredDocument?, Bool)? in
            let started = MonotonicClock.nanoseconds()
            defer {
                // From the end of the call: a long first read (a sort) is not the client's idling.
                s.lastAsked = MonotonicClock.nanoseconds()
                s.busy &+= s.lastAsked &- started
            }
            if !s.started {
                s.started = true
                s.lookahead = Self.pull(&s, probe)
                if s.lookahead == nil { return (nil, true) }
            }
            guard var current = s.lookahead else { return nil }
            s.lookahead = Self.pull(&s, probe)
            probe?.release(1)
            s.returned += 1
            if let select { current.fields = QueryEngine.project(current.fields, select) }
            return (current, s.lookahead == nil)
        }
    }

    /// Ends the cursor when the transport has not asked for a document for `timeout`
    /// nanoseconds: checked after that long, and again after what remains of it while the
    /// client reads. An expired cursor frees its snapshot and documents at once, and its answers
    /// end with DEADLINE_EXCEEDED (``failure``) when the client reads again; a cursor that
    /// finished or was freed stops checking.
    func expireWhenIdle(after timeout: UInt64) { checkIdle(limit: timeout, in: timeout) }

    private func checkIdle(limit: UInt64, in delay: UInt64) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: delay))) { [weak self] in
            guard let self else { return }
            let remaining = self.state.withLock { s -> UInt64? in
                guard !s.finished else { return nil }
                let idle = MonotonicClock.nanoseconds() &- s.lastAsked
                if idle < limit { return limit - idle }
                let seconds = limit / 1_000_000_000
                s.failure = .deadlineExceeded(
                    "The query's client read no results for \(seconds > 0 ? "\(seconds) s" : "\(limit / 1_000_000) ms"); the query was ended.")
                let held = s.producer.held + (s.lookahead == nil ? 0 : 1)
                s.lookahead = nil
                s.finished = true
                self.probe?.release(held)
                s.producer = DocumentList([])
                self.probe?.noteExpired()
                return nil
            }
            if let remaining { self.checkIdle(limit: limit, in: remaining) }
        }
    }

    /// Every remaining document (in-process callers and tests).
    package func collect() -> [StoredDocument] {
        var out: [StoredDocument] = []
        while let (document, _) = next() {
            if let document { out.append(document) }
        }
        return out
    }

    private static func pull(_ s: inout State, _ probe: QueryCursorProbe?) -> StoredDocument? {
        guard !s.finished else { return nil }
        do throws(EmulatorError) {
            if let d = try s.producer.next(skipped: &s.skipped, probe: probe) { return d }
        } catch {
            s.failure = error
        }
        // Done: the snapshot and iterators go now, even if the transport keeps the cursor a while.
        s.finished = true
        probe?.release(s.producer.held)
        s.producer = DocumentList([])
        return nil
    }
}

/// Where a ``QueryCursor`` takes its documents from (the cursor's lock guards it).
protocol QueryDocumentProducer {
    /// The next document of the window, or nil after the last; `skipped` counts the documents the
    /// offset skipped, and `probe` each document decoded and dropped.
    mutating func next(skipped: inout Int, probe: QueryCursorProbe?) throws(EmulatorError) -> StoredDocument?
    /// Decoded documents held.
    var held: Int { get }
}

/// A result read whole, handed out in order, each document dropped once handed out.
struct DocumentList: QueryDocumentProducer {
    private var reversed: [StoredDocument]

    init(_ documents: [StoredDocument]) { reversed = documents.reversed() }

    mutating func next(skipped: inout Int, probe: QueryCursorProbe?) -> StoredDocument? { reversed.popLast() }

    var held: Int { reversed.count }
}

/// Counts what the query cursors of a service hold (tests and diagnostics): how many are open,
/// how many documents they decoded, and the most decoded documents they held at once.
package final class QueryCursorProbe: Sendable {
    private struct Counts {
        var open = 0
        var decoded = 0
        var held = 0
        var peakHeld = 0
        var expired = 0
    }

    private let counts = Mutex(Counts())

    package init() {}

    /// Cursors made and not yet freed.
    package var open: Int { counts.withLock { $0.open } }
    /// Documents decoded by every cursor (those of a result read whole count when it is handed over).
    package var decoded: Int { counts.withLock { $0.decoded } }
    /// Decoded documents cursors hold now.
    package var held: Int { counts.withLock { $0.held } }
    /// The most decoded documents the cursors held at one time.
    package var peakHeld: Int { counts.withLock { $0.peakHeld } }
    /// Cursors ended because their client stopped reading.
    package var expired: Int { counts.withLock { $0.expired } }

    func noteExpired() { counts.withLock { $0.expired += 1 } }

    func opened(holding n: Int) {
        counts.withLock { c in
            c.open += 1
            c.decoded += n
            c.held += n
            c.peakHeld = max(c.peakHeld, c.held)
        }
    }

    func closed(releasing n: Int) {
        counts.withLock { c in
            c.open -= 1
            c.held -= n
        }
    }

    /// A document was decoded (and is held until released).
    func decoded(_ n: Int) {
        counts.withLock { c in
            c.decoded += n
            c.held += n
            c.peakHeld = max(c.peakHeld, c.held)
        }
    }

    func release(_ n: Int) {
        counts.withLock { $0.held -= n }
    }
}
