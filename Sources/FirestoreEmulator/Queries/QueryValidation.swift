import EmulatorModel

/// The checks production applies to a structured query before running it; each throws
/// `INVALID_ARGUMENT` with the backend's wording where it is known.
enum QueryValidation {
    static let maxDisjunctionValues = 30
    static let maxNotInValues = 10

    static func validate(_ query: StructuredQuery, order: [StructuredQuery.Order]) throws(EmulatorError) {
        guard query.from.count == 1 else {
            throw .invalidArgument("Query must have exactly one collection selector (from).")
        }
        if query.offset < 0 { throw .invalidArgument("offset must be non-negative.") }
        if let limit = query.limit, limit < 0 { throw .invalidArgument("limit is negative.") }
        if let filter = query.filter { try validate(filter) }
        for cursor in [query.startAt, query.endAt].compactMap({ $0 }) {
            if cursor.values.count > order.count {
                throw .invalidArgument("Too many cursor values specified. The specified order has \(order.count) field(s).")
            }
            for (i, value) in cursor.values.enumerated() where order[i].field.isDocumentID {
                guard case .reference = value else {
                    throw .invalidArgument("Cursor position for __name__ must be a document reference (referenceValue).")
                }
            }
        }
        if let select = query.select {
            for path in select where path.isEmpty { throw .invalidArgument("Projection field path must not be empty.") }
        }
    }

    private static func validate(_ filter: QueryFilter) throws(EmulatorError) {
        let leaves = filter.leaves
        var notEqualCount = 0
        var notInCount = 0
        var hasOr = false
        var hasIn = false
        var hasArrayContainsAny = 0
        func visit(_ f: QueryFilter) {
            if case .composite(.or, let fs) = f, fs.count > 1 { hasOr = true }
            if case .composite(_, let fs) = f { fs.forEach(visit) }
        }
        visit(filter)
        for leaf in leaves {
            switch leaf {
            case .composite(_, let filters):
                if filters.isEmpty { throw .invalidArgument("A composite filter must contain at least one filter.") }
            case .unary(let path, _):
                if path.isDocumentID { throw .invalidArgument("Unary filters are not allowed on __name__.") }
            case .field(let path, let op, let value):
                switch op {
                case .in, .notIn, .arrayContainsAny:
                    guard case .array(let values) = value else {
                        throw .invalidArgument("A filter with operator \(op.rawValue) requires an array value.")
                    }
                    if values.isEmpty {
                        throw .invalidArgument("A filter with operator \(op.rawValue) requires a non-empty array value.")
                    }
                    if op == .notIn && values.count > maxNotInValues {
                        throw .invalidArgument("'NOT_IN' supports up to \(maxNotInValues) comparison values.")
                    }
                    if op != .notIn && values.count > maxDisjunctionValues {
                        throw .invalidArgument("'\(op.rawValue)' supports up to \(maxDisjunctionValues) comparison values.")
                    }
                    if path.isDocumentID && op != .arrayContainsAny {
                        for v in values {
                            guard case .reference = v else {
                                throw .invalidArgument("__name__ filters must compare to document references (referenceValue).")
                            }
                        }
                    }
                default:
                    if case .array = value, op == .arrayContains {
                        // an array operand never matches an element (arrays hold no arrays) but is valid
                    }
                }
                if path.isDocumentID {
                    if op == .arrayContains || op == .arrayContainsAny {
                        throw .invalidArgument("Cannot use array membership operators on __name__.")
                    }
                    if op != .in && op != .notIn {
                        guard case .reference = value else {
                            throw .invalidArgument("__name__ filters must compare to document references (referenceValue).")
                        }
                    }
                }
                switch op {
                case .notEqual: notEqualCount += 1
                case .notIn: notInCount += 1
                case .in: hasIn = true
                case .arrayContainsAny: hasArrayContainsAny += 1
                default: break
                }
            }
        }
        if notInCount > 1 { throw .invalidArgument("Only a single 'NOT_IN' filter is allowed in a query.") }
        if notInCount > 0 && notEqualCount > 0 {
            throw .invalidArgument("A 'NOT_IN' filter cannot be combined with a 'NOT_EQUAL' filter in the same query.")
        }
        if notInCount > 0 && (hasOr || hasIn || hasArrayContainsAny > 0) {
            throw .invalidArgument("A 'NOT_IN' filter cannot be combined with 'OR', 'IN' or 'ARRAY_CONTAINS_ANY' filters.")
        }
    }
}
