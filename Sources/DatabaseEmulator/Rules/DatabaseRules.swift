import EmulatorModel
import EmulatorSupport
import SecurityRules

/// A namespace's rules: the file as written and the SecurityRules ruleset compiled from it. Every
/// read, stream, listen and write of every transport is checked here, against the data read
/// straight from storage (`DatabaseSnapshotSource`) and, for a write, the write's own values; the
/// admin (`owner`) passes without asking. With a `logger`, every denial is logged at debug
/// verbosity naming the rule that decided it (path, line and expression), as Firestore's are.
///
/// ```swift
/// let rules = try DatabaseRules.compile(source, logger: nil).get()
/// rules.mayRead(path, query: .all, auth: auth, now: now, data: namespace.head)
/// ```
struct DatabaseRules: Sendable {
    /// The rules file as it was installed (`GET /.settings/rules.json` returns it).
    let source: [UInt8]
    let ruleset: DatabaseRuleset
    let logger: Logger?
    /// How often each rule ran (`/.inspect/coverage`).
    let coverage: RulesCoverage
    /// Where decisions go for the Emulator UI's Requests view; nil: nowhere.
    let requestLog: RulesRequestLog?
    /// `.read` is `true` at the root: every read is allowed, nothing is evaluated.
    private let readsOpen: Bool
    /// `.write` is `true` at the root and no `.validate` exists: every write is allowed.
    private let writesOpen: Bool

    private init(source: [UInt8], ruleset: DatabaseRuleset, logger: Logger?, requestLog: RulesRequestLog?) {
        self.source = source
        self.ruleset = ruleset
        self.logger = logger
        self.requestLog = requestLog
        coverage = RulesCoverage(
            source: RulesSourceText(fileName: "database.rules.json", text: String(decoding: source, as: UTF8.self)),
            rules: ruleset.rulePositions,
            quick: [ruleset.rootRulePosition(write: false), ruleset.rootRulePosition(write: true)].map {
                $0 ?? SourcePosition(line: 0, column: 0)
            },
            expressions: ruleset.expressionSpans)
        readsOpen = ruleset.grantsEveryRead
        writesOpen = ruleset.grantsEveryWrite
    }

    /// Compiles a rules file (`{"rules": {…}}`, comments allowed); a failure carries the message
    /// `{"error": …}` answers with.
    static func compile(
        _ source: [UInt8], logger: Logger?, requestLog: RulesRequestLog? = nil
    ) -> Result<DatabaseRules, DatabaseRulesCompileError> {
        switch DatabaseRuleset.parse(String(decoding: source, as: UTF8.self), fileName: "database.rules.json") {
        case .success(let ruleset): .success(DatabaseRules(source: source, ruleset: ruleset, logger: logger, requestLog: requestLog))
        case .failure(let diagnostics): .failure(DatabaseRulesCompileError(diagnostics.description))
        }
    }

    /// The rules every namespace starts with: open reads and writes, as the emulator defaults.
    /// Each call has its own coverage counts; the ruleset is parsed once per process, as every
    /// new namespace (each connection to a new name, each read of one past the kept ones) starts
    /// with these rules.
    static func standard(logger: Logger?, requestLog: RulesRequestLog? = nil) -> DatabaseRules {
        DatabaseRules(source: standardSource, ruleset: standardRuleset, logger: logger, requestLog: requestLog)
    }

    private static let standardSource = Array(DatabaseDefaultRules.source.utf8)

    /// The default rules as parsed from their text, so that coverage points into it.
    private static let standardRuleset: DatabaseRuleset = {
        let parsed = DatabaseRuleset.parse(String(decoding: standardSource, as: UTF8.self), fileName: "database.rules.json")
        if case .success(let ruleset) = parsed { return ruleset }
        return .defaultRules()
    }()

    /// May `auth` read `path` with `query`, given `data`? `now` is server time (ms).
    func mayRead(
        _ path: DatabasePath, query: DatabaseQueryParams, auth: DatabaseAuth, now: Int64, data: DatabaseSnapshotSource
    ) -> Bool {
        if auth.isAdmin {
            if let requestLog { record(.owner, "read", path, auth, decision: nil, write: nil, data: data, in: requestLog) }
            return true
        }
        if readsOpen {
            grantedOpen(write: false, path, auth, nil, data)
            return true
        }
        let decision = ruleset.canRead(
            path: path.keys, auth: Self.context(auth), now: now, data: data, query: Self.rulesQuery(query), tracing: true)
        coverage.add(decision)
        if let requestLog {
            record(RulesRequestRecord.outcome(of: decision), "read", path, auth, decision: decision, write: nil, data: data, in: requestLog)
        }
        if !decision.isAllowed { logger?.debug("PERMISSION_DENIED read \(path): \(decision.message)") }
        return decision.isAllowed
    }

