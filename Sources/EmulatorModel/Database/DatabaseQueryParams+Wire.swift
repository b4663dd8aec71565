package import EmulatorSupport

extension DatabaseQueryParams {
    /// Decodes the wire query object of a listen or get (`q`): `i` index (`.key`, `.value`,
    /// `.priority` or a child path; absent is priority), `sp`/`sn`/`sin` start, `ep`/`en`/`ein` end
    /// (`[MIN_NAME]`/`[MAX_NAME]` names are sentinels; inclusive unless `sin`/`ein` is false), `l`
    /// limit with `vf` `l` (first) or `r` (last). Nil when the object is malformed.
    ///
    /// ```swift
    /// // limitToLast(2) ordered by child "ts"
    /// DatabaseQueryParams(wire: .object([JSONMember("i", .string("ts")), JSONMember("l", .int(2)), JSONMember("vf", .string("r"))]))
    /// ```
    package init?(wire: JSONValue) {
        guard case .object(let members) = wire else { return nil }
        self = .all
        if members.isEmpty { return }
        ordered = true
        switch wire[member: "i"] {
        case nil, .null?: index = .priority
        case .string(".key")?: index = .key
        case .string(".value")?: index = .value
        case .string(".priority")?: index = .priority
        case .string(let path)?:
            guard let parsed = try? DatabasePath(parsing: path), !parsed.isRoot else { return nil }
            index = .child(parsed)
        default: return nil
        }
        guard case .valid(let start) = Self.wirePost(wire, value: "sp", name: "sn", inclusive: "sin"),
            case .valid(let end) = Self.wirePost(wire, value: "ep", name: "en", inclusive: "ein")
        else { return nil }
        self.start = start
        self.end = end
        if let l = wire[member: "l"] {
            let n: Int
            switch l {
            case .int(let v) where v > 0 && v <= Int64(Int32.max): n = Int(v)
            case .double(let v) where v >= 1 && v <= Double(Int32.max) && v == v.rounded(): n = Int(v)
            default: return nil
            }
            switch wire[member: "vf"] {
            case .string("l")?: limit = .first(n)
            case .string("r")?: limit = .last(n)
            // The legacy `limit()`: from the left when only a start is set.
            case nil: limit = self.start != nil && self.end == nil ? .first(n) : .last(n)
            default: return nil
            }
        }
    }

    /// The wire query object (`q`) for this query, the inverse of ``init(wire:)``; nil for the
    /// default query (a listen or get of the whole location sends none).
    package var wire: JSONValue? {
        guard ordered || filters else { return nil }
        var members: [JSONMember] = []
        switch index {
        case .priority: if ordered { members.append(JSONMember("i", .string(".priority"))) }
        case .key: members.append(JSONMember("i", .string(".key")))
        case .value: members.append(JSONMember("i", .string(".value")))
        case .child(let path): members.append(JSONMember("i", .string(path.keys.joined(separator: "/"))))
        }
        func post(_ bound: Bound, _ value: String, _ name: String, _ inclusive: String) {
            members.append(JSONMember(value, bound.value))
            if let key = bound.key { members.append(JSONMember(name, .string(key))) }
            if !bound.inclusive { members.append(JSONMember(inclusive, .bool(false))) }
        }
        if let start { post(start, "sp", "sn", "sin") }
        if let end { post(end, "ep", "en", "ein") }
        switch limit {
        case .first(let n)?:
            members.append(JSONMember("l", .int(Int64(n))))
            members.append(JSONMember("vf", .string("l")))
        case .last(let n)?:
            members.append(JSONMember("l", .int(Int64(n))))
            members.append(JSONMember("vf", .string("r")))
        case nil: break
        }
        return .object(members)
    }

    private enum WirePost {
        /// A bound, or nil when that side is open.
        case valid(Bound?)
        case malformed
    }

    /// One post of a wire query.
    private static func wirePost(_ wire: JSONValue, value: String, name: String, inclusive: String) -> WirePost {
        let v = wire[member: value]
        let n = wire[member: name]
        if v == nil && n == nil { return .valid(nil) }
        var key: String?
        switch n {
        case nil, .null?: key = nil
        case .string(let s)?: key = s
        default: return .malformed
        }
        let bound = v ?? .null
        switch bound {
        case .array, .object: return .malformed
        default: break
        }
        var isInclusive = true
        switch wire[member: inclusive] {
        case nil, .null?: break
        case .bool(let b)?: isInclusive = b
        default: return .malformed
        }
        return .valid(Bound(value: bound, key: key, inclusive: isInclusive))
    }
}
