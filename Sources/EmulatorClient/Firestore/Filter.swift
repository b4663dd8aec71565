import EmulatorModel
import EmulatorSupport

/// A query filter, possibly composite.
///
/// ```swift
/// db.collection("cities").whereFilter(.orFilter([
///     .whereField("capital", isEqualTo: true),
///     .whereField("population", isGreaterThan: 1_000_000),
/// ]))
/// ```
public struct Filter: Sendable {
    indirect enum Node: Sendable {
        case field(ModelFieldPath, String, Value)
        case unary(ModelFieldPath, String)
        case composite(String, [Node])
    }

    let node: Node

    static func field(_ path: ModelFieldPath, _ op: String, _ any: Any) -> Filter {
        let value = (try? FieldData(any: any).plainValue()) ?? .null
        if op == "EQUAL" || op == "NOT_EQUAL" {
            if case .null = value { return Filter(node: .unary(path, op == "EQUAL" ? "IS_NULL" : "IS_NOT_NULL")) }
            if value.isNaN { return Filter(node: .unary(path, op == "EQUAL" ? "IS_NAN" : "IS_NOT_NAN")) }
        }
        if case .string(let s) = value, path.isDocumentID {
            return Filter(node: .field(path, op, .string(s)))
        }
        return Filter(node: .field(path, op, value))
    }

    public static func whereField(_ field: String, isEqualTo value: Any) -> Filter { .field(FieldPath.dotted(field), "EQUAL", value) }
    public static func whereField(_ field: String, isNotEqualTo value: Any) -> Filter {
        .field(FieldPath.dotted(field), "NOT_EQUAL", value)
    }
    public static func whereField(_ field: String, isLessThan value: Any) -> Filter { .field(FieldPath.dotted(field), "LESS_THAN", value) }
    public static func whereField(_ field: String, isLessThanOrEqualTo value: Any) -> Filter {
        .field(FieldPath.dotted(field), "LESS_THAN_OR_EQUAL", value)
    }
    public static func whereField(_ field: String, isGreaterThan value: Any) -> Filter {
        .field(FieldPath.dotted(field), "GREATER_THAN", value)
    }
    public static func whereField(_ field: String, isGreaterThanOrEqualTo value: Any) -> Filter {
        .field(FieldPath.dotted(field), "GREATER_THAN_OR_EQUAL", value)
    }
    public static func whereField(_ field: String, arrayContains value: Any) -> Filter {
        .field(FieldPath.dotted(field), "ARRAY_CONTAINS", value)
    }
    public static func whereField(_ field: String, arrayContainsAny values: [Any]) -> Filter {
        .field(FieldPath.dotted(field), "ARRAY_CONTAINS_ANY", values)
    }
    public static func whereField(_ field: String, in values: [Any]) -> Filter { .field(FieldPath.dotted(field), "IN", values) }
    public static func whereField(_ field: String, notIn values: [Any]) -> Filter { .field(FieldPath.dotted(field), "NOT_IN", values) }
    public static func whereField(_ field: FieldPath, isEqualTo value: Any) -> Filter { .field(field.model, "EQUAL", value) }

    public static func andFilter(_ filters: [Filter]) -> Filter { Filter(node: .composite("AND", filters.map(\.node))) }
    public static func orFilter(_ filters: [Filter]) -> Filter { Filter(node: .composite("OR", filters.map(\.node))) }
}

extension Filter.Node {
    func json(documentsName: String, collectionPath: String) -> JSONValue {
        switch self {
        case .field(let path, let op, let value):
            var v = value
            if path.isDocumentID { v = Filter.Node.reference(v, documentsName: documentsName, collectionPath: collectionPath) }
            return .object([
                JSONMember(
                    "fieldFilter",
                    .object([
                        JSONMember("field", .object([JSONMember("fieldPath", .string(path.canonicalString))])),
                        JSONMember("op", .string(op)), JSONMember("value", v.firestoreJSON),
                    ]))
            ])
        case .unary(let path, let op):
            return .object([
                JSONMember(
                    "unaryFilter",
                    .object([
                        JSONMember("field", .object([JSONMember("fieldPath", .string(path.canonicalString))])),
                        JSONMember("op", .string(op)),
                    ]))
            ])
        case .composite(let op, let nodes):
            return .object([
                JSONMember(
                    "compositeFilter",
                    .object([
                        JSONMember("op", .string(op)),
                        JSONMember("filters", .array(nodes.map { $0.json(documentsName: documentsName, collectionPath: collectionPath) })),
                    ]))
            ])
        }
    }

    /// Document-id filters take plain ids relative to the queried collection.
    static func reference(_ v: Value, documentsName: String, collectionPath: String) -> Value {
        switch v {
        case .string(let s):
            return .reference(documentsName + "/" + (s.contains("/") || collectionPath.isEmpty ? s : collectionPath + "/" + s))
        case .array(let items):
            return .array(items.map { reference($0, documentsName: documentsName, collectionPath: collectionPath) })
        default: return v
        }
    }
}
