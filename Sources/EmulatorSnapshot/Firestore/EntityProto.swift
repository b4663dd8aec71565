import EmulatorModel
import EmulatorProtobuf

/// App Engine `EntityProto`, the record format of Firestore/Datastore managed exports: one
/// entity per document.
///
/// Layout written (field numbers of the public `entity.proto`):
/// - `key` (13): `Reference { app 13: "dev~<project>", path 14: Path { group Element 1 { type 2,
///   id 3 | name 4 } }, database_id 23 (omitted for "(default)") }`. A numeric id `__id7__` is
///   written as `id = 7`, any other id as a `name`.
/// - `raw_property` (15) per field; an empty array is a `property` (14) with meaning 24.
/// - `entity_group` (16): the path's first element.
///
/// `Property { meaning 1, name 3, multiple 4, value 5: PropertyValue }`; `PropertyValue {
/// int64 1, boolean 2, string 3, double 4, group Point 5 { x 6, y 7 }, group Reference 12 {
/// app 13, group PathElement 14 { type 15, id 16, name 17 }, database_id 23 } }`.
/// Meanings: 7 timestamp (µs in int64), 9 geo point, 14 bytes (in string), 19 map (a nested
/// `EntityProto` in string), 24 empty array. An array is one property per element with
/// `multiple`; a vector is a meaning-19 entity whose properties are all named `__vector__`.
enum EntityProto {
    enum Meaning {
        static let timestamp: UInt64 = 7
        static let geoPoint: UInt64 = 9
        static let blob: UInt64 = 14
        static let text: UInt64 = 15
        static let byteString: UInt64 = 16
        static let entity: UInt64 = 19
        static let emptyList: UInt64 = 24
    }

    static let defaultDatabase = "(default)"
    static let vectorPropertyName = "__vector__"

    // MARK: Encoding

    /// The serialized entity of `document`.
    static func encode(_ document: FirestoreExportDocument) -> [UInt8] {
        var w = ProtoWriter()
        w.message(13) { key in
            key.string(13, "dev~" + document.projectID)
            key.message(14) { writePath(document.path.segments, into: &$0) }
            if document.databaseID != defaultDatabase { key.string(23, document.databaseID) }
        }
        writeProperties(document.fields, into: &w)
        w.message(16) { writePath(Array(document.path.segments.prefix(2)), into: &$0) }
        return w.bytes
    }

    /// `Path { repeated group Element = 1 { type 2; id 3 | name 4 } }`.
    static func writePath(_ segments: [String], limit: Int = .max, into w: inout ProtoWriter) {
        var i = 0
        let count = min(segments.count, limit)
        while i + 1 < count {
            let kind = segments[i], id = segments[i + 1]
            w.group(1) { element in
                element.string(2, kind)
                if let number = ResourcePath.numericID(id) {
                    element.int64(3, number)
                } else {
                    element.string(4, id)
                }
            }
            i += 2
        }
    }

    private static func writeProperties(_ fields: ValueMap, into w: inout ProtoWriter) {
        for field in fields {
            switch field.value {
            case .array(let elements) where elements.isEmpty:
                w.message(14) { p in
                    p.uint64(1, Meaning.emptyList)
                    p.string(3, field.name)
                    p.bool(4, false)
                    p.message(5) { _ in }
                }
            case .array(let elements):
                for element in elements { writeProperty(field.name, element, multiple: true, into: &w) }
            default:
                writeProperty(field.name, field.value, multiple: false, into: &w)
            }
        }
    }

    private static func writeProperty(_ name: String, _ value: Value, multiple: Bool, into w: inout ProtoWriter) {
        w.message(15) { p in
            if let meaning = meaning(of: value) { p.uint64(1, meaning) }
            p.string(3, name)
            p.bool(4, multiple)
            p.message(5) { writeValue(value, into: &$0) }
        }
    }

    private static func meaning(of value: Value) -> UInt64? {
        switch value {
        case .timestamp: Meaning.timestamp
        case .geoPoint: Meaning.geoPoint
        case .bytes: Meaning.blob
        case .map: Meaning.entity
        // Arrays nested in arrays cannot be stored in Firestore; written as a map of indexes.
        case .array: Meaning.entity
        default: nil
        }
    }

    private static func writeValue(_ value: Value, into v: inout ProtoWriter) {
        switch value {
        case .null: break
        case .boolean(let b): v.bool(2, b)
        case .integer(let i): v.int64(1, i)
        case .double(let d): v.double(4, d)
        case .timestamp(let t): v.int64(1, t.microseconds)
        case .string(let s): v.string(3, s)
        case .bytes(let b): v.bytes(3, b)
        case .geoPoint(let latitude, let longitude):
            v.group(5) { point in
                point.double(6, latitude)
                point.double(7, longitude)
            }
        case .reference(let name):
            writeReference(name, into: &v)
        case .map(let map):
            v.message(3) { nested in
                // An empty vector stays a plain map ({__type__, value: []}): zero `__vector__`
                // properties would read back as an empty map.
                if let elements = map.vectorElements, !elements.isEmpty {
                    for element in elements { writeProperty(vectorPropertyName, element, multiple: true, into: &nested) }
                } else {
                    writeProperties(map, into: &nested)
                }
            }
        case .array(let elements):
            var fields: [ValueMap.Field] = []
            for (i, element) in elements.enumerated() { fields.append(ValueMap.Field(String(i), element)) }
            v.message(3) { writeProperties(ValueMap(unsortedFields: fields), into: &$0) }
        }
    }

    /// `group ReferenceValue = 12 { app 13; group PathElement 14 { type 15; id 16 | name 17 }; database_id 23 }`.
    static func writeReference(_ name: String, into v: inout ProtoWriter) {
        let parsed = try? DocumentName(parsing: name)
        v.group(12) { ref in
            ref.string(13, "dev~" + (parsed?.projectID ?? ""))
            let segments = parsed?.path.segments ?? []
            var i = 0
            while i + 1 < segments.count {
                let kind = segments[i], id = segments[i + 1]
                ref.group(14) { element in
                    element.string(15, kind)
                    if let number = ResourcePath.numericID(id) {
                        element.int64(16, number)
                    } else {
                        element.string(17, id)
                    }
                }
                i += 2
            }
            if let database = parsed?.databaseID, database != defaultDatabase { ref.string(23, database) }
        }
    }
}
