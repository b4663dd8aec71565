import EmulatorModel

/// `ExplainOptions` of RunQuery / RunAggregationQuery: plan only, or plan and run.
package struct ExplainOptions: Sendable, Equatable {
    package var analyze: Bool
    package init(analyze: Bool) { self.analyze = analyze }
}

/// `ExplainMetrics`: the plan summary, and with `analyze` the execution statistics.
package struct ExplainMetrics: Sendable, Equatable {
    /// One entry of `plan_summary.indexes_used`, in production's shape
    /// (`{"query_scope": "Collection", "properties": "(a ASC, __name__ ASC)"}`).
    package struct IndexUsed: Sendable, Equatable {
        package var queryScope: String
        package var properties: String
    }

    package struct ExecutionStats: Sendable, Equatable {
        package var resultsReturned: Int
        package var executionNanoseconds: UInt64
        package var readOperations: Int
        package var documentsScanned: Int
        package var indexEntriesScanned: Int
    }

    package var indexesUsed: [IndexUsed]
    package var executionStats: ExecutionStats?

    /// `execution_stats.debug_stats` as production shapes it (counts as strings).
    package var debugStats: [(String, DebugValue)] {
        guard let s = executionStats else { return [] }
        return [
            ("index_entries_scanned", .string(String(s.indexEntriesScanned))),
            ("documents_scanned", .string(String(s.documentsScanned))),
            ("billing_details", .object([
                ("documents_billable", .string(String(s.documentsScanned))),
                ("index_entries_billable", .string(String(s.indexEntriesScanned))),
                ("small_ops", .string("0")),
                ("min_query_cost", .string(s.readOperations > s.documentsScanned ? "1" : "0")),
            ])),
        ]
    }

    /// A value of `debug_stats` (a `google.protobuf.Struct` on the wire).
    package indirect enum DebugValue: Sendable, Equatable {
        case string(String)
        case object([(String, DebugValue)])

        package static func == (a: DebugValue, b: DebugValue) -> Bool {
            switch (a, b) {
            case (.string(let x), .string(let y)): x == y
            case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
            default: false
            }
        }
    }
}

/// The plan the emulator reports for a query: the one index production would choose for it when
/// its single-field and composite indexes exist. Equality (`==`, `in`, `is null`, `is NaN`)
/// fields come first in the order of the filter, `array-contains[-any]` fields as `CONTAINS`,
/// then the query's full ordering (explicit orders, inequality fields, `__name__`). The emulator
/// scans rather than use such an index; the summary tells what production's planner would need.
enum QueryPlan {
    static func indexesUsed(_ engine: QueryEngine) -> [ExplainMetrics.IndexUsed] {
        let query = engine.query
        let scope = query.from.first?.allDescendants == true ? "Collection group" : "Collection"
        var parts: [String] = []
        var seen: [FieldPath] = []
        let ordered = engine.rank.map(\.field)
        for c in query.filter?.conjuncts ?? [] {
            let field: FieldPath
            let kind: String
            switch c {
            case .field(let f, .equal, _), .field(let f, .in, _): (field, kind) = (f, "ASC")
            case .field(let f, .arrayContains, _), .field(let f, .arrayContainsAny, _): (field, kind) = (f, "CONTAINS")
            case .unary(let f, .isNull), .unary(let f, .isNaN): (field, kind) = (f, "ASC")
            default: continue
            }
            if field.isDocumentID || ordered.contains(field) || seen.contains(field) { continue }
            seen.append(field)
            parts.append("\(field.canonicalString) \(kind)")
        }
        for o in engine.rank {
            parts.append("\(o.field.canonicalString) \(o.direction == .ascending ? "ASC" : "DESC")")
        }
        return [ExplainMetrics.IndexUsed(queryScope: scope, properties: "(" + parts.joined(separator: ", ") + ")")]
    }
}
