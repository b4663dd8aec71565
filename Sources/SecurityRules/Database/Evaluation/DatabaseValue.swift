import EmulatorSupport

/// A value inside a Realtime Database rule evaluation. Numbers are doubles, as in JavaScript.
enum DatabaseValue {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    /// A non-primitive JSON value: `auth` objects, `val()` of a node with children.
    case object(JSONValue)
    /// A snapshot of the data before (`isNew == false`) or after the operation, at `path`.
    case snapshot(isNew: Bool, path: [String])
    case query
    case regex(RulesRegex)
    case array([DatabaseValue])

    init(json: JSONValue?) {
        switch json {
        case nil, .null?: self = .null
        case .bool(let b)?: self = .bool(b)
        case .int(let i)?: self = .number(Double(i))
        case .double(let d)?: self = .number(d)
        case .string(let s)?: self = .string(s)
        case let other?: self = .object(other)
        }
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .object: "object"
        case .snapshot: "snapshot"
        case .query: "query"
        case .regex: "regex"
        case .array: "array"
        }
    }

    /// JavaScript's number-to-string conversion for the values rules meet.
    static func text(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        if d == d.rounded(), Swift.abs(d) < 1e21 {
            if Swift.abs(d) < 9.0e18 { return String(Int64(d)) }
        }
        return String(d)
    }
}
