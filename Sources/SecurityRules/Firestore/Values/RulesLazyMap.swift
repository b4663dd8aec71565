package import EmulatorModel

/// A map that rules read member by member, built from the request instead of converted up front:
/// `request`, `resource` / `request.resource` / `get()` results, and a stored document's `data`.
///
/// It behaves exactly as ``materialized``: member access, `in`, `keys()` and `size()` read it in
/// place (`request.resource.data.keys()` lists the stored field names without converting a
/// value); anything else (equality, other methods, being put in a list or map, `debug`) uses the
/// converted map. Materializing is deep, so a converted map never holds a lazy one.
package enum RulesLazyMap: Sendable {
    /// `request`.
    case request(RulesRequestMap)
    /// `resource`, `request.resource`, or what `get()` returns: `data`, `id`, `__name__`.
    indirect case document(RulesDocument)
    /// A stored document's fields (`resource.data`).
    case fields(ValueMap)

    /// The value of member `name`; nil when the map has no such key.
    func member(_ name: String) -> RulesValue? {
        switch self {
        case .request(let request): request.member(name)
        case .document(let document):
            switch name {
            case "data": document.dataValue
            case "id": .string(document.segments.last ?? "")
            case "__name__": .path(RulesPath(segments: document.segments))
            default: nil
            }
        case .fields(let fields): fields[name].map(RulesValue.init)
        }
    }

    /// The keys, sorted by UTF-8 bytes (as `keys()` lists them).
    var sortedKeys: [String] {
        switch self {
        case .request: FirestoreEvaluator.sortedKeys(materialized)
        case .document: ["__name__", "data", "id"]
        case .fields(let fields): fields.map(\.name)  // a ValueMap is sorted by UTF-8 bytes
        }
    }

    var count: Int {
        switch self {
        case .request: materialized.count
        case .document: 3
        case .fields(let fields): fields.count
        }
    }

    /// The map this stands for, converted through and through.
    var materialized: [String: RulesValue] {
        switch self {
        case .request(let request): request.materialized
        case .document(let document):
            [
                "data": .map(document.data),
                "id": .string(document.segments.last ?? ""),
                "__name__": .path(RulesPath(segments: document.segments)),
            ]
        case .fields(let fields): RulesValue.fields(fields)
        }
    }
}

/// The members of `request`, converted only when read. A class: reading a member borrows it
/// instead of copying every member out of an enum payload.
package final class RulesRequestMap: Sendable {
    let method: FirestoreRulesMethod
    /// `request.path`: `databases/{db}/documents/...`.
    let segments: [String]
    let time: RulesTimestamp
    /// `request.auth`: null or `{uid, token}`.
    let auth: RulesValue
    /// `request.resource`; nil when the request has none (not even null).
    let resource: RulesValue?
    /// `request.query`, for `list`.
    let query: RulesValue?

    init(
        method: FirestoreRulesMethod, segments: [String], time: RulesTimestamp, auth: RulesValue, resource: RulesValue?,
        query: RulesValue?
    ) {
        self.method = method
        self.segments = segments
        self.time = time
        self.auth = auth
        self.resource = resource
        self.query = query
    }

    func member(_ name: String) -> RulesValue? {
        switch name {
        case "auth": auth
        case "method": .string(method.rawValue)
        case "path": .path(RulesPath(segments: segments))
        case "time": .timestamp(time)
        case "resource": resource
        case "query": query
        default: nil
        }
    }

    var materialized: [String: RulesValue] {
        var map: [String: RulesValue] = [
            "auth": auth,
            "method": .string(method.rawValue),
            "path": .path(RulesPath(segments: segments)),
            "time": .timestamp(time),
        ]
        if let resource { map["resource"] = resource.materialized }
        if let query { map["query"] = query }
        return map
    }
}

extension RulesValue {
    /// This value with every lazy map converted (a no-op for anything else).
    var materialized: RulesValue {
        if case .lazy(let map) = self { return .map(map.materialized) }
        return self
    }
}
