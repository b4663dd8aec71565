package import EmulatorSupport

/// The proto3 JSON mapping of `google.firestore.v1.Value`, as the REST API speaks it.
///
/// ```swift
/// let v = try Value(firestoreJSON: try JSONReader.parse(#"{"integerValue":"42"}"#))  // .integer(42)
/// v.firestoreJSON   // {"integerValue":"42"}
/// ```
extension Value {
    /// Decodes one `Value` object. Accepts lowerCamelCase and snake_case member names, integers as
    /// strings or numbers, doubles as numbers or `"NaN"`, `"Infinity"`, `"-Infinity"`, `"-0"`,
    /// `nullValue` as `null`, `"NULL_VALUE"` or `0`, bytes in either base64 alphabet with or
    /// without padding, and timestamps with any 0–9 fractional digits and offsets.
    /// Exactly one member must be present. Throws `INVALID_ARGUMENT`.
    package init(firestoreJSON json: JSONValue) throws(EmulatorError) {
        self = try Value.decode(json, depth: 0, context: { "value" })
    }

    /// The proto3 JSON form: integers as strings; NaN and infinities as `"NaN"`, `"Infinity"`,
    /// `"-Infinity"`; timestamps RFC 3339 with 0/3/6/9 fractional digits; bytes standard base64;
    /// empty arrays and maps as `{"arrayValue":{}}` and `{"mapValue":{}}`.
    package var firestoreJSON: JSONValue {
        switch self {
        case .null: return .object([JSONMember("nullValue", .null)])
        case .boolean(let b): return .object([JSONMember("booleanValue", .bool(b))])
        case .integer(let i): return .object([JSONMember("integerValue", .string(String(i)))])
        case .double(let d): return .object([JSONMember("doubleValue", Value.doubleJSON(d))])
        case .timestamp(let t): return .object([JSONMember("timestampValue", .string(t.rfc3339))])
        case .string(let s): return .object([JSONMember("stringValue", .string(s))])
        case .bytes(let b): return .object([JSONMember("bytesValue", .string(Base64.encode(b)))])
        case .reference(let r): return .object([JSONMember("referenceValue", .string(r))])
        case .geoPoint(let lat, let lng):
            return .object([
                JSONMember(
                    "geoPointValue",
                    .object([JSONMember("latitude", Value.doubleJSON(lat)), JSONMember("longitude", Value.doubleJSON(lng))]))
            ])
        case .array(let elements):
            let inner: [JSONMember] = elements.isEmpty ? [] : [JSONMember("values", .array(elements.map(\.firestoreJSON)))]
            return .object([JSONMember("arrayValue", .object(inner))])
        case .map(let m):
            let inner: [JSONMember] = m.isEmpty ? [] : [JSONMember("fields", m.firestoreFieldsJSON)]
            return .object([JSONMember("mapValue", .object(inner))])
        }
    }

    /// A double as proto3 JSON writes it: a number, or a string for NaN, the infinities and
    /// `-0.0` (`"-0"`, as the JS SDK sends it; a JSON number would print as `0` and lose the sign).
    package static func doubleJSON(_ d: Double) -> JSONValue {
        if d.isNaN { return .string("NaN") }
        if d.isInfinite { return .string(d < 0 ? "-Infinity" : "Infinity") }
        if d == 0 && d.sign == .minus { return .string("-0") }
        return .double(d)
    }

