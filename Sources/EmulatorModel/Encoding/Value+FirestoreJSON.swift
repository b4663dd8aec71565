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
        self = try Value.decode(json, depth: 0, context: "value")
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
            writer.appendKey("nullValue")
            writer.appendNull()
        case .boolean(let b):
            writer.appendKey("booleanValue")
            writer.appendBool(b)
        case .integer(let i):
            writer.appendKey("integerValue")
            writer.appendString(String(i))
        case .double(let d):
            writer.appendKey("doubleValue")
            Value.appendDouble(d, to: &writer)
        case .timestamp(let t):
            writer.appendKey("timestampValue")
            writer.appendString(t.rfc3339)
        case .string(let s):
            writer.appendKey("stringValue")
            writer.appendString(s)
        case .bytes(let b):
            writer.appendKey("bytesValue")
            writer.appendString(Base64.encode(b))
        case .reference(let r):
            writer.appendKey("referenceValue")
            writer.appendString(r)
        case .geoPoint(let lat, let lng):
            writer.appendKey("geoPointValue")
            writer.beginObject()
            writer.appendKey("latitude")
            Value.appendDouble(lat, to: &writer)
            writer.appendKey("longitude")
            Value.appendDouble(lng, to: &writer)
            writer.endObject()
        case .array(let elements):
            writer.appendKey("arrayValue")
            writer.beginObject()
            if !elements.isEmpty {
                writer.appendKey("values")
                writer.beginArray()
                for e in elements { e.appendFirestoreJSON(to: &writer) }
                writer.endArray()
            }
            writer.endObject()
        case .map(let m):
            writer.appendKey("mapValue")
            writer.beginObject()
            if !m.isEmpty {
                writer.appendKey("fields")
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

    static func decode(_ json: JSONValue, depth: Int, context: String) throws(EmulatorError) -> Value {
        guard depth <= maxJSONDepth else { throw .invalidArgument("Invalid value at '\(context)': nesting too deep.") }
        guard case .object(let members) = json else {
            throw .invalidArgument("Invalid value at '\(context)': expected a Value object.")
        }
        guard members.count == 1, let member = members.first else {
            throw .invalidArgument(
                "Invalid value at '\(context)': exactly one value type must be set, found \(members.count).")
        }
        let v = member.value
        func bad(_ what: String) -> EmulatorError {
            .invalidArgument("Invalid value at '\(context).\(member.name)': \(what).")
        }
        switch member.name {
        case "nullValue", "null_value":
            switch v {
            case .null, .int(0): return .null
            case .string(let s) where s == "NULL_VALUE": return .null
            default: throw bad("expected null")
            }
        case "booleanValue", "boolean_value":
            guard case .bool(let b) = v else { throw bad("expected a boolean") }
            return .boolean(b)
        case "integerValue", "integer_value":
            switch v {
            case .int(let i): return .integer(i)
            case .double(let d) where d == d.rounded() && d >= -9.223372036854775808e18 && d < 9.223372036854775808e18:
                return .integer(Int64(d))
            case .string(let s):
                guard let i = Int64(s) else { throw bad("\"\(s)\" is not a 64-bit integer") }
                return .integer(i)
            default: throw bad("expected a 64-bit integer")
            }
        case "doubleValue", "double_value":
            switch v {
            case .double(let d): return .double(d)
            case .int(let i): return .double(Double(i))
            case .string(let s):
                switch s {
                case "NaN": return .double(.nan)
                case "Infinity": return .double(.infinity)
                case "-Infinity": return .double(-.infinity)
                default:
                    guard let d = Double(s), d.isFinite else { throw bad("\"\(s)\" is not a number") }
                    return .double(d)
                }
            default: throw bad("expected a number")
            }
        case "timestampValue", "timestamp_value":
            guard case .string(let s) = v else { throw bad("expected an RFC 3339 string") }
            do { return .timestamp(try Timestamp(rfc3339: s)) } catch { throw bad("\"\(s)\" is not a valid timestamp") }
        case "stringValue", "string_value":
            guard case .string(let s) = v else { throw bad("expected a string") }
            return .string(s)
        case "bytesValue", "bytes_value":
            guard case .string(let s) = v, let b = Base64.decode(s, alphabet: nil) else { throw bad("expected base64") }
            return .bytes(b)
        case "referenceValue", "reference_value":
            guard case .string(let s) = v else { throw bad("expected a document name") }
            do { _ = try DocumentName.document(s) } catch { throw bad(error.message) }
            return .reference(s)
        case "geoPointValue", "geo_point_value":
            guard case .object(let parts) = v else { throw bad("expected {latitude, longitude}") }
            var lat = 0.0
            var lng = 0.0
            for p in parts {
                let n: Double
                switch p.value {
                case .double(let d): n = d
                case .int(let i): n = Double(i)
                case .string(let s):
                    guard let d = Double(s) else { throw bad("\(p.name) is not a number") }
                    n = d
                default: throw bad("\(p.name) is not a number")
                }
                switch p.name {
                case "latitude": lat = n
                case "longitude": lng = n
                default: throw bad("unknown member \"\(p.name)\"")
                }
            }
            guard lat >= -90 && lat <= 90 else { throw bad("latitude must be in [-90, 90]") }
            guard lng >= -180 && lng <= 180 else { throw bad("longitude must be in [-180, 180]") }
            return .geoPoint(latitude: lat, longitude: lng)
        case "arrayValue", "array_value":
            guard case .object(let parts) = v else { throw bad("expected {values}") }
            var elements: [Value] = []
            for p in parts {
                guard p.name == "values" else { throw bad("unknown member \"\(p.name)\"") }
                switch p.value {
                case .null: continue
                case .array(let items):
                    elements.reserveCapacity(items.count)
                    for (i, item) in items.enumerated() {
                        elements.append(try decode(item, depth: depth + 1, context: "\(context).arrayValue.values[\(i)]"))
                    }
                default: throw bad("values must be an array")
                }
            }
            return .array(elements)
        case "mapValue", "map_value":
            guard case .object(let parts) = v else { throw bad("expected {fields}") }
            var map = ValueMap()
            for p in parts {
                guard p.name == "fields" else { throw bad("unknown member \"\(p.name)\"") }
                if case .null = p.value { continue }
                map = try ValueMap.decodeFields(p.value, depth: depth + 1, context: "\(context).mapValue.fields")
            }
            return .map(map)
        default:
            throw .invalidArgument("Invalid value at '\(context)': unknown name \"\(member.name)\".")
        }
    }
}

extension ValueMap {
    /// Decodes a `fields` object (`{"name": Value, …}`); duplicate names: the last one wins.
    package init(firestoreFields json: JSONValue) throws(EmulatorError) {
        self = try ValueMap.decodeFields(json, depth: 0, context: "fields")
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

    static func decodeFields(_ json: JSONValue, depth: Int, context: String) throws(EmulatorError) -> ValueMap {
        guard case .object(let members) = json else {
            throw .invalidArgument("Invalid value at '\(context)': expected an object of field values.")
        }
        var fields: [ValueMap.Field] = []
        fields.reserveCapacity(members.count)
        for m in members {
            fields.append(ValueMap.Field(m.name, try Value.decode(m.value, depth: depth, context: "\(context)[\(m.name)]")))
        }
        return ValueMap(unsortedFields: fields)
    }
}
