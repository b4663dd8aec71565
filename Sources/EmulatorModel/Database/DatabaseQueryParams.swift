package import EmulatorSupport

/// A Realtime Database query: an index, optional start/end posts, an optional limit, `shallow`.
///
/// One definition for the emulator (REST GETs, event streams, wire listens) and the Swift
/// client (what it asks for, and its local views). See `+Evaluation` for how it selects
/// children, `+Wire` for the wire protocol's `q` object, and the emulator's `+Parsing` for the
/// REST parameters.
///
/// ```swift
/// // ?orderBy="height"&startAt=3&limitToFirst=2
/// let q = DatabaseQueryParams(index: .child(DatabasePath(keys: ["height"])),
///                             start: .init(value: .int(3), key: nil, inclusive: true), limit: .first(2), ordered: true)
/// ```
package struct DatabaseQueryParams: Sendable, Hashable {
    package enum Index: Sendable, Hashable {
        case priority
        case key
        case value
        case child(DatabasePath)
    }

    /// One end of a range: a value and an optional key tie-breaker.
    package struct Bound: Sendable, Hashable {
        package var value: JSONValue
        package var key: String?
        package var inclusive: Bool

        package init(value: JSONValue, key: String? = nil, inclusive: Bool) {
            self.value = value
            self.key = key
            self.inclusive = inclusive
        }
    }

    package enum Limit: Sendable, Hashable {
        case first(Int)
        case last(Int)
    }

    package var index: Index
    package var start: Bound?
    package var end: Bound?
    package var limit: Limit?
    package var shallow: Bool
    /// Whether an `orderBy` was given (a default query with only `shallow` returns whole children).
    package var ordered: Bool

    package init(
        index: Index = .priority, start: Bound? = nil, end: Bound? = nil, limit: Limit? = nil, shallow: Bool = false,
        ordered: Bool = false
    ) {
        self.index = index
        self.start = start
        self.end = end
        self.limit = limit
        self.shallow = shallow
        self.ordered = ordered
    }

    /// The query that returns the whole location.
    package static let all = DatabaseQueryParams()

    /// True when the query filters children (a range or a limit).
    package var filters: Bool { start != nil || end != nil || limit != nil }

    /// True when the result is simply the whole location.
    package var isIdentity: Bool { !filters && !shallow }
}
