package import EmulatorModel

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
    package var path: String {
        get { pathText ?? segments.joined(separator: "/") }
        set {
            pathText = newValue
            segments = FirestoreRuleset.relativeSegments(newValue)
        }
    }
    /// `path` split, without any `projects/{p}/` prefix.
    var segments: [String]
    var pathText: String?
    package var projectID: String
    /// `request.auth`; nil when signed out.
    package var auth: AuthContext? {
        get { preparedAuth?.context }
        set { preparedAuth = newValue.map(FirestoreRulesAuth.init) }
    }
    /// `auth`, already converted for rules: set this to share one conversion across requests.
    package var preparedAuth: FirestoreRulesAuth?
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
    /// A write whose method (`create` or `update`) was not decided because the emulator did not
    /// look whether the document exists: `method` is a placeholder, `resource` must be nil and
    /// the batch evaluator asks its `resolveMethod` when a rule or a denial needs the real one.
    /// Only for rulesets whose ``FirestoreRuleset/decidesWritesWithoutExistence`` is true.
    package var existenceUnknown = false

    package init(
        method: FirestoreRulesMethod, path: String, projectID: String = "demo-project", auth: AuthContext? = nil,
        time: RulesTimestamp, resource: RulesDocument? = nil, newResource: RulesDocument? = nil,
        query: RulesQuery? = nil, isCollectionGroup: Bool = false
    ) {
        self.init(
            method: method, segments: FirestoreRuleset.relativeSegments(path), projectID: projectID,
            auth: auth.map(FirestoreRulesAuth.init), time: time, resource: resource, newResource: newResource, query: query,
            isCollectionGroup: isCollectionGroup)
        self.pathText = path
    }

    /// A request whose path is already split (`["databases", "(default)", "documents", "c", "d"]`)
    /// and whose caller is already converted: what an emulator builds for every write of a batch.
    package init(
        method: FirestoreRulesMethod, segments: [String], projectID: String, auth: FirestoreRulesAuth?,
        time: RulesTimestamp, resource: RulesDocument? = nil, newResource: RulesDocument? = nil,
        query: RulesQuery? = nil, isCollectionGroup: Bool = false, existenceUnknown: Bool = false
    ) {
        self.method = method
        self.existenceUnknown = existenceUnknown
        self.segments = segments
        self.projectID = projectID
        self.preparedAuth = auth
        self.time = time
        self.resource = resource
        self.newResource = newResource
        self.query = query
        self.isCollectionGroup = isCollectionGroup
    }
}

/// A caller converted once for rules (`request.auth`): build it per token, not per request.
/// A class so that the many requests sharing it copy one reference.
package final class FirestoreRulesAuth: Sendable {
    package let context: AuthContext
    /// `{uid, token}` as rules read it.
    let value: RulesValue

    package init(_ context: AuthContext) {
        self.context = context
        self.value = .map(["uid": .string(context.uid), "token": RulesValue(json: context.token)])
    }
}

/// A document as rules see it: its name and fields.
package struct RulesDocument: Sendable {
    /// `databases/{db}/documents/c/d` (a `projects/{p}/` prefix is accepted and ignored).
    package var name: String {
        get { nameText ?? segments.joined(separator: "/") }
        set {
            nameText = newValue
            segments = FirestoreRuleset.relativeSegments(newValue)
        }
    }
    /// The fields, converted to rules values (a stored document converts on first need only
    /// through ``dataValue``; this property converts every time).
    package var data: [String: RulesValue] {
        get {
            switch fields {
            case .converted(let map): map
            case .stored(let stored): RulesValue.fields(stored)
            }
        }
        set { fields = .converted(newValue) }
    }
    /// `name` split, without any `projects/{p}/` prefix.
    var segments: [String]
    var nameText: String?
    var fields: Fields

    enum Fields: Sendable {
        case converted([String: RulesValue])
        /// A stored document's fields, read in place (``RulesLazyMap/fields(_:)``).
        case stored(ValueMap)
    }

    package init(name: String, data: [String: RulesValue]) {
        self.segments = FirestoreRuleset.relativeSegments(name)
        self.nameText = name
        self.fields = .converted(data)
    }

    /// A stored document whose name is already split; its fields are converted only as rules read them.
    package init(segments: [String], fields: ValueMap) {
        self.segments = segments
        self.nameText = nil
        self.fields = .stored(fields)
    }

    /// `data` as rules read it.
    var dataValue: RulesValue {
        switch fields {
        case .converted(let map): .map(map)
        case .stored(let stored): .lazy(.fields(stored))
        }
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
