import EmulatorModel
import EmulatorSupport

extension FieldData {
    /// Converts user fields (`[String: Any]`).
    static func fields(_ data: [String: Any]) throws(FirestoreError) -> [String: FieldData] {
        var out: [String: FieldData] = [:]
        for (k, v) in data { out[k] = try FieldData(any: v) }
        return out
    }
}

/// One `google.firestore.v1.Write` as REST JSON, and the change it makes as this client's local
/// view applies it before the server answers (built from the typed parts, not read back from the JSON).
struct WriteOperation: Sendable {
    let json: JSONValue
    let local: LocalMutation

    /// The document it writes.
    var documentName: String? {
        if case .string(let n)? = json[member: "delete"] { return n }
        if case .string(let n)? = json[member: "update"]?[member: "name"] { return n }
        return nil
    }

    /// A create: `currentDocument.exists` is false.
    var isCreate: Bool { json[member: "currentDocument"]?[member: "exists"] == .bool(false) }

    /// Holds an increment transform, which adds again when applied twice.
    var isIncrement: Bool {
        guard case .array(let transforms)? = json[member: "updateTransforms"] else { return false }
        return transforms.contains { $0[member: "increment"] != nil }
    }

    /// The write with its precondition replaced: the document's update time as read (nil: it
    /// must not exist). An update's `exists: true` is implied by an update time.
    func withPrecondition(updateTime: String?) -> WriteOperation {
        guard case .object(var members) = json else { return self }
        members.removeAll { $0.name == "currentDocument" }
        let condition: JSONMember = updateTime.map { JSONMember("updateTime", .string($0)) } ?? JSONMember("exists", .bool(false))
        members.append(JSONMember("currentDocument", .object([condition])))
        return WriteOperation(json: .object(members), local: local)
    }

    static func set(_ ref: DocumentReference, _ data: [String: FieldData], merge: Bool) throws(FirestoreError) -> WriteOperation {
        let parts = try WriteFields(set: data, merge: merge)
        return build(ref, parts, mask: merge ? parts.mask : nil, exists: nil)
    }

    /// A merge limited to `paths`: fields and transforms outside them are not written.
    static func set(_ ref: DocumentReference, _ data: [String: FieldData], mergeFields paths: [ModelFieldPath]) throws(FirestoreError)
        -> WriteOperation
    {
        var parts = try WriteFields(set: data, merge: true)
        parts.transforms = parts.transforms.filter { t in paths.contains { $0.isPrefix(of: t.path) } }
        return build(ref, parts, mask: paths.filter { p in !parts.transforms.contains { $0.path == p } }, exists: nil)
    }

    static func create(_ ref: DocumentReference, _ data: [String: FieldData]) throws(FirestoreError) -> WriteOperation {
        build(ref, try WriteFields(set: data, merge: false), mask: nil, exists: false)
    }

    static func update(_ ref: DocumentReference, _ data: [String: Any]) throws(FirestoreError) -> WriteOperation {
        var paths: [ModelFieldPath: FieldData] = [:]
        for (k, v) in data { paths[FieldPath.dotted(k)] = try FieldData(any: v) }
        let parts = try WriteFields(update: paths)
        return build(ref, parts, mask: parts.mask, exists: true)
    }

    static func delete(_ ref: DocumentReference) -> WriteOperation {
        WriteOperation(json: .object([JSONMember("delete", .string(ref.name))]), local: .delete(path: ref.path))
    }

    private static func build(_ ref: DocumentReference, _ parts: WriteFields, mask: [ModelFieldPath]?, exists: Bool?) -> WriteOperation {
        var members = [
            JSONMember("update", .object([JSONMember("name", .string(ref.name)), JSONMember("fields", parts.fields.firestoreFieldsJSON)]))
        ]
        if let mask {
            members.append(
                JSONMember("updateMask", .object([JSONMember("fieldPaths", .array(mask.map { .string($0.canonicalString) }))])))
        }
        if let exists { members.append(JSONMember("currentDocument", .object([JSONMember("exists", .bool(exists))]))) }
        if !parts.transforms.isEmpty {
            members.append(JSONMember("updateTransforms", .array(parts.transforms.map { transform($0.path, $0.value) })))
        }
        return WriteOperation(json: .object(members), local: localMutation(ref, parts, mask: mask, exists: exists))
    }

    /// What the write does to the local view: a set, or a patch of the mask's paths, then the
    /// transforms the server will compute (estimated locally).
    private static func localMutation(_ ref: DocumentReference, _ parts: WriteFields, mask: [ModelFieldPath]?, exists: Bool?)
        -> LocalMutation
    {
        let base: LocalMutation
        if let mask {
            base = .patch(path: ref.path, fields: mask.map { ($0, parts.fields.value(at: $0)) }, mustExist: exists == true)
        } else {
            base = .set(path: ref.path, fields: parts.fields)
        }
        let transforms = parts.transforms.compactMap { localTransform($0.path, $0.value) }
        return transforms.isEmpty ? base : .transformed(base, transforms)
    }

    private static func localTransform(_ path: ModelFieldPath, _ value: FieldValue) -> FieldTransform? {
        func plain(_ item: FieldData) -> Value { (try? item.plainValue()) ?? .null }
        switch value.kind {
        case .serverTimestamp: return FieldTransform(path, .serverTimestamp)
        case .delete: return nil
        case .arrayUnion(let items): return FieldTransform(path, .appendMissingElements(items.map(plain)))
        case .arrayRemove(let items): return FieldTransform(path, .removeAllFromArray(items.map(plain)))
        case .increment(let n): return FieldTransform(path, .increment(plain(n)))
        case .minimum(let n): return FieldTransform(path, .minimum(plain(n)))
        case .maximum(let n): return FieldTransform(path, .maximum(plain(n)))
        }
    }

    private static func plain(_ items: [FieldData]) -> JSONValue {
        .object([JSONMember("values", .array(items.map { ((try? $0.plainValue()) ?? .null).firestoreJSON }))])
    }

    private static func transform(_ path: ModelFieldPath, _ value: FieldValue) -> JSONValue {
        let kind: JSONMember
        switch value.kind {
        case .serverTimestamp, .delete: kind = JSONMember("setToServerValue", .string("REQUEST_TIME"))
        case .arrayUnion(let items): kind = JSONMember("appendMissingElements", plain(items))
        case .arrayRemove(let items): kind = JSONMember("removeAllFromArray", plain(items))
        case .increment(let n): kind = JSONMember("increment", ((try? n.plainValue()) ?? .null).firestoreJSON)
        case .minimum(let n): kind = JSONMember("minimum", ((try? n.plainValue()) ?? .null).firestoreJSON)
        case .maximum(let n): kind = JSONMember("maximum", ((try? n.plainValue()) ?? .null).firestoreJSON)
        }
        return .object([JSONMember("fieldPath", .string(path.canonicalString)), kind])
    }
}

extension Firestore {
    /// Commits writes atomically (optionally inside a transaction).
    @discardableResult
    func commitNow(_ writes: [WriteOperation], transaction: String? = nil) throws(FirestoreError) -> JSONValue {
        var members = [JSONMember("writes", .array(writes.map(\.json)))]
        if let transaction { members.append(JSONMember("transaction", .string(transaction))) }
        return try call("POST", "/v1/" + Firestore.urlPath(databaseName) + "/documents:commit", body: .object(members))
    }
}
