import EmulatorModel
import EmulatorSupport
import Foundation
import Synchronization

/// One document change as this client applies it to its own view before the server answers.
enum LocalMutation: Sendable {
    /// Replace the document with these fields.
    case set(path: String, fields: ValueMap)
    /// Change the fields at these paths (nil removes); with `mustExist`, a missing document stays missing.
    case patch(path: String, fields: [(ModelFieldPath, Value?)], mustExist: Bool)
    case delete(path: String)
    /// The change, then transforms the server computes (estimated here; see ``estimate(_:on:)``).
    indirect case transformed(LocalMutation, [FieldTransform])

    var path: String {
        switch self {
        case .set(let p, _), .patch(let p, _, _), .delete(let p): return p
        case .transformed(let inner, _): return inner.path
        }
    }

    /// The document after this change, from the document before it (nil: missing).
    func apply(to fields: ValueMap?) -> ValueMap? {
        switch self {
        case .set(_, let f): return f
        case .delete: return nil
        case .patch(_, let changes, let mustExist):
            if fields == nil && mustExist { return nil }
            var out = fields ?? ValueMap()
            for (path, value) in changes {
                if let value { out.setValue(value, at: path) } else { _ = out.removeValue(at: path) }
            }
            return out
        case .transformed(let inner, let transforms):
            guard var out = inner.apply(to: fields) else { return nil }
            for t in transforms { out.setValue(Self.estimate(t, on: out.value(at: t.field)), at: t.field) }
            return out
        }
    }

    /// A transform's value before the server computed it, as the Apple SDK shows it by default:
    /// increments, minimum/maximum and array unions/removals applied to the local value, a server
    /// timestamp as null until the server's time arrives.
    static func estimate(_ transform: FieldTransform, on current: Value?) -> Value {
        if case .serverTimestamp = transform.kind { return .null }
        return transform.apply(to: current, commitTime: 0)
    }
}

/// The writes of one `Firestore` instance that listeners show before the server confirms them
/// (latency compensation), in the order they were made. A batch is pending until its commit
/// answers; acknowledged, it still applies to a listener whose server data is older than the
/// commit (so the view does not flicker back while the `Listen` stream catches up); refused, it
/// is dropped. Listeners register a closure that recomputes their view when the table changes.
final class LocalWriteTable: Sendable {
    struct Batch: Sendable {
        let id: Int
        let mutations: [LocalMutation]
        /// The commit time (microseconds) once the server applied the batch.
        var committedAt: Int64?
        var acknowledgedAt: ContinuousClock.Instant?
    }

    private struct State: Sendable {
        var batches: [Batch] = []
        var nextID = 1
        var listeners: [UInt: @Sendable () -> Void] = [:]
        var nextListener: UInt = 1
    }

    private let state = Mutex(State())

    /// Records a batch and tells the listeners; returns its id.
    func add(_ mutations: [LocalMutation]) -> Int {
        let (id, listeners) = state.withLock { s -> (Int, [@Sendable () -> Void]) in
            let id = s.nextID
            s.nextID += 1
            s.batches.append(Batch(id: id, mutations: mutations))
            return (id, Array(s.listeners.values))
        }
        for l in listeners { l() }
        return id
    }

    /// The server applied batch `id` at `commitTime` (microseconds). Batches acknowledged more
    /// than a minute ago are forgotten (every listener's stream has passed them by then).
    func acknowledge(_ id: Int, commitTime: Int64?) {
        let listeners = state.withLock { s -> [@Sendable () -> Void] in
            let now = ContinuousClock.now
            if let i = s.batches.firstIndex(where: { $0.id == id }) {
                s.batches[i].committedAt = commitTime ?? Int64.max
                s.batches[i].acknowledgedAt = now
            }
            s.batches.removeAll { b in b.acknowledgedAt.map { now - $0 > .seconds(60) } ?? false }
            return Array(s.listeners.values)
        }
        for l in listeners { l() }
    }

    /// The server refused batch `id`: it leaves every view.
    func reject(_ id: Int) {
        let listeners = state.withLock { s -> [@Sendable () -> Void] in
            s.batches.removeAll { $0.id == id }
            return Array(s.listeners.values)
        }
        for l in listeners { l() }
    }

    /// Writes not yet acknowledged.
    var pendingCount: Int { state.withLock { s in s.batches.filter { $0.committedAt == nil }.count } }

    func addListener(_ body: @escaping @Sendable () -> Void) -> UInt {
        state.withLock { s in
            let id = s.nextListener
            s.nextListener += 1
            s.listeners[id] = body
            return id
        }
    }

    func removeListener(_ id: UInt) { state.withLock { _ = $0.listeners.removeValue(forKey: id) } }

    /// The documents (by path) the local writes change for a view whose server data is
    /// consistent at `readTime`: each with its fields after the writes (nil: deleted) and whether
    /// a write on it is still pending. `base` gives the server's fields for a path.
    func overlay(readTime: Int64?, base: (String) -> ValueMap?) -> [String: (fields: ValueMap?, pending: Bool)] {
        let batches = state.withLock { $0.batches }
        var out: [String: (fields: ValueMap?, pending: Bool)] = [:]
        for batch in batches {
            let pending = batch.committedAt == nil
            if let committed = batch.committedAt, let readTime, committed <= readTime { continue }
            for m in batch.mutations {
                let before: ValueMap?
                if let changed = out[m.path] { before = changed.fields } else { before = base(m.path) }
                out[m.path] = (m.apply(to: before), pending || (out[m.path]?.pending ?? false))
            }
        }
        return out
    }
}
