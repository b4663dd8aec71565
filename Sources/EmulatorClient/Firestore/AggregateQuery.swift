import EmulatorModel
import EmulatorSupport

/// One aggregation: `count()`, `sum(field)` or `average(field)`.
public struct AggregateField: Sendable, Hashable {
    let kind: String
    let field: String?

    public static func count() -> AggregateField { AggregateField(kind: "count", field: nil) }
    public static func sum(_ field: String) -> AggregateField { AggregateField(kind: "sum", field: field) }
    public static func average(_ field: String) -> AggregateField { AggregateField(kind: "avg", field: field) }

    var alias: String { field.map { "\(kind)_\($0)" } ?? kind }

    var json: JSONValue {
        var inner: [JSONMember] = []
        if let field {
            inner.append(JSONMember("field", .object([JSONMember("fieldPath", .string(FieldPath.dotted(field).canonicalString))])))
        }
        return .object([JSONMember("alias", .string(alias)), JSONMember(kind, .object(inner))])
    }
}

/// Aggregations over a query's results.
///
/// ```swift
/// let snapshot = try await db.collection("cities").aggregate([.count(), .sum("population")]).getAggregation()
/// snapshot.count                         // 4
/// snapshot.get(.sum("population"))       // 1800 (Int or Double)
/// ```
public struct AggregateQuery: Sendable {
    public let query: Query
    let fields: [AggregateField]

    public func getAggregation() async throws -> AggregateQuerySnapshot {
        let body: JSONValue = .object([
            JSONMember(
                "structuredAggregationQuery",
                .object([
                    JSONMember("structuredQuery", query.structuredQuery),
                    JSONMember("aggregations", .array(fields.map(\.json))),
                ]))
        ])
        let query = self.query
        let json = try await blocking { try query.firestore.call("POST", query.parentTarget + ":runAggregationQuery", body: body) }
        guard case .array(let items) = json else { throw FirestoreError(.internal, "runAggregationQuery did not return an array") }
        for item in items {
            guard let result = item[member: "result"]?[member: "aggregateFields"] else { continue }
            var values: [String: Value] = [:]
            for f in fields {
                if let v = result[member: f.alias], let value = try? Value(firestoreJSON: v) { values[f.alias] = value }
            }
            return AggregateQuerySnapshot(values: values)
        }
        throw FirestoreError(.internal, "runAggregationQuery returned no result")
    }
}

/// The results of an aggregate query.
public struct AggregateQuerySnapshot: Sendable {
    let values: [String: Value]

    /// The `count()` result (0 when not requested).
    public var count: Int {
        if case .integer(let n)? = values["count"] { return Int(n) }
        return 0
    }

    /// The value of one aggregation: `Int`, `Double`, or `NSNull` (average of no numbers).
    public func get(_ field: AggregateField) -> Any? {
        values[field.alias].map { FieldData.any($0, firestore: nil) }
    }
}
