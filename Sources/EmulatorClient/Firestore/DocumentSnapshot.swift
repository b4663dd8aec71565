import EmulatorModel
import EmulatorSupport

/// A document as read at one moment; `exists` is false for a missing document.
public struct DocumentSnapshot: Sendable {
    public let reference: DocumentReference
    let fields: ValueMap?
    let updateTime: String?

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
    /// Always from the server with no pending writes: this client has no cache.
    public var metadata: SnapshotMetadata { SnapshotMetadata() }
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

/// Where a snapshot came from. This client reads the server directly, so both are always false.
public struct SnapshotMetadata: Sendable, Hashable {
    public let hasPendingWrites = false
    public let isFromCache = false
}
