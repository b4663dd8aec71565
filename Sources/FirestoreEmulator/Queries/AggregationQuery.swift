package import EmulatorModel

/// A decoded `StructuredAggregationQuery`: 1–5 aggregations over a structured query's result.
package struct AggregationQuery: Sendable, Equatable {
    package struct Aggregation: Sendable, Equatable {
        package enum Operator: Sendable, Equatable {
            case count(upTo: Int64?)
            case sum(FieldPath)
            case average(FieldPath)
        }

        package var op: Operator
        /// The result name; nil gets `field_<n>`, numbered among the unaliased ones.
        package var alias: String?

        package init(_ op: Operator, alias: String? = nil) {
            self.op = op
            self.alias = alias
        }
    }

    package var query: StructuredQuery
    package var aggregations: [Aggregation]

    package init(query: StructuredQuery, aggregations: [Aggregation]) {
        self.query = query
        self.aggregations = aggregations
    }

    static let maxAggregations = 5

    /// The distinct fields read by `sum` and `avg`, in request order.
    var aggregatedFields: [FieldPath] {
        var out: [FieldPath] = []
        for a in aggregations {
            switch a.op {
            case .sum(let f), .average(let f): if !out.contains(f) { out.append(f) }
            case .count: continue
            }
        }
        return out
    }

    /// The result name of each aggregation, after validating count and uniqueness.
    func aliases() throws(EmulatorError) -> [String] {
        if aggregations.isEmpty { throw .invalidArgument("Aggregations can not be empty.") }
        if aggregations.count > Self.maxAggregations {
            throw .invalidArgument("Aggregations can not have more than \(Self.maxAggregations) aggregations.")
        }
        var names: [String] = []
        var unaliased = 0
        for a in aggregations {
            if let alias = a.alias, !alias.isEmpty {
                try DocumentLimits.validateFieldName(alias)
                names.append(alias)
            } else {
                unaliased += 1
                names.append("field_\(unaliased)")
            }
        }
        for (i, n) in names.enumerated() where names[..<i].contains(where: { $0.utf8.elementsEqual(n.utf8) }) {
            throw .invalidArgument("Aggregation aliases contain duplicate alias \(n).")
        }
        for a in aggregations {
            if case .count(let upTo?) = a.op, upTo <= 0 {
                throw .invalidArgument("Count aggregation up_to must be greater than zero.")
            }
        }
        return names
    }

    /// Computes every aggregation over `documents` (the query's windowed result).
    func evaluate(_ documents: [StoredDocument], aliases: [String]) -> ValueMap {
        var fold = AggregationFold(aggregations)
        for d in documents { fold.add(d) }
        return fold.result(aliases: aliases)
    }
}

/// The aggregations of a request folded one document at a time: counts and running sums, never
/// the documents.
struct AggregationFold {
    private struct Sum {
        var integer: Int64 = 0
        var double = 0.0
        var integral = true
        /// Numeric values seen (the average's divisor).
        var values = 0
    }

    private let operators: [AggregationQuery.Aggregation.Operator]
    private var sums: [Sum]
    private var count: Int64 = 0
    /// When every aggregation is a count with `up_to`: the largest, past which nothing changes.
    private let settlesAt: Int64?

    init(_ aggregations: [AggregationQuery.Aggregation]) {
        operators = aggregations.map(\.op)
        sums = Array(repeating: Sum(), count: aggregations.count)
        var bound: Int64? = 0
        for a in aggregations {
            if case .count(let upTo?) = a.op, let b = bound { bound = max(b, upTo) } else { bound = nil }
        }
        settlesAt = aggregations.isEmpty ? nil : bound
    }

    /// Whether further documents can no longer change the result (counts that reached `up_to`).
    var isSettled: Bool { settlesAt.map { count >= $0 } ?? false }

    mutating func add(_ document: StoredDocument) {
        count += 1
        for (i, op) in operators.enumerated() {
            switch op {
            case .count: continue
            case .sum(let field), .average(let field):
                switch document.fields.value(at: field) {
                case .integer(let v)?:
                    sums[i].double += Double(v)
                    sums[i].values += 1
                    if sums[i].integral {
                        let (s, o) = sums[i].integer.addingReportingOverflow(v)
                        if o { sums[i].integral = false } else { sums[i].integer = s }
                    }
                case .double(let x)?:
                    sums[i].double += x
                    sums[i].values += 1
                    sums[i].integral = false
                default: continue
                }
            }
        }
    }

    func result(aliases: [String]) -> ValueMap {
        var out = ValueMap()
        for (i, (op, alias)) in zip(operators, aliases).enumerated() {
            switch op {
            case .count(let upTo): out[alias] = .integer(upTo.map { min($0, count) } ?? count)
            case .sum: out[alias] = sums[i].integral ? .integer(sums[i].integer) : .double(sums[i].double)
            case .average: out[alias] = sums[i].values == 0 ? .null : .double(sums[i].double / Double(sums[i].values))
            }
        }
        return out
    }
}
