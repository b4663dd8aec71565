/// Firestore's per-document limits and the storage-size formula they are measured with.
///
/// Size rules (Firestore "storage size" documentation): string = UTF-8 bytes + 1; null and
/// boolean 1; integer, double and timestamp 8; geopoint 16; bytes = length; reference = the size
/// of the referenced document's name; document name = Σ(id string sizes) + 16; array = Σ element
/// sizes; map = Σ(field name size + value size) + 32 (computed "like a document", without a name);
/// vector = 8 per dimension; document = name size + Σ(field name + value) + 32.
package enum DocumentLimits {
    /// 1 MiB.
    package static let maxDocumentBytes = 1_048_576
    /// Maximum nesting of maps and arrays inside a document.
    package static let maxDepth = 20
    /// Maximum UTF-8 bytes of a field name.
    package static let maxFieldNameBytes = 1500

    /// The storage size of a document name: Σ(UTF-8 bytes + 1) over the ids below `documents`, + 16.
    package static func nameSize(_ path: ResourcePath) -> Int {
        var size = 16
        for s in path.segments { size += s.utf8.count + 1 }
        return size
    }

    /// The storage size of one value.
    package static func size(of value: Value) -> Int {
        switch value {
        case .null, .boolean: return 1
        case .integer, .double, .timestamp: return 8
        case .geoPoint: return 16
        case .string(let s): return s.utf8.count + 1
        case .bytes(let b): return b.count
        case .reference(let name):
            var size = 16
            var segment = 0
            for part in name.utf8.split(separator: 0x2F, omittingEmptySubsequences: false) {
                if segment >= 5 { size += part.count + 1 }  // ids after projects/p/databases/d/documents
                segment += 1
            }
            return size
        case .array(let elements):
            var size = 0
            for e in elements { size += Self.size(of: e) }
            return size
        case .map(let map):
            if let elements = map.vectorElements { return 8 * elements.count }
            return fieldsSize(map) + 32
        }
    }

    /// Σ(field name size + value size) of a map's fields.
    package static func fieldsSize(_ fields: ValueMap) -> Int {
        var size = 0
        for f in fields { size += f.name.utf8.count + 1 + Self.size(of: f.value) }
        return size
    }

    /// The storage size of a whole document.
    package static func documentSize(path: ResourcePath, fields: ValueMap) -> Int {
        nameSize(path) + fieldsSize(fields) + 32
    }

    /// Checks a document about to be written: size ≤ 1 MiB, nesting ≤ 20, field names non-empty,
    /// ≤ 1,500 bytes and not reserved (`__…__`, except inside a vector map and as the key of a
    /// BSON map), no array directly inside an array, BSON maps well formed
    /// (``BSONValidation``). Throws `INVALID_ARGUMENT`. Returns true when a Decimal128 is
    /// written in a spelling ``BSONValidation/canonicalized(_:)`` rewrites.
    @discardableResult
    package static func validate(_ name: DocumentName, fields: ValueMap) throws(EmulatorError) -> Bool {
        var rewrite = false
        try validateFields(fields, depth: 0, path: { [] }, rewrite: &rewrite)
        let size = documentSize(path: name.path, fields: fields)
        if size > maxDocumentBytes {
            throw .invalidArgument(
                "Document '\(name.name)' cannot be written because its size (\(grouped(size)) bytes) exceeds the maximum allowed size of \(grouped(maxDocumentBytes)) bytes."
            )
        }
        return rewrite
    }

    /// Checks one field name (a map key or path segment being written).
    package static func validateFieldName(_ name: String, allowReserved: Bool = false) throws(EmulatorError) {
        let n = name.utf8.count
        if n == 0 { throw .invalidArgument("Field names must not be empty.") }
        if n > maxFieldNameBytes {
            throw .invalidArgument("Field name \"\(name.prefix(64))…\" is longer than \(maxFieldNameBytes) bytes.")
        }
        if !allowReserved && ResourcePath.isReservedName(name) {
            throw .invalidArgument("Field name \"\(name)\" is invalid because it is reserved.")
        }
    }

    // The field path of an error is only built when one is thrown: `path` renders it lazily.
    private static func validateFields(
        _ map: ValueMap, depth: Int, path: () -> [String], rewrite: inout Bool
    ) throws(EmulatorError) {
        let vector = map.isVector
        for f in map {
            try validateFieldName(f.name, allowReserved: vector)
            switch f.value {
            case .map, .array:
                try validateValue(f.value, depth: depth, path: { path() + [f.name] }, insideArray: false, rewrite: &rewrite)
            default:
                continue
            }
        }
    }

    private static func validateValue(
        _ value: Value, depth: Int, path: () -> [String], insideArray: Bool, rewrite: inout Bool
    ) throws(EmulatorError) {
        switch value {
        case .map(let m):
            try checkDepth(depth + 1, path)
            if let type = m.bsonType {
                if try BSONValidation.check(type, m, path: path) { rewrite = true }
                return
            }
            try validateFields(m, depth: depth + 1, path: path, rewrite: &rewrite)
        case .array(let elements):
            if insideArray { throw .invalidArgument("Cannot convert an array value in an array value.") }
            try checkDepth(depth + 1, path)
            for e in elements {
                try validateValue(e, depth: depth + 1, path: path, insideArray: true, rewrite: &rewrite)
            }
        default:
            return
        }
    }

    private static func checkDepth(_ depth: Int, _ path: () -> [String]) throws(EmulatorError) {
        if depth > maxDepth {
            throw .invalidArgument(
                "Field \"\(FieldPath(path()).canonicalString)\" exceeds the maximum allowed nesting depth of \(maxDepth) for maps and arrays."
            )
        }
    }

    /// 1048576 → "1,048,576".
    private static func grouped(_ n: Int) -> String {
        let digits = Array(String(n).utf8)
        var out: [UInt8] = []
        for (i, d) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(0x2C) }
            out.append(d)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
