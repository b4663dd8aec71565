import EmulatorModel
package import EmulatorSupport
import SecurityRules

/// The real rules engine (`SecurityRules.DatabaseRuleset`) behind the emulator's rules seam:
/// full expressions (`auth`, `data`, `newData`, `root`, `$wildcards`, `query`, `now`),
/// `.validate`, cascading grants. With a `logger`, every denial is logged at debug verbosity
/// naming the rule that decided it (path, line and expression), as Firestore's denials are.
package struct SecurityRulesGate: DatabaseRulesGate {
    let logger: Logger?

    package init(logger: Logger? = nil) {
        self.logger = logger
    }

    package func compile(_ source: [UInt8]) -> Result<any DatabaseRules, DatabaseRulesCompileError> {
        switch DatabaseRuleset.parse(String(decoding: source, as: UTF8.self), fileName: "database.rules.json") {
        case .success(let ruleset): .success(SecurityRulesDatabaseRules(ruleset: ruleset, source: source, logger: logger))
        case .failure(let diagnostics): .failure(DatabaseRulesCompileError(diagnostics.description))
        }
    }
}

struct SecurityRulesDatabaseRules: DatabaseRules {
    let ruleset: DatabaseRuleset
    let logger: Logger?
    /// `.read` is `true` at the root: every read is allowed (a grant cannot be revoked deeper).
    let readsOpen: Bool
    /// `.write` is `true` at the root and no `.validate` exists: every write is allowed.
    let writesOpen: Bool

    init(ruleset: DatabaseRuleset, source: [UInt8], logger: Logger? = nil) {
        self.ruleset = ruleset
        self.logger = logger
        let rules = (try? JSONReader.parse(source, allowComments: true))?[member: "rules"]
        func literallyTrue(_ value: JSONValue?) -> Bool {
            switch value {
            case .bool(true)?: true
            case .string(let s)? where s.utf8.elementsEqual("true".utf8): true
            default: false
            }
        }
        func hasValidate(_ value: JSONValue) -> Bool {
            guard case .object(let members) = value else { return false }
            return members.contains { $0.name == ".validate" || hasValidate($0.value) }
        }
        readsOpen = literallyTrue(rules?[member: ".read"])
        writesOpen = literallyTrue(rules?[member: ".write"]) && !(rules.map(hasValidate) ?? true)
    }

    func canRead(
        _ path: DatabasePath, query: DatabaseQuery, auth: DatabaseAuth, now: Int64, data: any DatabaseDataSource
    ) -> Bool {
        if readsOpen { return true }
        let decision = ruleset.canRead(
            path: path.keys, auth: Self.context(auth), now: now, data: RulesDataAdapter(source: data),
            query: Self.rulesQuery(query))
        if !decision.isAllowed { logger?.debug("PERMISSION_DENIED read \(path): \(decision.message)") }
        return decision.isAllowed
    }

    func canWrite(
        _ locations: [DatabasePath], auth: DatabaseAuth, now: Int64, data: any DatabaseDataSource,
        newData: any DatabaseDataSource
    ) -> Bool {
        if writesOpen { return true }
        let writes = locations.map { location -> (path: [String], value: JSONValue?) in
            // A priority write is checked as a write of its node.
            let path = location.keys.last == ".priority" ? Array(location.keys.dropLast()) : location.keys
            let value = newData.node(at: DatabasePath(keys: path)).rulesValue
            return (path, value)
        }
        let decision = ruleset.canUpdate(
            multiPath: writes, auth: Self.context(auth), now: now, data: RulesDataAdapter(source: data))
        if !decision.isAllowed {
            logger?.debug("PERMISSION_DENIED write \(locations.map(\.description).joined(separator: " ")): \(decision.message)")
        }
        return decision.isAllowed
    }

    /// Rules' `auth`: nil when signed out; otherwise exactly the emulator's auth object.
    static func context(_ auth: DatabaseAuth) -> AuthContext? {
        guard case .object = auth.variable else { return nil }
        var uid = ""
        if case .string(let value)? = auth.variable[member: "uid"] { uid = value }
        return AuthContext(
            uid: uid, token: auth.variable[member: "token"] ?? .object([]), legacyDatabaseAuth: auth.variable)
    }

    static func rulesQuery(_ query: DatabaseQuery) -> SecurityRules.DatabaseQuery {
        guard query.ordered else { return SecurityRules.DatabaseQuery() }
        var result = SecurityRules.DatabaseQuery()
        switch query.index {
        case .key: result.orderBy = .key
        case .value: result.orderBy = .value
        case .priority: result.orderBy = .priority
        case .child(let path): result.orderBy = .child(path.keys.joined(separator: "/"))
        }
        if let start = query.start, let end = query.end, start.value == end.value, start.inclusive, end.inclusive {
            result.equalTo = start.value
        } else {
            result.startAt = query.start?.value
            result.endAt = query.end?.value
        }
        switch query.limit {
        case .first(let n)?: result.limitToFirst = n
        case .last(let n)?: result.limitToLast = n
        case nil: break
        }
        return result
    }
}

/// Reads for the rules engine. The engine uses it only during the one synchronous check it is
/// passed to (inside a request or a commit), never from another thread, so the wrapped source
/// need not be Sendable.
private struct RulesDataAdapter: DatabaseRulesDataSource, @unchecked Sendable {
    let source: any DatabaseDataSource

    func value(at path: [String]) -> JSONValue? {
        source.node(at: DatabasePath(keys: path)).rulesValue
    }
}

extension DatabaseNode {
    /// The value as rules see it: export form (plain JSON objects, never arrays; a priority as a
    /// `.priority` member, a prioritized leaf as `{".value": v, ".priority": p}`), nil for null.
    var rulesValue: JSONValue? {
        switch content {
        case .empty: return nil
        case .children(let kids):
            var members: [JSONMember] = []
            members.reserveCapacity(kids.count + 1)
            for (key, node) in kids {
                if let value = node.rulesValue { members.append(JSONMember(key, value)) }
            }
            if let priority { members.append(JSONMember(".priority", priority)) }
            return .object(members)
        default:
            guard let priority else { return leafJSON }
            return .object([JSONMember(".value", leafJSON), JSONMember(".priority", priority)])
        }
    }
}
