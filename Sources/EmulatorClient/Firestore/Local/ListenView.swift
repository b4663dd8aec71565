import EmulatorModel
import EmulatorProtobuf
import Synchronization

/// What one snapshot listener shows: the server's documents from its `Listen` stream with the
/// instance's local writes laid over them, and the metadata the SDK reports: `hasPendingWrites`
/// while a shown document has a write the server has not acknowledged, `isFromCache` while the
/// stream is not connected and current. It recomputes on every server snapshot, local write,
/// acknowledgement and disconnection, and hands a snapshot on when the documents changed (or,
/// with `includeMetadataChanges`, when only the metadata did).
final class ListenView: Sendable {
    struct Shown: Sendable {
        var documents: [DocumentSnapshot]
        var metadata: SnapshotMetadata
    }

    private struct State: Sendable {
        /// Server documents by path, nil before the first server snapshot.
        var server: [String: DocumentSnapshot]?
        var readTime: Int64?
        var fromCache = true
        var last: Shown?
        var tableListener: UInt?
    }

    private let state = Mutex(State())
    private let firestore: Firestore
    private let includeMetadataChanges: Bool
    /// Whether a document (fields known) belongs in the view; `order` sorts and windows the result.
    private let matches: @Sendable (DocumentSnapshot) -> Bool
    private let order: @Sendable ([DocumentSnapshot]) -> [DocumentSnapshot]
    /// Called (under the view's lock: it must only queue work) with the new and the previous result.
    private let emit: @Sendable (Shown, Shown?) -> Void

    init(
        firestore: Firestore, includeMetadataChanges: Bool, matches: @escaping @Sendable (DocumentSnapshot) -> Bool,
        order: @escaping @Sendable ([DocumentSnapshot]) -> [DocumentSnapshot], emit: @escaping @Sendable (Shown, Shown?) -> Void
    ) {
        self.firestore = firestore
        self.includeMetadataChanges = includeMetadataChanges
        self.matches = matches
        self.order = order
        self.emit = emit
    }

    /// Starts following the instance's local writes (the first view may come from them alone).
    func start() {
        let id = firestore.localWrites.addListener { [weak self] in self?.recompute() }
        state.withLock { $0.tableListener = id }
        recompute()
    }

    func stop() {
        if let id = state.withLock({ $0.tableListener }) { firestore.localWrites.removeListener(id) }
    }

    /// A consistent server result.
    func serverSnapshot(_ protos: [ProtoDocument], readTime: Int64?) {
        let firestore = self.firestore
        var documents: [String: DocumentSnapshot] = [:]
        for proto in protos {
            guard let ref = DocumentReference(name: proto.name, firestore: firestore) else { continue }
            documents[ref.path] = DocumentSnapshot(proto: proto, reference: ref)
        }
        state.withLock { s in
            s.server = documents
            if let readTime { s.readTime = readTime }
            s.fromCache = false
        }
        recompute()
    }

    /// The stream broke: later snapshots come from the cache until it is current again.
    func disconnected() {
        state.withLock { $0.fromCache = true }
        recompute()
    }

    private func recompute() {
        state.withLock { s in
            let server = s.server ?? [:]
            let local = firestore.localWrites.overlay(readTime: s.readTime) { server[$0]?.fields }
            var shown = server
            var pending = false
            var touched = false
            for (path, change) in local {
                let ref = firestore.document(path)
                var doc = DocumentSnapshot(reference: ref, fields: change.fields, updateTime: nil)
                doc.hasPendingWrites = change.pending
                if change.fields != nil && matches(doc) {
                    shown[path] = doc
                    touched = true
                } else if shown.removeValue(forKey: path) != nil {
                    touched = true
                }
            }
            // Before the server's first answer, only a local write this view shows makes a snapshot.
            if s.server == nil && !touched { return }
            var documents = order(Array(shown.values))
            for i in documents.indices {
                documents[i].isFromCache = s.fromCache
                if documents[i].hasPendingWrites { pending = true }
            }
            let metadata = SnapshotMetadata(hasPendingWrites: pending, isFromCache: s.fromCache)
            let next = Shown(documents: documents, metadata: metadata)
            if let last = s.last {
                let changed = ListenView.differ(last.documents, documents)
                guard changed || (includeMetadataChanges && last.metadata != metadata) else { return }
            }
            emit(next, s.last)
            s.last = next
        }
    }

