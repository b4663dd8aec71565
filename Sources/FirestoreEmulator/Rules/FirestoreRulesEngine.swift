import EmulatorModel
package import EmulatorSupport
package import SecurityRules
import Synchronization

/// Connects the rules gate to the SecurityRules engine: compiles `firestore.rules` sources and
/// turns each access into a `FirestoreRulesRequest` (auth from the bearer token, `resource`,
/// `request.resource`, query constraints for `list`).
///
/// ```swift
/// let (gate, issues) = FirestoreRulesEngine.compile(source)
/// let emulator = FirestoreEmulator(storage: engine, configuration: .init(rules: gate ?? .allowAll,
///     rulesLoader: FirestoreRulesEngine.loader))
/// ```
package enum FirestoreRulesEngine {
    /// Compiles a rules source; a source with errors gives no gate and ERROR issues. With a
    /// `logger`, every `debug(x)` a rule evaluates is logged (info, `debug: <x>`) and so is every
    /// denial with the rule that decided it (debug level).
    /// With a `requestLog`, every decision (and every owner request) is recorded there for the
    /// Emulator UI. With `coverage` (the default, as the official emulator always counts) the gate
    /// counts how often each rule ran (``FirestoreRulesGate/coverage``); off only to measure its cost.
    package static func compile(
        _ source: String, fileName: String = "firestore.rules", logger: Logger? = nil, requestLog: RulesRequestLog? = nil,
        coverage counting: Bool = true
    ) -> (gate: FirestoreRulesGate?, issues: [FirestoreRulesIssue]) {
        switch FirestoreRuleset.parse(source, fileName: fileName) {
        case .success(let ruleset):
            let coverage =
                counting
                ? RulesCoverage(
                    source: RulesSourceText(fileName: fileName, text: source), rules: ruleset.rulePositions,
                    expressions: ruleset.expressionSpans) : nil
            return (gate(ruleset, logger: logger, coverage: coverage, requestLog: requestLog), [])
        case .failure(let diagnostics):
            let issues = diagnostics.diagnostics.map {
                FirestoreRulesIssue(line: $0.line, column: $0.column, description: $0.message, severity: "ERROR")
            }
            return (nil, issues)
        }
    }

    /// The loader for `PUT /emulator/v1/projects/{p}:securityRules`.
    package static let loader: FirestoreRulesLoader = { compile($0) }

    /// The loader for `:securityRules`, logging `debug()` output and denials to `logger`.
    package static func loader(logger: Logger?, requestLog: RulesRequestLog? = nil) -> FirestoreRulesLoader {
        { compile($0, logger: logger, requestLog: requestLog) }
    }

    /// How the Requests view names a document: `/databases/{d}/documents/c/d`.
    static func displayPath(_ database: DatabaseID, _ path: ResourcePath) -> String {
        path.isEmpty ? "/databases/\(database.database)/documents" : "/databases/\(database.database)/documents/\(path)"
    }

    static func gate(
        _ ruleset: FirestoreRuleset, logger: Logger? = nil, coverage: RulesCoverage? = nil, requestLog: RulesRequestLog? = nil
    ) -> FirestoreRulesGate {
        var gate = FirestoreRulesGate(
            readsStoredFields: ruleset.readsResource, decidesWritesWithoutExistence: ruleset.decidesWritesWithoutExistence,
            decidingBatch: { accesses, before, after in
            guard let first = accesses.first else { return nil }
            // The writes of a batch come from one caller: decode and convert its token once.
            let shared: FirestoreRulesAuth?
            switch auth(first.caller) {
            case .success(let prepared): shared = prepared
            case .failure(let error): return error
            }
            var perAccess: [FirestoreRulesAuth?] = []
            // Index the array: a `contains` closure would copy every access.
            var mixed = false
            for i in accesses.indices where accesses[i].caller != first.caller {
                mixed = true
                break
            }
            if mixed {
                for access in accesses {
                    switch auth(access.caller) {
                    case .success(let prepared): perAccess.append(prepared)
                    case .failure(let error): return error
                    }
                }
            }
            return withoutActuallyEscaping(before) { before in
                withoutActuallyEscaping(after) { after in
                    let source = LookupSource(database: first.database, before: before, after: after)
                    // Read each access in place: an array subscript would copy it per write.
                    var existence = ExistenceResolver()
                    // A batch is in one database (as `source` assumes too).
                    let prefix = ["databases", first.database.database, "documents"]
                    let decision = accesses.withUnsafeBufferPointer { accesses in
                        ruleset.evaluateBatch(
                            count: accesses.count, data: source,
                            resolveMethod: { i in existence.method(of: i, in: accesses, before: before) },
                            tracing: coverage != nil || requestLog != nil
                        ) { i in
                            request(
                                accesses.baseAddress.unsafelyUnwrapped + i, auth: perAccess.isEmpty ? shared : perAccess[i],
                                prefix: prefix)
                        }
                    }
                    if let logger {
                        for line in decision.debugOutput { logger.info("debug: \(line)") }
                        if !decision.isAllowed {
                            logger.debug(
                                "PERMISSION_DENIED \(first.method.rawValue) \(first.database.documentName(first.path)): \(decision.message)")
                        }
                    }
                    coverage?.add(decision)
                    if let requestLog {
                        // A write sent without looking its document up: the Requests view names
                        // the method production's rules see (create or update), as `request.method` is.
                        let method = first.existenceUnknown
                            ? accesses.withUnsafeBufferPointer { existence.method(of: 0, in: $0, before: before) } : nil
                        record(decision, first, count: accesses.count, coverage: coverage, in: requestLog, method: method)
                    }
                    return decision.isAllowed ? nil : .permissionDenied(decision.firestoreWireMessage)
                }
            }
        })
        gate.coverage = coverage
        gate.requestLog = requestLog
        return gate
    }

    /// Puts one decision into the Requests view's log. Nothing textual is built here: the
    /// record keeps the access (without its documents while no page watches) and describes it
    /// when read.
    static func record(
        _ decision: RulesDecision, _ first: FirestoreAccess, count: Int, coverage: RulesCoverage?, in log: RulesRequestLog,
        method: FirestoreRulesMethod? = nil
    ) {
        var access = first
        if let method, let resolved = FirestoreAccess.Method(rawValue: method.rawValue) {
            access.method = resolved
            access.existenceUnknown = false
        }
        if !log.isWatched {
            access.resource = nil
            access.requestResource = nil
            access.query = nil
        }
        let kept = access
        log.record(
            RulesRequestRecord(
                time: log.now(), emulator: "firestore", outcome: RulesRequestRecord.outcome(of: decision),
                lines: decision.evaluated, message: decision.message, debugOutput: decision.debugOutput, rules: coverage?.source,
                describe: { describe(kept, count: count) }))
    }

    /// The Requests view's description of an access: method, path, uid, `request` and `resource`.
    static func describe(_ access: FirestoreAccess, count: Int) -> RulesRequestDescription {
        var uid: String?
        var auth: JSONValue = .null
        if case .user(let token) = access.caller, case .some(.some(let prepared)) = parsedTokens.auth(token) {
            uid = prepared.context.uid
            auth = .object([JSONMember("uid", .string(prepared.context.uid)), JSONMember("token", prepared.context.token)])
        }
        let method = access.existenceUnknown ? "write" : access.method.rawValue
        var request: [JSONMember] = [
            JSONMember("method", .string(method)),
            JSONMember("path", .string(displayPath(access.database, access.path))),
            JSONMember("auth", auth),
            JSONMember("time", .string(Timestamp(microseconds: access.time).description)),
        ]
        if let fields = access.requestResource {
            request.append(JSONMember("resource", .object([JSONMember("data", fields.firestoreFieldsJSON)])))
        }
        if let query = access.query {
            var q: [JSONMember] = []
            if let limit = query.limit { q.append(JSONMember("limit", .int(Int64(limit)))) }
            if query.offset > 0 { q.append(JSONMember("offset", .int(Int64(query.offset)))) }
            q.append(JSONMember("orderBy", .array(query.orderBy.map { .string(dotted($0.field) + ($0.direction == .descending ? " desc" : "")) })))
            request.append(JSONMember("query", .object(q)))
        }
        if count > 1 { request.append(JSONMember("writesInBatch", .int(Int64(count)))) }
        let resource: JSONValue? = access.resource.map { .object([JSONMember("data", $0.fields.firestoreFieldsJSON)]) }
        return RulesRequestDescription(
            method: method, path: displayPath(access.database, access.path), uid: uid, request: .object(request), resource: resource)
    }

    /// `request.auth` for a caller; a malformed bearer token is the official "invalid jwt".
    static func auth(_ caller: FirestoreCaller) -> Result<FirestoreRulesAuth?, EmulatorError> {
        switch caller {
        case .owner, .anonymous: return .success(nil)
        case .user(let token):
            guard let context = parsedTokens.auth(token) else {
                return .failure(.invalidArgument(AuthToken.firestoreMalformedMessage))
            }
            return .success(context)
        }
    }

    /// The rules request for the access at `access` by a caller already converted, with
    /// `prefix` = `["databases", database, "documents"]` built once per batch. Read through the
    /// pointer field by field (copying a whole access costs more than building the request);
    /// documents are read in place: rules convert only the fields they touch.
    static func request(
        _ access: UnsafePointer<FirestoreAccess>, auth: FirestoreRulesAuth?, prefix: [String]
    ) -> FirestoreRulesRequest {
        let segments = prefix + access.pointee.path.segments
        let method: FirestoreRulesMethod =
            switch access.pointee.method {
            case .get: .get
            case .list: .list
            case .create: .create
            case .update: .update
            case .delete: .delete
            }
        return FirestoreRulesRequest(
            method: method, segments: segments, projectID: access.pointee.database.project, auth: auth,
            time: RulesTimestamp(Timestamp(microseconds: access.pointee.time)),
            resource: access.pointee.resource.map { RulesDocument(segments: segments, fields: $0.fields) },
            newResource: access.pointee.requestResource.map { RulesDocument(segments: segments, fields: $0) },
            query: access.pointee.query.map(rulesQuery), isCollectionGroup: access.pointee.isCollectionGroup,
            existenceUnknown: access.pointee.existenceUnknown)
    }

    /// Tokens already decoded and converted: clients send the same ID token with every request
    /// (and every write of a batch carries it), so it is decoded once.
    static let parsedTokens = TokenCache()

    /// Query constraints as rules check them: limit, offset, order and the filter in DNF.
    static func rulesQuery(_ query: StructuredQuery) -> RulesQuery {
        RulesQuery(
            limit: query.limit.map(Int64.init), offset: query.offset > 0 ? Int64(query.offset) : nil,
            orderBy: query.orderBy.map { (dotted($0.field), $0.direction == .descending) },
            disjuncts: query.filter.map(disjunctiveNormalForm) ?? [[]])
    }

    static let maxDisjuncts = 100

    static func disjunctiveNormalForm(_ filter: QueryFilter) -> [[RulesQueryFilter]] {
        switch filter {
        case .field(let path, let op, let value):
            return [[RulesQueryFilter(field: dotted(path), op: rulesOperator(op), value: RulesValue(value))]]
        case .unary(let path, let op):
            let (o, v): (RulesQueryFilter.Operator, Value) =
                switch op {
                case .isNull: (.equal, .null)
                case .isNaN: (.equal, .double(.nan))
                case .isNotNull: (.notEqual, .null)
                case .isNotNaN: (.notEqual, .double(.nan))
                }
            return [[RulesQueryFilter(field: dotted(path), op: o, value: RulesValue(v))]]
        case .composite(.or, let filters):
            return Array(filters.flatMap(disjunctiveNormalForm).prefix(maxDisjuncts))
        case .composite(.and, let filters):
            var product: [[RulesQueryFilter]] = [[]]
            for f in filters {
                let terms = disjunctiveNormalForm(f)
                var next: [[RulesQueryFilter]] = []
                for p in product { for t in terms where next.count < maxDisjuncts { next.append(p + t) } }
                product = next
            }
            return product
        }
    }

    static func dotted(_ path: FieldPath) -> String { path.segments.joined(separator: ".") }

    static func rulesOperator(_ op: QueryFilter.FieldOperator) -> RulesQueryFilter.Operator {
        switch op {
        case .lessThan: .less
        case .lessThanOrEqual: .lessOrEqual
        case .greaterThan: .greater
        case .greaterThanOrEqual: .greaterOrEqual
        case .equal: .equal
        case .notEqual: .notEqual
        case .arrayContains: .arrayContains
        case .arrayContainsAny: .arrayContainsAny
        case .in: .in
        case .notIn: .notIn
        }
    }
}