    /// Writes the proto3 JSON form straight into `writer` (same output as ``firestoreJSON``,
    /// without building a `JSONValue` tree).
    package func appendFirestoreJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        switch self {
        case .null:
            writer.appendPlainKey("nullValue")
            writer.appendNull()
        case .boolean(let b):
            writer.appendPlainKey("booleanValue")
            writer.appendBool(b)
        case .integer(let i):
            writer.appendPlainKey("integerValue")
            writer.appendUnescapedString { JSONWriter.appendDecimal(i, to: &$0) }
        case .double(let d):
            writer.appendPlainKey("doubleValue")
            Value.appendDouble(d, to: &writer)
        case .timestamp(let t):
            writer.appendPlainKey("timestampValue")
            writer.appendUnescapedString { t.appendRFC3339(to: &$0) }
        case .string(let s):
            writer.appendPlainKey("stringValue")
            writer.appendString(s)
        case .bytes(let b):
            writer.appendPlainKey("bytesValue")
            writer.appendString(Base64.encode(b))
        case .reference(let r):
            writer.appendPlainKey("referenceValue")
            writer.appendString(r)
        case .geoPoint(let lat, let lng):
            writer.appendPlainKey("geoPointValue")
            writer.beginObject()
            writer.appendPlainKey("latitude")
            Value.appendDouble(lat, to: &writer)
            writer.appendPlainKey("longitude")
            Value.appendDouble(lng, to: &writer)
            writer.endObject()
        case .array(let elements):
            writer.appendPlainKey("arrayValue")
            writer.beginObject()
            if !elements.isEmpty {
                writer.appendPlainKey("values")
                writer.beginArray()
                for e in elements { e.appendFirestoreJSON(to: &writer) }
                writer.endArray()
            }
            writer.endObject()
        case .map(let m):
            writer.appendPlainKey("mapValue")
            writer.beginObject()
            if !m.isEmpty {
                writer.appendPlainKey("fields")
                m.appendFirestoreFieldsJSON(to: &writer)
            }
            writer.endObject()
        }
        writer.endObject()
    }

    private static func appendDouble(_ d: Double, to writer: inout JSONWriter) {
        if d.isFinite && !(d == 0 && d.sign == .minus) {
            writer.appendDouble(d)
        } else if case .string(let s) = doubleJSON(d) {
            writer.appendString(s)
        }
    }

    /// Maximum nesting accepted while decoding JSON (documents allow 20; this guards the stack).
    static let maxJSONDepth = 100

    /// Decodes one `Value` at `context`, the proto path production names in its errors
    /// (`writes[0].update.fields[2].value`). The path is only rendered when an error is thrown.
    ///
    /// Error texts follow the proto3 JSON parser production uses (ESF):
    /// `Invalid value at 'document.fields[0].value.integer_value' (TYPE_INT64), "True"`,
    /// `Invalid value at '….bytes_value' (TYPE_BYTES), Base64 decoding failed for "!!!"`,
    /// `Invalid JSON payload received. Unknown name "foo" at '….value': Cannot find field.`,
    /// `Invalid value at '….value' (oneof), oneof field 'value_type' is already set. Cannot set 'stringValue'`.
    package init(firestoreJSON json: JSONValue, context: @autoclosure () -> String) throws(EmulatorError) {
        self = try Value.decode(json, depth: 0, context: context)
    }

    static func decode(_ json: JSONValue, depth: Int, context: () -> String) throws(EmulatorError) -> Value {
        guard depth <= maxJSONDepth else { throw .invalidArgument("Invalid value at '\(context())': nesting too deep.") }
        guard case .object(let members) = json else {
            if case .array = json {
                throw .invalidArgument(
                    "Invalid JSON payload received. Unknown name \"value\" at '\(context())': Proto field is not repeating, cannot start list.")
            }
            throw .invalidArgument(
                "Invalid value at '\(context())' (type.googleapis.com/google.firestore.v1.Value), \(JSONWriter.encodeToString(json))")
        }
        guard let member = members.first else {
            throw .invalidArgument("Invalid value at '\(context())': a Value must set one of its value types.")
        }
        // Every member must be a Value field, and only one of them may be set (they form the
        // oneof `value_type`).
        for (i, m) in members.enumerated() {
            if Self.valueField(m.name) == nil {
                throw .invalidArgument(
                    "Invalid JSON payload received. Unknown name \"\(m.name)\" at '\(context())': Cannot find field.")
            }
            if i > 0 {
                throw .invalidArgument(
                    "Invalid value at '\(context())' (oneof), oneof field 'value_type' is already set. Cannot set '\(m.name)'")
            }
        }
        let v = member.value
        let field = Self.valueField(member.name) ?? ""
        func invalid(_ type: String, _ detail: String? = nil) -> EmulatorError {
            .invalidArgument("Invalid value at '\(context()).\(field)' (\(type)), \(detail ?? JSONWriter.encodeToString(v))")
        }
        func notRepeating() -> EmulatorError {
            .invalidArgument(
                "Invalid JSON payload received. Unknown name \"\(member.name)\" at '\(context())': Proto field is not repeating, cannot start list.")
        }
        if case .array = v { throw notRepeating() }
        switch field {
        case "null_value":
            switch v {
            case .null, .int(0): return .null
            case .string(let s) where s == "NULL_VALUE": return .null
            default: throw invalid("TYPE_ENUM")
            }
        case "boolean_value":
            switch v {
            case .bool(let b): return .boolean(b)
            default: throw invalid("TYPE_BOOL")
            }
        case "integer_value":
            switch v {
            case .int(let i): return .integer(i)
            case .double(let d) where d == d.rounded() && d >= -9.223372036854775808e18 && d < 9.223372036854775808e18:
                return .integer(Int64(d))
            case .string(let s):
                guard let i = Int64(s) else { throw invalid("TYPE_INT64") }
                return .integer(i)
            default: throw invalid("TYPE_INT64")
            }
        case "double_value":
            switch v {
            case .double(let d): return .double(d)
            case .int(let i): return .double(Double(i))
            case .string(let s):
                switch s {
                case "NaN": return .double(.nan)
                case "Infinity": return .double(.infinity)
                case "-Infinity": return .double(-.infinity)
                default:
                    guard let d = Double(s), d.isFinite else { throw invalid("TYPE_DOUBLE") }
                    return .double(d)
                }
            default: throw invalid("TYPE_DOUBLE")
            }
        case "timestamp_value":
            let timestampType = "type.googleapis.com/google.protobuf.Timestamp"
            guard case .string(let s) = v else { throw invalid(timestampType) }
            do { return .timestamp(try Timestamp(rfc3339: s)) } catch {
                let zoned = s.utf8.last == 0x5A || s.utf8.last == 0x7A || s.utf8.dropFirst(10).contains(0x2B)
                    || s.utf8.dropFirst(10).contains(0x2D)
                throw invalid(
                    timestampType,
                    zoned
                        ? "Field '\(member.name)', Invalid time format: Failed to parse input"
                        : "Field '\(member.name)', Illegal timestamp format; timestamps must end with 'Z' or have a valid timezone offset.")
            }
        case "string_value":
            switch v {
            case .string(let s): return .string(s)
            default: throw invalid("TYPE_STRING")
            }
        case "bytes_value":
            guard case .string(let s) = v else { throw invalid("TYPE_BYTES") }
            guard let b = Base64.decode(s, alphabet: nil) else {
                throw invalid("TYPE_BYTES", "Base64 decoding failed for \(JSONWriter.encodeToString(v))")
            }
            return .bytes(b)
        case "reference_value":
            guard case .string(let s) = v else { throw invalid("TYPE_STRING") }
            do { _ = try DocumentName.document(s) } catch {
                throw .invalidArgument("Invalid value at '\(context()).reference_value': \(error.message)")
            }
            return .reference(s)
        case "geo_point_value":
            guard case .object(let parts) = v else { throw invalid("type.googleapis.com/google.type.LatLng") }
            var lat = 0.0
            var lng = 0.0
            for p in parts {
                let n: Double
                switch p.name {
                case "latitude", "longitude": break
                default:
                    throw .invalidArgument(
                        "Invalid JSON payload received. Unknown name \"\(p.name)\" at '\(context()).geo_point_value': Cannot find field.")
                }
                switch p.value {
                case .double(let d): n = d
                case .int(let i): n = Double(i)
                case .null: n = 0
                case .string(let s):
                    guard let d = Double(s) else {
                        throw .invalidArgument(
                            "Invalid value at '\(context()).geo_point_value.\(p.name)' (TYPE_DOUBLE), \(JSONWriter.encodeToString(p.value))")
                    }
                    n = d
                default:
                    throw .invalidArgument(
                        "Invalid value at '\(context()).geo_point_value.\(p.name)' (TYPE_DOUBLE), \(JSONWriter.encodeToString(p.value))")
                }
                if p.name == "latitude" { lat = n } else { lng = n }
            }
            guard lat >= -90 && lat <= 90 else {
                throw .invalidArgument("Invalid value at '\(context()).geo_point_value': latitude must be in [-90, 90].")
            }
            guard lng >= -180 && lng <= 180 else {
                throw .invalidArgument("Invalid value at '\(context()).geo_point_value': longitude must be in [-180, 180].")
            }
            return .geoPoint(latitude: lat, longitude: lng)
        case "array_value":
            guard case .object(let parts) = v else {
                throw invalid("type.googleapis.com/google.firestore.v1.ArrayValue")
            }
            var elements: [Value] = []
            for p in parts {
                guard p.name == "values" else {
                    throw .invalidArgument(
                        "Invalid JSON payload received. Unknown name \"\(p.name)\" at '\(context()).array_value': Cannot find field.")
                }
                switch p.value {
                case .null: continue
                case .array(let items):
                    elements.reserveCapacity(items.count)
                    for (i, item) in items.enumerated() {
                        elements.append(
                            try decode(item, depth: depth + 1, context: { "\(context()).array_value.values[\(i)]" }))
                    }
                default:
                    // A single element where a list is expected, as proto3 JSON parsers accept it.
                    elements.append(try decode(p.value, depth: depth + 1, context: { "\(context()).array_value.values[0]" }))
                }
            }
            return .array(elements)
        case "map_value":
            guard case .object(let parts) = v else {
                throw invalid("type.googleapis.com/google.firestore.v1.MapValue")
            }
            var map = ValueMap()
            for p in parts {
                guard p.name == "fields" else {
                    throw .invalidArgument(
                        "Invalid JSON payload received. Unknown name \"\(p.name)\" at '\(context()).map_value': Cannot find field.")
                }
                if case .null = p.value { continue }
                map = try ValueMap.decodeFields(p.value, depth: depth + 1, context: { "\(context()).map_value.fields" })
            }
            return .map(map)
        default:
            throw .invalidArgument(
                "Invalid JSON payload received. Unknown name \"\(member.name)\" at '\(context())': Cannot find field.")
        }
    }

    /// The proto name of a `Value` member given in lowerCamelCase or snake_case; nil if unknown.
    private static func valueField(_ name: String) -> String? {
        switch name {
        case "stringValue", "string_value": return "string_value"
        case "integerValue", "integer_value": return "integer_value"
        case "doubleValue", "double_value": return "double_value"
        case "booleanValue", "boolean_value": return "boolean_value"
        case "mapValue", "map_value": return "map_value"
        case "arrayValue", "array_value": return "array_value"
        case "timestampValue", "timestamp_value": return "timestamp_value"
        case "nullValue", "null_value": return "null_value"
        case "referenceValue", "reference_value": return "reference_value"
        case "bytesValue", "bytes_value": return "bytes_value"
        case "geoPointValue", "geo_point_value": return "geo_point_value"
        default: return nil
        }
    }
}

