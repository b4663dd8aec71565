import EmulatorModel
import EmulatorSupport

extension DatabaseQueryParams {
    /// Parses the REST query parameters (`orderBy`, `startAt`, `startAfter`, `endAt`,
    /// `endBefore`, `equalTo`, `limitToFirst`, `limitToLast`, `shallow`). Values are JSON; a bound
    /// may carry a key tie-breaker after a comma (`startAt=5,"k"`).
    ///
    /// Without `orderBy`, only `shallow=true&limitToFirst=N[&startAfter=<raw key>]` is accepted
    /// (firebase-tools' key pagination); any other filter is a 400.
    static func parse(_ items: [(name: String, value: String)]) throws(DatabaseFailure) -> DatabaseQueryParams {
        var query = DatabaseQueryParams.all
        var orderBy: String?
        var raw: [String: String] = [:]
        for (name, value) in items {
            switch name {
            case "orderBy": orderBy = value
            case "startAt", "startAfter", "endAt", "endBefore", "equalTo", "limitToFirst", "limitToLast":
                raw[name] = value
            case "shallow":
                guard value == "true" || value == "false" else {
                    throw .invalid("shallow must be true or false")
                }
                query.shallow = value == "true"
            default: continue
            }
        }
        if orderBy == nil && raw.isEmpty { return query }

        if let n = raw["limitToFirst"] { query.limit = .first(try parseLimit(n, "limitToFirst")) }
        if let n = raw["limitToLast"] {
            if query.limit != nil { throw .invalid(DatabaseFailure.bothLimits) }
            query.limit = .last(try parseLimit(n, "limitToLast"))
        }

        guard let orderBy else {
            // Key pagination without orderBy, as firebase-tools lists large locations.
            let onlyPaging = query.shallow && raw.keys.allSatisfy { $0 == "limitToFirst" || $0 == "startAfter" }
            guard onlyPaging else {
                throw .invalid(DatabaseFailure.orderByMissing)
            }
            query.index = .key
            query.ordered = true
            if let after = raw["startAfter"] {
                let key: String
                if case .string(let s)? = try? JSONReader.parse(after) { key = s } else { key = after }
                query.start = Bound(value: .string(key), inclusive: false)
            }
            return query
        }
        if query.shallow { throw .invalid("shallow cannot be mixed with any other query parameters") }
        query.ordered = true
        query.index = try parseIndex(orderBy)

        if let v = raw["equalTo"] {
            if raw["startAt"] != nil || raw["startAfter"] != nil || raw["endAt"] != nil || raw["endBefore"] != nil {
                throw .invalid(DatabaseFailure.equalToWithBounds)
            }
            let bound = try parseBound(v, "equalTo", index: query.index)
            query.start = Bound(value: bound.value, key: bound.key, inclusive: true)
            query.end = Bound(value: bound.value, key: bound.key, inclusive: true)
            return query
        }
        if raw["startAt"] != nil && raw["startAfter"] != nil {
            throw .invalid("startAt and startAfter cannot both be specified")
        }
        if raw["endAt"] != nil && raw["endBefore"] != nil {
            throw .invalid("endAt and endBefore cannot both be specified")
        }
        if let v = raw["startAt"] { query.start = try parseBound(v, "startAt", index: query.index, inclusive: true) }
        if let v = raw["startAfter"] { query.start = try parseBound(v, "startAfter", index: query.index, inclusive: false) }
        if let v = raw["endAt"] { query.end = try parseBound(v, "endAt", index: query.index, inclusive: true) }
        if let v = raw["endBefore"] { query.end = try parseBound(v, "endBefore", index: query.index, inclusive: false) }
        return query
    }

    private static func parseLimit(_ text: String, _ name: String) throws(DatabaseFailure) -> Int {
        guard let n = Int(text), n > 0, n <= Int(Int32.max) else {
            throw .invalid("\(name) must be a positive integer")
        }
        return n
    }

    private static func parseIndex(_ text: String) throws(DatabaseFailure) -> Index {
        guard case .string(let name)? = try? JSONReader.parse(text) else {
            throw .invalid(DatabaseFailure.invalidOrderBy)
        }
        switch name {
        case "$key": return .key
        case "$value": return .value
        case "$priority": return .priority
        default:
            guard let path = try? DatabasePath(parsing: name), !path.isRoot else {
                throw .invalid(DatabaseFailure.invalidOrderBy)
            }
            return .child(path)
        }
    }

    /// `<json value>` or `<json value>,<json key>`.
    private static func parseBound(
        _ text: String, _ name: String, index: Index, inclusive: Bool = true
    ) throws(DatabaseFailure) -> Bound {
        var value: JSONValue
        var key: String?
        if let parsed = try? JSONReader.parse(text) {
            value = parsed
        } else {
            // Split at a comma whose left side is a JSON value and right side a JSON string.
            var found: (JSONValue, String)?
            var index = text.endIndex
            while let comma = text[..<index].lastIndex(of: ",") {
                if let left = try? JSONReader.parse(String(text[..<comma])),
                    case .string(let k)? = try? JSONReader.parse(String(text[text.index(after: comma)...]))
                {
                    found = (left, k)
                    break
                }
                index = comma
            }
            guard let found else { throw .invalid(DatabaseFailure.notAPrimitive) }
            (value, key) = found
        }
        switch value {
        case .null, .bool, .int, .double, .string: break
        case .array, .object: throw .invalid(DatabaseFailure.notAPrimitive)
        }
        if index == .key {
            guard case .string = value else { throw .invalid("\(name) must be a string when orderBy is \"$key\"") }
            if key != nil { throw .invalid("\(name) cannot have a key name when orderBy is \"$key\"") }
        }
        if index == .priority, case .bool = value {
            throw .invalid("\(name) must be a number, string or null when orderBy is \"$priority\"")
        }
        return Bound(value: value, key: key, inclusive: inclusive)
    }
}
