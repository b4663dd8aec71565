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

    /// The mutation a REST `Write` makes, with its `updateTransforms` estimated locally until the
    /// server answers. Nil for JSON it does not recognise.
    init?(write json: JSONValue, documentsPrefix: String) {
        guard let base = LocalMutation(change: json, documentsPrefix: documentsPrefix) else { return nil }
        guard case .array(let items)? = json[member: "updateTransforms"], !items.isEmpty else {
            self = base
            return
        }
        self = .transformed(base, items.compactMap(Self.transform))
    }

    /// One `FieldTransform` in REST JSON; nil for one it does not recognise.
    private static func transform(_ json: JSONValue) -> FieldTransform? {
        guard case .string(let text)? = json[member: "fieldPath"], let field = try? ModelFieldPath(parsing: text) else { return nil }
        func value(_ name: String) -> Value? { json[member: name].flatMap { try? Value(firestoreJSON: $0) } }
        func values(_ name: String) -> [Value]? {
            guard case .array(let items)? = json[member: name]?[member: "values"] else { return json[member: name] == nil ? nil : [] }
            return items.compactMap { try? Value(firestoreJSON: $0) }
        }
        if json[member: "setToServerValue"] != nil { return FieldTransform(field, .serverTimestamp) }
        if let v = value("increment") { return FieldTransform(field, .increment(v)) }
        if let v = value("maximum") { return FieldTransform(field, .maximum(v)) }
        if let v = value("minimum") { return FieldTransform(field, .minimum(v)) }
        if let v = values("appendMissingElements") { return FieldTransform(field, .appendMissingElements(v)) }
        if let v = values("removeAllFromArray") { return FieldTransform(field, .removeAllFromArray(v)) }
        return nil
    }

    /// The document change of a REST `Write`, without its transforms.
    private init?(change json: JSONValue, documentsPrefix: String) {
        func path(_ name: JSONValue?) -> String? {
            guard case .string(let n)? = name, n.hasPrefix(documentsPrefix) else { return nil }
            return String(n.dropFirst(documentsPrefix.count))
        }
        if let p = path(json[member: "delete"]) {
            self = .delete(path: p)
            return
        }
        guard let update = json[member: "update"], let p = path(update[member: "name"]) else { return nil }
        let fields = (update[member: "fields"].flatMap { try? ValueMap(firestoreFields: $0) }) ?? ValueMap()
        guard case .array(let mask)? = json[member: "updateMask"]?[member: "fieldPaths"] else {
            self = .set(path: p, fields: fields)
            return
        }
        var changes: [(ModelFieldPath, Value?)] = []
        for item in mask {
            guard case .string(let text) = item, let fieldPath = try? ModelFieldPath(parsing: text) else { continue }
            changes.append((fieldPath, fields.value(at: fieldPath)))
        }
        let mustExist = json[member: "currentDocument"]?[member: "exists"] == .bool(true)
        self = .patch(path: p, fields: changes, mustExist: mustExist)
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