    /// Whether two results differ in their documents: membership, order or fields.
    static func differ(_ a: [DocumentSnapshot], _ b: [DocumentSnapshot]) -> Bool {
        guard a.count == b.count else { return true }
        for (x, y) in zip(a, b) where x.reference.path != y.reference.path || x.fields != y.fields { return true }
        return false
    }
}

extension Query {
    /// Whether a document belongs in this query's result, judged locally (for documents the
    /// instance wrote and the server has not confirmed): its collection, then the filters.
    func matchesLocally(_ document: DocumentSnapshot) -> Bool {
        let segments = document.reference.path.split(separator: "/").map(String.init)
        guard segments.count >= 2 else { return false }
        let d = description
        if d.allDescendants {
            guard segments[segments.count - 2] == d.collectionID else { return false }
            if !d.parentPath.isEmpty && !document.reference.path.hasPrefix(d.parentPath + "/") { return false }
        } else if segments.dropLast().joined(separator: "/") != collectionPath {
            return false
        }
        // An order-by field the document lacks keeps it out, as on the server.
        for order in d.orders where !order.path.isDocumentID && document.modelValue(at: order.path) == nil { return false }
        return d.filters.allSatisfy { $0.matches(document) }
    }
}

extension Filter.Node {
    func matches(_ document: DocumentSnapshot) -> Bool {
        switch self {
        case .composite(let op, let nodes):
            return op == "OR" ? nodes.contains { $0.matches(document) } : nodes.allSatisfy { $0.matches(document) }
        case .unary(let path, let op):
            let v = document.modelValue(at: path)
            let isNaN: Bool
            if case .double(let d)? = v { isNaN = d.isNaN } else { isNaN = false }
            switch op {
            case "IS_NULL": return v == .null
            case "IS_NOT_NULL": return v != nil && v != .null
            case "IS_NAN": return isNaN
            case "IS_NOT_NAN": return v != nil && !isNaN
            default: return false
            }
        case .field(let path, let op, let value):
            let v: Value?
            if path.isDocumentID { v = .string(document.reference.path) } else { v = document.modelValue(at: path) }
            guard let v else { return false }
            let target: Value
            if path.isDocumentID, case .reference(let name) = value {
                target = .string(DocumentReference(name: name, firestore: document.reference.firestore)?.path ?? name)
            } else {
                target = value
            }
            func same(_ a: Value, _ b: Value) -> Bool { Value.compare(a, b) == 0 }
            switch op {
            case "EQUAL": return same(v, target)
            case "NOT_EQUAL": return v != .null && !same(v, target)
            case "LESS_THAN": return Value.compare(v, target) < 0 && sameKind(v, target)
            case "LESS_THAN_OR_EQUAL": return Value.compare(v, target) <= 0 && sameKind(v, target)
            case "GREATER_THAN": return Value.compare(v, target) > 0 && sameKind(v, target)
            case "GREATER_THAN_OR_EQUAL": return Value.compare(v, target) >= 0 && sameKind(v, target)
            case "ARRAY_CONTAINS":
                if case .array(let items) = v { return items.contains { same($0, target) } }
                return false
            case "IN":
                if case .array(let options) = target { return options.contains { same(v, $0) } }
                return false
            case "NOT_IN":
                if case .array(let options) = target { return v != .null && !options.contains { same(v, $0) } }
                return false
            case "ARRAY_CONTAINS_ANY":
                if case .array(let items) = v, case .array(let options) = target {
                    return items.contains { item in options.contains { same(item, $0) } }
                }
                return false
            default: return false
            }
        }
    }

    /// Range filters compare values of one kind only (numbers with numbers, strings with strings…).
    private func sameKind(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.integer, .integer), (.integer, .double), (.double, .integer), (.double, .double): return true
        case (.null, .null), (.boolean, .boolean), (.timestamp, .timestamp), (.string, .string), (.bytes, .bytes),
            (.reference, .reference), (.geoPoint, .geoPoint), (.array, .array), (.map, .map):
            return true
        default: return false
        }
    }
}
