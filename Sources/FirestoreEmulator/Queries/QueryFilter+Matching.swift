import EmulatorModel

extension QueryFilter {
    /// Whether `document` satisfies this filter, with production's rules: a field filter needs the
    /// field to exist; `<, <=, >, >=, ==` only match values of the filter value's type bracket;
    /// `!=` and `not-in` exclude missing fields and nulls; `not-in` with a null matches nothing.
    func matches(_ document: StoredDocument, database: DatabaseID) -> Bool {
        switch self {
        case .composite(.and, let filters):
            for f in filters where !f.matches(document, database: database) { return false }
            return true
        case .composite(.or, let filters):
            for f in filters where f.matches(document, database: database) { return true }
            return filters.isEmpty
        case .unary(let path, let op):
            guard let v = document.value(at: path, database: database) else { return false }
            switch op {
            case .isNaN: return v.isNaN
            case .isNull: if case .null = v { return true } else { return false }
            case .isNotNaN: if case .null = v { return false } else { return !v.isNaN }
            case .isNotNull: if case .null = v { return false } else { return true }
            }
        case .field(let path, let op, let operand):
            guard let v = document.value(at: path, database: database) else { return false }
            return Self.compare(v, op, operand)
        }
    }

    static func compare(_ v: Value, _ op: FieldOperator, _ operand: Value) -> Bool {
        switch op {
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .equal:
            guard v.kind == operand.kind else { return false }
            let c = Value.compare(v, operand)
            switch op {
            case .lessThan: return c < 0
            case .lessThanOrEqual: return c <= 0
            case .greaterThan: return c > 0
            case .greaterThanOrEqual: return c >= 0
            default: return c == 0
            }
        case .notEqual:
            if case .null = v { return false }
            return !v.isEquivalent(operand)
        case .arrayContains:
            guard case .array(let elements) = v else { return false }
            return elements.contains { $0.isEquivalent(operand) }
        case .arrayContainsAny:
            guard case .array(let elements) = v, case .array(let options) = operand else { return false }
            return elements.contains { e in options.contains { e.isEquivalent($0) } }
        case .in:
            guard case .array(let options) = operand else { return false }
            return options.contains { v.isEquivalent($0) }
        case .notIn:
            guard case .array(let options) = operand else { return false }
            if case .null = v { return false }
            if options.contains(where: { if case .null = $0 { true } else { false } }) { return false }
            return !options.contains { v.isEquivalent($0) }
        }
    }

    /// Every field the filter constrains by an inequality (`<, <=, >, >=, !=, not-in`, `IS_NOT_NULL`,
    /// `IS_NOT_NAN`), which the query must be ordered by.
    var inequalityFields: [FieldPath] {
        switch self {
        case .field(let p, let op, _): return op.isInequality ? [p] : []
        case .unary(let p, let op): return op == .isNotNull || op == .isNotNaN ? [p] : []
        case .composite(_, let filters): return filters.flatMap(\.inequalityFields)
        }
    }

    /// All leaf filters.
    var leaves: [QueryFilter] {
        if case .composite(_, let filters) = self { return filters.flatMap(\.leaves) }
        return [self]
    }

    /// The field filters every match must satisfy (top-level conjuncts), for index selection.
    var conjuncts: [QueryFilter] {
        switch self {
        case .composite(.and, let filters): return filters.flatMap(\.conjuncts)
        case .composite(.or, let filters) where filters.count == 1: return filters[0].conjuncts
        case .composite: return []
        default: return [self]
        }
    }
}
