package import EmulatorModel

/// A decoded `StructuredQuery`: the transport-independent form REST and gRPC both produce.
package struct StructuredQuery: Sendable, Equatable {
    /// `from`: one collection id; `allDescendants` makes it a collection group (empty id: kindless).
    package struct Selector: Sendable, Equatable {
        package var collectionID: String
        package var allDescendants: Bool
        package init(collectionID: String, allDescendants: Bool = false) {
            self.collectionID = collectionID
            self.allDescendants = allDescendants
        }
    }

    package enum Direction: Sendable, Equatable { case ascending, descending }

    package struct Order: Sendable, Equatable {
        package var field: FieldPath
        package var direction: Direction
        package init(_ field: FieldPath, _ direction: Direction = .ascending) {
            self.field = field
            self.direction = direction
        }
    }

    /// A position in the ordered result: `before` true means just before the position.
    package struct Cursor: Sendable, Equatable {
        package var values: [Value]
        package var before: Bool
        package init(values: [Value], before: Bool) {
            self.values = values
            self.before = before
        }
    }

    /// nil selects every field; `[__name__]` selects none.
    package var select: [FieldPath]?
    package var from: [Selector]
    package var filter: QueryFilter?
    package var orderBy: [Order]
    package var startAt: Cursor?
    package var endAt: Cursor?
    package var offset: Int
    package var limit: Int?

    package init(
        select: [FieldPath]? = nil, from: [Selector], filter: QueryFilter? = nil, orderBy: [Order] = [],
        startAt: Cursor? = nil, endAt: Cursor? = nil, offset: Int = 0, limit: Int? = nil
    ) {
        self.select = select
        self.from = from
        self.filter = filter
        self.orderBy = orderBy
        self.startAt = startAt
        self.endAt = endAt
        self.offset = offset
        self.limit = limit
    }
}

/// A query filter: a field comparison, a unary test, or an AND/OR of filters.
package indirect enum QueryFilter: Sendable, Equatable {
    package enum FieldOperator: String, Sendable, Equatable, CaseIterable {
        case lessThan = "LESS_THAN", lessThanOrEqual = "LESS_THAN_OR_EQUAL"
        case greaterThan = "GREATER_THAN", greaterThanOrEqual = "GREATER_THAN_OR_EQUAL"
        case equal = "EQUAL", notEqual = "NOT_EQUAL"
        case arrayContains = "ARRAY_CONTAINS", arrayContainsAny = "ARRAY_CONTAINS_ANY"
        case `in` = "IN", notIn = "NOT_IN"

        /// The `google.firestore.v1` enum number (`LESS_THAN` = 1 … `NOT_IN` = 10).
        package var protoNumber: Int {
            switch self {
            case .lessThan: 1
            case .lessThanOrEqual: 2
            case .greaterThan: 3
            case .greaterThanOrEqual: 4
            case .equal: 5
            case .notEqual: 6
            case .arrayContains: 7
            case .in: 8
            case .arrayContainsAny: 9
            case .notIn: 10
            }
        }

        /// The operator with enum number `n`, if any.
        package init?(protoNumber n: Int) {
            guard let op = Self.allCases.first(where: { $0.protoNumber == n }) else { return nil }
            self = op
        }

        /// Operators that constrain a range of the field and so imply an ordering on it.
        var isInequality: Bool {
            switch self {
            case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .notEqual, .notIn: true
            default: false
            }
        }
    }

    package enum UnaryOperator: String, Sendable, Equatable, CaseIterable {
        case isNaN = "IS_NAN", isNull = "IS_NULL", isNotNaN = "IS_NOT_NAN", isNotNull = "IS_NOT_NULL"

        /// The `google.firestore.v1` enum number (`IS_NAN` = 2 … `IS_NOT_NULL` = 5).
        package var protoNumber: Int {
            switch self {
            case .isNaN: 2
            case .isNull: 3
            case .isNotNaN: 4
            case .isNotNull: 5
            }
        }

        package init?(protoNumber n: Int) {
            guard let op = Self.allCases.first(where: { $0.protoNumber == n }) else { return nil }
            self = op
        }
    }

    package enum CompositeOperator: String, Sendable, Equatable {
        case and = "AND", or = "OR"
    }

    case field(FieldPath, FieldOperator, Value)
    case unary(FieldPath, UnaryOperator)
    case composite(CompositeOperator, [QueryFilter])
}
