/// A value inside a Firestore rules evaluation.
///
/// It has more kinds than a stored document value: paths, durations, sets, map diffs and the
/// symbolic document a `list` request is checked against. Convert stored values at the boundary
/// (`RulesValue(_ value: Value)` in `RulesValue+Model.swift`).
package enum RulesValue: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    case timestamp(RulesTimestamp)
    case duration(RulesDuration)
    case latlng(latitude: Double, longitude: Double)
    case path(RulesPath)
    case list([RulesValue])
    case map([String: RulesValue])
    case set([RulesValue])
    case mapDiff(RulesMapDiff)
    /// A document of a `list` result set known only through the query's constraints.
    case symbolic(RulesSymbolicDocument)
    /// `request`, `resource` or a stored document's `data`, read in place; behaves as the map it
    /// stands for (``RulesLazyMap``).
    case lazy(RulesLazyMap)
    /// A wildcard the request path did not bind (the document id of a `list`); reading it errors.
    case unbound(String)
}

/// A point in time: seconds since the Unix epoch and nanoseconds (0 ..< 1e9).
package struct RulesTimestamp: Sendable, Hashable, Comparable {
    package var seconds: Int64
    package var nanos: Int32

    package init(seconds: Int64, nanos: Int32) {
        self.seconds = seconds
        self.nanos = nanos
    }

    package static func < (a: RulesTimestamp, b: RulesTimestamp) -> Bool {
        (a.seconds, a.nanos) < (b.seconds, b.nanos)
    }
}

/// A signed length of time.
package struct RulesDuration: Sendable, Hashable, Comparable {
    package var seconds: Int64
    package var nanos: Int32

    package init(seconds: Int64, nanos: Int32) {
        self.seconds = seconds
        self.nanos = nanos
    }

    /// Normalises so that `nanos` has the sign of `seconds` and magnitude below 1e9.
    package init(totalNanos: Int64) {
        seconds = totalNanos / 1_000_000_000
        nanos = Int32(totalNanos % 1_000_000_000)
    }

    var totalNanos: Int64? {
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return nil }
        let (sum, overflow2) = product.addingReportingOverflow(Int64(nanos))
        return overflow2 ? nil : sum
    }

    package static func < (a: RulesDuration, b: RulesDuration) -> Bool {
        (a.seconds, a.nanos) < (b.seconds, b.nanos)
    }
}

/// A path value: `/databases/(default)/documents/users/alice` as its segments.
package struct RulesPath: Sendable, Hashable {
    package var segments: [String]

    package init(segments: [String]) {
        self.segments = segments
    }

    /// Parses `/a/b/c` or `a/b/c` (empty segments are dropped).
    package init(parsing text: String) {
        segments = text.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    package var text: String { "/" + segments.joined(separator: "/") }
}

/// The result of `map.diff(other)`.
package struct RulesMapDiff: Sendable {
    var added: [String]
    var removed: [String]
    var changed: [String]
    var unchanged: [String]
}

/// A document of a `list` request's potential result set: only what the query pins is known.
package struct RulesSymbolicDocument: Sendable {
    /// The field path below `data` this value stands for (empty: the document itself).
    var prefix: [String]
    /// Whether this value is `resource` (`[]` prefix, not yet `.data`).
    var isResource: Bool
    /// Field paths (dotted) the query fixes with `==`.
    var pinned: [String: RulesValue]
    /// Field paths (dotted) the query bounds with `<`, `<=`, `>`, `>=`.
    var ranges: [String: RulesRange]
}

/// Bounds on a field a query orders or filters by.
package struct RulesRange: Sendable {
    var lower: RulesValue?
    var lowerInclusive = true
    var upper: RulesValue?
    var upperInclusive = true
}
