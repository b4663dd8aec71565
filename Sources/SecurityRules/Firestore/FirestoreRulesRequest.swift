/// One operation to check against Firestore rules.
///
/// ```swift
/// let request = FirestoreRulesRequest(
///     method: .update, path: "databases/(default)/documents/users/alice", projectID: "demo",
///     auth: AuthContext(uid: "alice"), time: now,
///     resource: RulesDocument(name: "databases/(default)/documents/users/alice", data: old),
///     newResource: RulesDocument(name: "databases/(default)/documents/users/alice", data: merged))
/// let decision = ruleset.evaluate(request, data: source)
/// ```
package struct FirestoreRulesRequest: Sendable {
    package var method: FirestoreRulesMethod
    /// The document name (`databases/{db}/documents/c/d`, optionally prefixed by
    /// `projects/{p}/`); for `list`, the collection's name (`.../documents/c`).
    package var path: String
    package var projectID: String
    package var auth: AuthContext?
    /// `request.time`; server timestamps in `newResource` should already equal it.
    package var time: RulesTimestamp
    /// The stored document (`resource`); nil when it does not exist.
    package var resource: RulesDocument?
    /// The document as it would be after the write (`request.resource`); create and update only.
    package var newResource: RulesDocument?
    /// The query's constraints, for `list`.
    package var query: RulesQuery?
    /// A collection-group query: `path` ends with the collection id, any parent may match.
    package var isCollectionGroup: Bool

    package init(
        method: FirestoreRulesMethod, path: String, projectID: String = "demo-project", auth: AuthContext? = nil,
        time: RulesTimestamp, resource: RulesDocument? = nil, newResource: RulesDocument? = nil,
        query: RulesQuery? = nil, isCollectionGroup: Bool = false
    ) {
        self.method = method
        self.path = path
        self.projectID = projectID
        self.auth = auth
        self.time = time
        self.resource = resource
        self.newResource = newResource
        self.query = query
        self.isCollectionGroup = isCollectionGroup
    }
}

/// A document as rules see it: its name and fields.
package struct RulesDocument: Sendable {
    /// `databases/{db}/documents/c/d` (a `projects/{p}/` prefix is accepted and ignored).
    package var name: String
    package var data: [String: RulesValue]

    package init(name: String, data: [String: RulesValue]) {
        self.name = name
        self.data = data
    }
}

/// The constraints of a `list` request, checked in place of the documents it could return.
package struct RulesQuery: Sendable {
    package var limit: Int64?
    package var offset: Int64?
    package var orderBy: [(field: String, descending: Bool)]
    /// Disjunctive normal form: the query matches a document when every filter of some inner
    /// list does. A plain AND query is one inner list; `in` and `array-contains-any` filters are
    /// expanded by the evaluator.
    package var disjuncts: [[RulesQueryFilter]]

    package init(
        limit: Int64? = nil, offset: Int64? = nil, orderBy: [(field: String, descending: Bool)] = [],
        filters: [RulesQueryFilter] = [], disjuncts: [[RulesQueryFilter]]? = nil
    ) {
        self.limit = limit
        self.offset = offset
        self.orderBy = orderBy
        self.disjuncts = disjuncts ?? [filters]
    }
}

/// One field filter of a query.
package struct RulesQueryFilter: Sendable {
    package enum Operator: String, Sendable {
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case `in` = "in"
        case notIn = "not-in"
        case arrayContains = "array-contains"
        case arrayContainsAny = "array-contains-any"
    }

    /// Dotted field path (`address.city`).
    package var field: String
    package var op: Operator
    package var value: RulesValue

    package init(field: String, op: Operator, value: RulesValue) {
        self.field = field
        self.op = op
        self.value = value
    }
}

/// Where `get()`, `exists()`, `getAfter()` and `existsAfter()` read documents. The emulator
/// implements `afterWrites: true` by overlaying the whole batch being checked.
package protocol FirestoreRulesDataSource: Sendable {
    /// - Parameter name: the full name, `projects/{p}/databases/{d}/documents/...`.
    func document(_ name: String, afterWrites: Bool) -> RulesDocument?
}

/// A data source with no documents.
package struct EmptyFirestoreRulesDataSource: FirestoreRulesDataSource {
    package init() {}
    package func document(_ name: String, afterWrites: Bool) -> RulesDocument? { nil }
}
