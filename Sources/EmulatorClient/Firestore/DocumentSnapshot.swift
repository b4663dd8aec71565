import EmulatorModel
import EmulatorSupport

/// A document as read at one moment; `exists` is false for a missing document.
public struct DocumentSnapshot: Sendable {
    public let reference: DocumentReference
    let fields: ValueMap?
    let updateTime: String?
    /// A write of this instance to the document is not acknowledged yet (listener snapshots).
    var hasPendingWrites = false
    /// The listener's stream was not connected and current when this was shown.
    var isFromCache = false

    init(reference: DocumentReference, fields: ValueMap?, updateTime: String? = nil) {
        self.reference = reference
        self.fields = fields
        self.updateTime = updateTime
    }

    init(json: JSONValue, reference: DocumentReference) throws(FirestoreError) {
        var fields = ValueMap()
        if let f = json[member: "fields"] {
            do { fields = try ValueMap(firestoreFields: f) } catch { throw FirestoreError(.internal, error.message) }
        }
        var time: String?
        if case .string(let t)? = json[member: "updateTime"] { time = t }
        self.init(reference: reference, fields: fields, updateTime: time)
    }

    public var exists: Bool { fields != nil }
    /// From a listener: whether the document shows a write the server has not acknowledged yet,
    /// and whether it came from the in-memory cache while the stream was down. Reads: both false.
    public var metadata: SnapshotMetadata { SnapshotMetadata(hasPendingWrites: hasPendingWrites, isFromCache: isFromCache) }
    public var documentID: String { reference.documentID }

    /// The fields (`Int`, `Double`, `String`, `Bool`, `NSNull`, `Timestamp`, `Data`, `GeoPoint`,
    /// `DocumentReference`, arrays, maps), or nil when the document does not exist.
    public func data() -> [String: Any]? {
        guard let fields else { return nil }
        var out: [String: Any] = [:]
        for f in fields { out[f.name] = FieldData.any(f.value, firestore: reference.firestore) }
        return out
    }

    /// The value at a dotted field path, or nil.
    public func get(_ field: String) -> Any? { value(at: FieldPath.dotted(field)) }
    public func get(_ field: FieldPath) -> Any? { value(at: field.model) }
    public subscript(field: String) -> Any? { self.get(field) }

    func modelValue(at path: ModelFieldPath) -> Value? {
        if path.isDocumentID { return .reference(reference.name) }
        guard let fields else { return nil }
        var current: Value = .map(fields)
        for s in path.segments {
            guard case .map(let m) = current, let next = m[s] else { return nil }
            current = next
        }
        return current
    }

    private func value(at path: ModelFieldPath) -> Any? {
        modelValue(at: path).map { FieldData.any($0, firestore: reference.firestore) }
    }

    /// Decodes the document; `@DocumentID` properties get this document's id. A missing document
    /// decodes as null: `DecodingError.valueNotFound` unless `T` is Optional.
    public func data<T: Decodable>(as type: T.Type, decoder: Firestore.Decoder = .init()) throws -> T {
        try decoder.decode(type, value: fields.map { .map($0) } ?? .null, reference: reference)
    }
}

/// A document returned by a query (always exists).
public typealias QueryDocumentSnapshot = DocumentSnapshot

/// Where a snapshot came from: `hasPendingWrites` while it shows local writes the server has
/// not acknowledged, `isFromCache` when its listener's stream was not connected and current.
public struct SnapshotMetadata: Sendable, Hashable {
    public let hasPendingWrites: Bool
    public let isFromCache: Bool

    init(hasPendingWrites: Bool = false, isFromCache: Bool = false) {
        self.hasPendingWrites = hasPendingWrites
        self.isFromCache = isFromCache
    }
}