extension ValueMap {
    /// Decodes a `fields` object (`{"name": Value, …}`) at `context` (the proto path of the map
    /// field, e.g. `document.fields`); duplicate names: the last one wins.
    package init(firestoreFields json: JSONValue, context: @autoclosure () -> String = "fields") throws(EmulatorError) {
        self = try ValueMap.decodeFields(json, depth: 0, context: context)
    }

    /// The `fields` object, members in key order.
    package var firestoreFieldsJSON: JSONValue {
        .object(map { JSONMember($0.name, $0.value.firestoreJSON) })
    }

    /// Writes the `fields` object straight into `writer`.
    package func appendFirestoreFieldsJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        for f in self {
            writer.appendKey(f.name)
            f.value.appendFirestoreJSON(to: &writer)
        }
        writer.endObject()
    }

    /// Map entries are named as production names them: `fields[<index in the object>].value`.
    static func decodeFields(_ json: JSONValue, depth: Int, context: () -> String) throws(EmulatorError) -> ValueMap {
        guard case .object(let members) = json else {
            if case .array = json {
                throw .invalidArgument(
                    "Invalid JSON payload received. Unknown name \"fields\" at '\(context())': Proto field is not repeating, cannot start list.")
            }
            throw .invalidArgument("Invalid value at '\(context())' (map), \(JSONWriter.encodeToString(json))")
        }
        var fields: [ValueMap.Field] = []
        fields.reserveCapacity(members.count)
        for (i, m) in members.enumerated() {
            fields.append(ValueMap.Field(m.name, try Value.decode(m.value, depth: depth, context: { "\(context())[\(i)].value" })))
        }
        return ValueMap(unsortedFields: fields)
    }
}
