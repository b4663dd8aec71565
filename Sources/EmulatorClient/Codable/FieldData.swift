import EmulatorModel
import Foundation

/// What the user wrote for one field: a plain value, or arrays and maps that may hold
/// ``FieldValue`` sentinels. Writes split it into plain fields plus transforms.
indirect enum FieldData: Sendable, Hashable {
    case value(Value)
    case array([FieldData])
    case map([String: FieldData])
    case sentinel(FieldValue)

    /// Converts a user value (`String`, numbers, `Bool`, `NSNull`, `Date`, `Data`, `Timestamp`,
    /// `GeoPoint`, `DocumentReference`, `FieldValue`, arrays and `[String: Any]`).
    init(any: Any) throws(FirestoreError) {
        if let scalar = UserScalar.classify(any) {
            switch scalar {
            case .bool(let b): self = .value(.boolean(b))
            case .int(let i): self = .value(.integer(i))
            case .double(let d): self = .value(.double(d))
            case .tooLarge(let u): throw FirestoreError(.invalidArgument, "NSNumber (\(u)) is too large")
            }
            return
        }
        switch any {
        case let v as FieldValue: self = .sentinel(v)
        case let v as FieldData: self = v
        case is NSNull: self = .value(.null)
        case let v as String: self = .value(.string(v))
        case let v as Timestamp: self = .value(.timestamp(v.model))
        case let v as Date: self = .value(.timestamp(Timestamp(date: v).model))
        case let v as Data: self = .value(.bytes([UInt8](v)))
        case let v as GeoPoint: self = .value(.geoPoint(latitude: v.latitude, longitude: v.longitude))
        case let v as DocumentReference: self = .value(.reference(v.name))
        case let v as URL: self = .value(.string(v.absoluteString))
        case let v as [String: Any]:
            var out: [String: FieldData] = [:]
            for (k, e) in v { out[k] = try FieldData(any: e) }
            self = .map(out)
        case let v as [Any]:
            var out: [FieldData] = []
            for e in v { out.append(try FieldData(any: e)) }
            self = .array(out)
        default:
            throw FirestoreError(.invalidArgument, "Unsupported type: \(type(of: any))")
        }
    }

    /// The plain value, or INVALID_ARGUMENT if a sentinel is inside.
    func plainValue() throws(FirestoreError) -> Value {
        switch self {
        case .value(let v): return v
        case .array(let items):
            var out: [Value] = []
            for i in items {
                if case .sentinel = i {
                    throw FirestoreError(.invalidArgument, "FieldValue sentinels are not currently supported inside arrays")
                }
                out.append(try i.plainValue())
            }
            return .array(out)
        case .map(let m):
            var pairs: [(String, Value)] = []
            for (k, v) in m { pairs.append((k, try v.plainValue())) }
            return .map(ValueMap(pairs))
        case .sentinel:
            throw FirestoreError(.invalidArgument, "FieldValue sentinels are only allowed as field values")
        }
    }

    /// The value handed to users by `data()`: `Int`, `Double`, `Bool`, `String`, `NSNull`,
    /// `Timestamp`, `Data`, `GeoPoint`, `DocumentReference`, `[Any]`, `[String: Any]`.
    static func any(_ value: Value, firestore: Firestore?) -> Any {
        switch value {
        case .null: return NSNull()
        case .boolean(let b): return b
        case .integer(let i): return Int(i)
        case .double(let d): return d
        case .timestamp(let t): return Timestamp(t)
        case .string(let s): return s
        case .bytes(let b): return Data(b)
        case .reference(let name):
            if let firestore, let ref = DocumentReference(name: name, firestore: firestore) { return ref }
            return name
        case .geoPoint(let lat, let lng): return GeoPoint(latitude: lat, longitude: lng)
        case .array(let a): return a.map { any($0, firestore: firestore) }
        case .map(let m):
            var out: [String: Any] = [:]
            for f in m { out[f.name] = any(f.value, firestore: firestore) }
            return out
        }
    }

    func toAny(firestore: Firestore?) -> Any {
        switch self {
        case .value(let v): return FieldData.any(v, firestore: firestore)
        case .array(let a): return a.map { $0.toAny(firestore: firestore) }
        case .map(let m): return m.mapValues { $0.toAny(firestore: firestore) }
        case .sentinel(let s): return s
        }
    }
}

/// The parts of a write: plain fields, the field mask (for merges and updates) and transforms.
struct WriteFields: Sendable {
    var fields = ValueMap()
    var mask: [ModelFieldPath] = []
    var transforms: [(path: ModelFieldPath, value: FieldValue)] = []

    /// `setData` (merge false): every field, sentinels become transforms; delete is rejected.
    /// With `merge`, the mask is every leaf path written (deletes included).
    init(set data: [String: FieldData], merge: Bool) throws(FirestoreError) {
        for (k, v) in data {
            try add(v, at: ModelFieldPath([k]), merge: merge, allowDelete: merge)
        }
    }

    /// `updateData`: keys are dotted field paths; each key is a mask entry.
    init(update data: [ModelFieldPath: FieldData]) throws(FirestoreError) {
        for (path, v) in data {
            if case .sentinel(let s) = v, case .delete = s.kind {
                mask.append(path)
                continue
            }
            if case .sentinel(let s) = v {
                transforms.append((path, s))
                continue
            }
            try add(v, at: path, merge: false, allowDelete: false, collectMask: false)
            if hasValue(at: path) { mask.append(path) }
        }
    }

    init() {}

    private func hasValue(at path: ModelFieldPath) -> Bool {
        var current: Value = .map(fields)
        for s in path.segments {
            guard case .map(let m) = current, let next = m[s] else { return false }
            current = next
        }
        return true
    }

    private mutating func add(
        _ data: FieldData, at path: ModelFieldPath, merge: Bool, allowDelete: Bool, collectMask: Bool = true
    ) throws(FirestoreError) {
        switch data {
        case .sentinel(let s):
            if case .delete = s.kind {
                guard allowDelete else {
                    throw FirestoreError(
                        .invalidArgument,
                        "FieldValue.delete() can only be used with updateData() and setData() with merge:true")
                }
                mask.append(path)
            } else {
                transforms.append((path, s))
            }
        case .map(let m) where merge || !collectMask:
            if m.isEmpty {
                set(.map(ValueMap()), at: path)
                if merge && collectMask { mask.append(path) }
            }
            for (k, v) in m { try add(v, at: path.appending(k), merge: merge, allowDelete: allowDelete, collectMask: collectMask) }
        case .map(let m):
            set(.map(ValueMap()), at: path)
            for (k, v) in m { try add(v, at: path.appending(k), merge: merge, allowDelete: false, collectMask: collectMask) }
        default:
            set(try data.plainValue(), at: path)
            if merge && collectMask { mask.append(path) }
        }
    }

    private mutating func set(_ value: Value, at path: ModelFieldPath) {
        func put(_ map: inout ValueMap, _ segments: ArraySlice<String>) {
            guard let first = segments.first else { return }
            if segments.count == 1 {
                if case .map = value, case .map? = map[first] { return }  // keep what nested writes put there
                map[first] = value
                return
            }
            map.modify(first) { slot in
                var inner: ValueMap
                if case .map(let m)? = slot { inner = m } else { inner = ValueMap() }
                put(&inner, segments.dropFirst())
                slot = .map(inner)
            }
        }
        put(&fields, path.segments[...])
    }
}
