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
        var out = ValueMap()
        for (a, alias) in zip(aggregations, aliases) {
            out[alias] = Self.evaluate(a.op, documents)
        }
        return out
    }

    static func evaluate(_ op: Aggregation.Operator, _ documents: [StoredDocument]) -> Value {
        switch op {
        case .count(let upTo):
            let n = Int64(documents.count)
            return .integer(upTo.map { min($0, n) } ?? n)
        case .sum(let field):
            var intSum: Int64 = 0
            var doubleSum = 0.0
            var integral = true
            for d in documents {
                switch d.fields.value(at: field) {
                case .integer(let i)?:
                    doubleSum += Double(i)
                    if integral {
                        let (s, o) = intSum.addingReportingOverflow(i)
                        if o { integral = false } else { intSum = s }
                    }
                case .double(let x)?:
                    doubleSum += x
                    integral = false
                default: continue
                }
            }
            return integral ? .integer(intSum) : .double(doubleSum)
        case .average(let field):
            var sum = 0.0
            var n = 0
            for d in documents {
                switch d.fields.value(at: field) {
                case .integer(let i)?: sum += Double(i); n += 1
                case .double(let x)?: sum += x; n += 1
                default: continue
                }
            }
            return n == 0 ? .null : .double(sum / Double(n))
        }
    }
}