    /// Counts and records a request open rules granted without evaluating anything.
    private func grantedOpen(write: Bool, _ path: DatabasePath, _ auth: DatabaseAuth, _ change: DatabaseWrite?, _ data: DatabaseSnapshotSource) {
        coverage.addAllowed(slot: write ? 1 : 0)
        if let requestLog, let position = ruleset.rootRulePosition(write: write) {
            let line = [RulesLineOutcome(line: position.line, column: position.column, outcome: .allow)]
            record(.allow, write ? "write" : "read", path, auth, decision: RulesDecision(isAllowed: true, message: "", evaluated: line),
                   write: change, data: data, in: requestLog)
        }
    }

    /// How many stored entries of the data a rule saw the Requests view keeps (per decision,
    /// only while a page watches): enough to read a small node whole, bounded for a large one.
    static let keptDataEntries = 200

    /// Puts one decision into the Requests view's log; the text is made only when a page reads
    /// it. While a page watches, it keeps `data` at the path as the rules saw it (at most
    /// ``keptDataEntries`` stored entries) and the write's new data.
    private func record(
        _ outcome: RulesOutcome, _ method: String, _ path: DatabasePath, _ auth: DatabaseAuth, decision: RulesDecision?,
        write: DatabaseWrite?, data: DatabaseSnapshotSource, in log: RulesRequestLog
    ) {
        let watched = log.isWatched
        let change = watched ? write : nil
        let seen = watched ? data.boundedValue(at: path, limit: Self.keptDataEntries) : nil
        log.record(
            RulesRequestRecord(
                time: log.now(), emulator: "database", outcome: outcome, lines: decision?.evaluated ?? [],
                message: decision?.message ?? "", rules: coverage.source,
                describe: {
                    var uid: String?
                    if case .string(let value)? = auth.variable[member: "uid"] { uid = value }
                    var request: [JSONMember] = [
                        JSONMember("method", .string(method)), JSONMember("path", .string(path.description)),
                        JSONMember("auth", auth.isAdmin ? .string("owner") : auth.variable),
                    ]
                    if let change {
                        request.append(JSONMember("newData", .object(change.changes.map { location, node in
                            JSONMember(location.description, node.isEmpty ? .null : node.json(export: true))
                        })))
                    }
                    // `data` as the rules saw it (before a write), as the Firestore detail shows `resource`.
                    var resource: JSONValue?
                    if let seen {
                        var members = [JSONMember("data", seen.value ?? .null)]
                        if seen.truncated {
                            members.append(JSONMember("truncated", .string("only the first \(Self.keptDataEntries) stored values are kept")))
                        }
                        resource = .object(members)
                    }
                    return RulesRequestDescription(
                        method: method, path: path.description, uid: uid, request: .object(request), resource: resource)
                }))
    }

    /// May `auth` make `write` over `data`? Each location is checked as the rules engine checks
    /// a multi-path update, with the write's own (resolved) values as `newData`; a location
    /// ending in `.priority` is a write of its node.
    func mayWrite(_ write: DatabaseWrite, auth: DatabaseAuth, now: Int64, data: DatabaseSnapshotSource) -> Bool {
        if auth.isAdmin {
            if let requestLog {
                for location in write.locations {
                    record(.owner, "write", location, auth, decision: nil, write: write, data: data, in: requestLog)
                }
            }
            return true
        }
        if writesOpen {
            grantedOpen(write: true, write.firstLocation, auth, write, data)
            return true
        }
        let writes = write.changes.map { location, node -> (path: [String], value: JSONValue?) in
            if location.keys.last == DatabaseStorageMapping.priorityKey { return (location.keys, node.priorityValue) }
            return (location.keys, node.isEmpty ? nil : node.json(export: true))
        }
        let decision = ruleset.canUpdate(multiPath: writes, auth: Self.context(auth), now: now, data: data, tracing: true)
        coverage.add(decision)
        if let requestLog {
            record(RulesRequestRecord.outcome(of: decision), "write", write.firstLocation, auth, decision: decision,
                   write: write, data: data, in: requestLog)
        }
        if !decision.isAllowed {
            let locations = write.locations.map(\.description).joined(separator: " ")
            logger?.debug("PERMISSION_DENIED write \(locations): \(decision.message)")
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

    /// The read's query as `.read` rules see it (`query.orderByChild`, `query.limitToFirst`, …).
    static func rulesQuery(_ query: DatabaseQueryParams) -> DatabaseRulesQuery {
        guard query.ordered else { return DatabaseRulesQuery() }
        var result = DatabaseRulesQuery()
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

package struct DatabaseRulesCompileError: Error, Sendable, Equatable {
    package var message: String
    package init(_ message: String) { self.message = message }
}

/// The rules every namespace starts with: open reads and writes, as the emulator defaults.
package enum DatabaseDefaultRules {
    package static let source = "{\n  \"rules\": {\n    \".read\": true,\n    \".write\": true\n  }\n}"
}