/// `get()` / `exists()` read the state before the request; `getAfter()` / `existsAfter()` the
/// state with the whole batch applied.
private struct LookupSource: FirestoreRulesDataSource, @unchecked Sendable {
    // @unchecked: the lookups are only called synchronously inside `ruleset.evaluate…`, on the
    // thread that created this value, and the value never outlives that call.
    let database: DatabaseID
    let before: FirestoreRulesGate.Lookup
    let after: FirestoreRulesGate.Lookup

    func document(_ name: String, afterWrites: Bool) -> RulesDocument? {
        guard let parsed = try? DocumentName(parsing: name),
            parsed.projectID.utf8.elementsEqual(database.project.utf8),
            parsed.databaseID.utf8.elementsEqual(database.database.utf8), parsed.path.isDocument,
            let d = (afterWrites ? after : before)(parsed.path)
        else { return nil }
        return RulesDocument(name: name, fields: d.fields)
    }
}

/// Decoded ID tokens by their text (at most `capacity`; emptied when full), converted for rules.
final class TokenCache: Sendable {
    private let entries = Mutex<[String: FirestoreRulesAuth?]>([:])
    private let capacity = 1024

    /// The caller of `token` (nil inside for a signed-out empty token), or nil when malformed.
    func auth(_ token: String) -> FirestoreRulesAuth?? {
        if let hit = entries.withLock({ $0[token] }) { return .some(hit) }
        guard case .success(let context) = AuthToken.parse(bearer: token) else { return nil }
        let prepared = context.map(FirestoreRulesAuth.init)
        entries.withLock {
            if $0.count >= capacity { $0.removeAll(keepingCapacity: true) }
            $0[token] = prepared
        }
        return .some(prepared)
    }
}
