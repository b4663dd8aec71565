package import EmulatorSupport

/// The query parameters of a read, visible to `.read` rules as `query`.
package struct DatabaseRulesQuery: Sendable, Hashable {
    package enum Order: Sendable, Hashable {
        case key, value, priority
        case child(String)
    }

    /// nil: no ordering given (rules then see `query.orderByKey == true`).
    package var orderBy: Order?
    package var startAt: JSONValue?
    package var endAt: JSONValue?
    package var equalTo: JSONValue?
    package var limitToFirst: Int?
    package var limitToLast: Int?

    package init(
        orderBy: Order? = nil, startAt: JSONValue? = nil, endAt: JSONValue? = nil, equalTo: JSONValue? = nil,
        limitToFirst: Int? = nil, limitToLast: Int? = nil
    ) {
        self.orderBy = orderBy
        self.startAt = startAt
        self.endAt = endAt
        self.equalTo = equalTo
        self.limitToFirst = limitToFirst
        self.limitToLast = limitToLast
    }
}
