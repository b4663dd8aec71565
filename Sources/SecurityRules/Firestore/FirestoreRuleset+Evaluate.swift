package import EmulatorSupport

extension FirestoreRuleset {
    /// Checks one request: allowed when any `allow` for its method, in any match block that
    /// matches its path, evaluates to true. A denial names every rule that was tried:
    /// `false for 'update' @ L5, Null value error. for 'update' @ L9`.
    /// With `tracing`, the decision lists every allow whose condition ran (``RulesDecision/evaluated``).
    package func evaluate(_ request: FirestoreRulesRequest, data: any FirestoreRulesDataSource, tracing: Bool = false) -> RulesDecision {
        var evaluator = FirestoreEvaluator(functions: functions, data: data, projectID: request.projectID)
        if tracing {
            evaluator.trace = []
            evaluator.hits = []
        }
        var matches: FirestoreMatchCache?
        var decision = evaluate(request, with: &evaluator, resolveMethod: nil, index: 0, matches: &matches, cachesMatches: false)
        if let trace = evaluator.trace { decision.evaluated = trace }
        if let hits = evaluator.hits { decision.expressions = hits }
        return decision
    }

    /// Checks every write of a batch or transaction: all must be allowed. `getAfter` sees the
    /// whole batch through `data`; document-access calls are limited to 10 per write and 20 in all.
    package func evaluateBatch(_ requests: [FirestoreRulesRequest], data: any FirestoreRulesDataSource) -> RulesDecision {
        evaluateBatch(count: requests.count, data: data) { requests[$0] }
    }

    /// ``evaluateBatch(_:data:)`` over `count` requests built one at a time by `request(i)`, so
    /// that a large batch never holds them all. `resolveMethod(i)` gives the real method
    /// (`create` or `update`) of a request built with ``FirestoreRulesRequest/existenceUnknown``;
    /// it is asked only when an `allow` names one of the two but not both, or to word a denial.
    package func evaluateBatch(
        count: Int, data: any FirestoreRulesDataSource, resolveMethod: ((Int) -> FirestoreRulesMethod)? = nil,
        tracing: Bool = false, _ request: (Int) -> FirestoreRulesRequest
    ) -> RulesDecision {
        guard count > 0 else { return .allowed() }
        var next = request(0)
        var evaluator = FirestoreEvaluator(functions: functions, data: data, projectID: next.projectID)
        if tracing {
            evaluator.trace = []
            evaluator.hits = []
        }
        var debugOutput: [String] = []
        var matches: FirestoreMatchCache?
        for i in 0..<count {
            if i > 0 { next = request(i) }
            evaluator.accessCallsLeftInRequest = 10
            if !evaluator.accessCache.isEmpty { evaluator.accessCache = [:] }
            let decision = evaluate(
                next, with: &evaluator, resolveMethod: resolveMethod, index: i, matches: &matches, cachesMatches: count > 1)
            if !decision.debugOutput.isEmpty {
                debugOutput += decision.debugOutput
                evaluator.debugOutput = []
            }
            if !decision.isAllowed {
                return RulesDecision(
                    isAllowed: false, message: decision.message, debugOutput: debugOutput, evaluated: evaluator.trace ?? [],
                    expressions: evaluator.hits ?? [])
            }
        }
        return RulesDecision(
            isAllowed: true, message: "", debugOutput: debugOutput, evaluated: evaluator.trace ?? [], expressions: evaluator.hits ?? [])
    }

    private struct Candidate {
        var allow: FirestoreAllow
        var frame: [RulesValue]
    }

    private func evaluate(
        _ request: borrowing FirestoreRulesRequest, with evaluator: inout FirestoreEvaluator,
        resolveMethod: ((Int) -> FirestoreRulesMethod)?, index: Int,
        matches: inout FirestoreMatchCache?, cachesMatches: Bool
    ) -> RulesDecision {
        evaluator.steps = 0
        let names = request.segments
        var method = request.method
        // A create-or-update whose document was not looked up: allows naming both apply alike;
        // the real method is asked for only when an allow names one of them, or for a denial.
        var undecided = request.existenceUnknown && decidesWritesWithoutExistence && resolveMethod != nil
        if request.existenceUnknown && !undecided, let resolveMethod { method = resolveMethod(index) }
        func decide() -> FirestoreRulesMethod {
            if undecided, let resolveMethod {
                method = resolveMethod(index)
                undecided = false
            }
            return method
        }
        // Any parent path of a collection-group query: only a recursive wildcard can stand for it.
        let path = MatchPath(names: names, anyParentsAt: request.isCollectionGroup && names.count >= 4 ? 3 : nil, listTail: method == .list)
        // Rules that never name `resource` need not see it (slot 1 is never read).
        let resource = readsResource ? request.resource.map(FirestoreEvaluator.resourceValue) ?? .null : .null
        // Built on first need: a batch's kept outcomes may make it unneeded.
        var requestValue: RulesValue?

        if method == .list {
            var frame: [RulesValue] = [Self.requestValue(request), resource]
            frame.reserveCapacity(8)
            var candidates: [Candidate] = []
            _ = forEachAllow(tree, path, 0, &frame, .list) { allow, frame in
                candidates.append(Candidate(allow: allow, frame: frame))
                return false
            }
            if candidates.isEmpty { return .denied(RulesDecision.noMatchingRuleMessage) }
            let query = request.query ?? RulesQuery()
            // Every document the query could return must pass: check each disjunct symbolically.
            for disjunct in Self.expand(query.disjuncts) {
                let symbolic = RulesValue.symbolic(Self.symbolicDocument(disjunct))
                let (granted, reasons) = firstGrant(candidates, method, replacingResource: symbolic, &evaluator)
                if !granted { return .denied(reasons.joined(separator: ", "), debugOutput: evaluator.debugOutput) }
            }
            return .allowed(debugOutput: evaluator.debugOutput)
        }

        // Other methods: check each matching allow where it is found, in order; the first grant wins.
        var found = false
        var granted = false
        var reasons: [(reason: String, line: Int)] = []
        let methods: FirestoreMethodSet = undecided ? [.create, .update] : FirestoreMethodSet(method)
        /// Whether `allow` applies to the method (deciding it if needed).
        func applies(_ allow: FirestoreAllow) -> Bool {
            // An allow for only one of create and update: from here on the real method decides.
            if undecided, !allow.methods.isSuperset(of: [.create, .update]) { _ = decide() }
            return undecided || allow.methods.contains(method)
        }
        func consider(_ allow: FirestoreAllow, _ frame: [RulesValue]) -> Bool {
            guard applies(allow) else { return false }
            return record(allow, Self.check(allow, frame, &evaluator))
        }
        func record(_ allow: FirestoreAllow, _ outcome: Outcome) -> Bool {
            found = true
            switch outcome {
            case .granted:
                granted = true
                return true
            case .denied(let reason):
                reasons.append((reason, allow.line))
                return false
            case .limit(let reason):
                reasons = [(reason, allow.line)]
                return true
            }
        }
        let id = names.last ?? ""
        let cacheable =
            cachesMatches && !names.isEmpty && path.anyParentsAt == nil && !isLiteral(id) && id != FirestoreMatchCache.sentinel
        // A sibling of the last document matched in this batch: reuse its walk.
        if cacheable, matches?.covers(names, methods) != true { matches = matchCache(names, methods) }
        if cacheable, matches?.isUsable == true, var cache = matches {
            matches = nil  // so that `cache` is the only reference while it is updated
            cache.keepOutcomes(for: request.preparedAuth)
            for k in cache.entries.indices {
                let allow = cache.entries[k].allow
                guard applies(allow) else { continue }
                // A condition that reads only the caller and the parent's bindings: its outcome
                // for an earlier sibling stands, steps included.
                if let kept = cache.entries[k].outcome, evaluator.steps + kept.steps <= FirestoreEvaluator.stepLimit {
                    evaluator.steps += kept.steps
                    if evaluator.trace != nil {
                        evaluator.trace?.append(
                            RulesLineOutcome(line: allow.line, column: allow.column, outcome: kept.granted ? .allow : kept.reason == "false" ? .deny : .error))
                    }
                    if record(allow, kept.granted ? .granted : .denied(kept.reason)) { break }
                    continue
                }
                if requestValue == nil { requestValue = Self.requestValue(request) }
                let frame = FirestoreMatchCache.frame(
                    cache.entries[k], request: requestValue ?? .null, resource: resource, id: id)
                let before = evaluator.steps
                let outcome = Self.check(allow, frame, &evaluator)
                if cache.entries[k].isConstant, evaluator.steps <= FirestoreEvaluator.stepLimit {
                    switch outcome {
                    case .granted: cache.keep((true, "", evaluator.steps - before), at: k)
                    case .denied(let reason): cache.keep((false, reason, evaluator.steps - before), at: k)
                    case .limit: break
                    }
                }
                if record(allow, outcome) { break }
            }
            matches = cache
        } else {
            var frame: [RulesValue] = [Self.requestValue(request), resource]
            frame.reserveCapacity(8)
            _ = forEachAllow(tree, path, 0, &frame, methods, consider)
        }
        if !found { return .denied(RulesDecision.noMatchingRuleMessage) }
        if granted { return .allowed(debugOutput: evaluator.debugOutput) }
        let named = decide().rawValue
        return .denied(
            reasons.map { "\($0.reason) for '\(named)' @ L\($0.line)" }.joined(separator: ", "), debugOutput: evaluator.debugOutput)
    }

    /// The walk for `names` with its last segment replaced by the sentinel (``FirestoreMatchCache``).
    private func matchCache(_ names: [String], _ methods: FirestoreMethodSet) -> FirestoreMatchCache {
        let parent = Array(names.dropLast())
        var probe = parent
        probe.append(FirestoreMatchCache.sentinel)
        var usable = !parent.contains(FirestoreMatchCache.sentinel)
        var entries: [FirestoreMatchCache.Entry] = []
        var frame: [RulesValue] = [.null, .null]
        _ = forEachAllow(tree, MatchPath(names: probe, anyParentsAt: nil, listTail: false), 0, &frame, methods) { allow, frame in
            var entry = FirestoreMatchCache.Entry(allow: allow, bindings: Array(frame.dropFirst(2)), idSlots: [])
            for (slot, value) in entry.bindings.enumerated() {
                if case .string(let s) = value, s == FirestoreMatchCache.sentinel {
                    entry.idSlots.append(slot)
                } else if FirestoreMatchCache.mentionsSentinel(value) {
                    usable = false
                }
            }
            if let condition = allow.condition {
                entry.isConstant = readsOnlyAuthAndBindings(condition, excluding: entry.idSlots.map { $0 + 2 })
            }
            entries.append(entry)
            return false
        }
        return FirestoreMatchCache(parent: parent, methods: methods, entries: entries, isUsable: usable)
    }

    private enum Outcome {
        case granted
        /// `false` (the caller appends ` for 'update' @ L5`)
        case denied(String)
        /// A document-access limit was exceeded: the request is denied outright.
        case limit(String)
    }

    /// Evaluates one allow's condition in `frame`.
    private static func check(_ allow: FirestoreAllow, _ frame: [RulesValue], _ evaluator: inout FirestoreEvaluator) -> Outcome {
        let outcome = checkCondition(allow, frame, &evaluator)
        if evaluator.trace != nil {
            let traced: RulesOutcome =
                switch outcome {
                case .granted: .allow
                case .denied(let reason): reason == "false" ? .deny : .error
                case .limit: .error
                }
            evaluator.trace?.append(RulesLineOutcome(line: allow.line, column: allow.column, outcome: traced))
        }
        return outcome
    }

    private static func checkCondition(_ allow: FirestoreAllow, _ frame: [RulesValue], _ evaluator: inout FirestoreEvaluator) -> Outcome {
        guard let condition = allow.condition else { return .granted }
        let reason: String
        do throws(RulesEvaluationError) {
            switch try evaluator.evaluate(condition, frame) {
            case .bool(true) where evaluator.accessLimitMessage == nil: return .granted
            case .bool(false): reason = "false"
            case let other: reason = "Condition is not a boolean: \(other.typeName)."
            }
        } catch {
            reason = error.message
        }
        if let limit = evaluator.accessLimitMessage { return .limit(limit) }
        return .denied(reason)
    }

    private func firstGrant(
        _ candidates: [Candidate], _ method: FirestoreRulesMethod, replacingResource: RulesValue,
        _ evaluator: inout FirestoreEvaluator
    ) -> (Bool, [String]) {
        var reasons: [String] = []
        for candidate in candidates {
            var frame = candidate.frame
            frame[1] = replacingResource
            switch Self.check(candidate.allow, frame, &evaluator) {
            case .granted: return (true, [])
            case .denied(let reason): reasons.append("\(reason) for '\(method.rawValue)' @ L\(candidate.allow.line)")
            case .limit(let reason): return (false, ["\(reason) for '\(method.rawValue)' @ L\(candidate.allow.line)"])
            }
        }
        return (false, reasons)
    }

    /// The request path as match patterns see it: its segments, plus the unknown parents of a
    /// collection-group query and the unbound document id of a `list` (one extra segment each).
    struct MatchPath {
        enum Segment {
            case name(String)
            /// The parents of a collection-group query: only a recursive wildcard matches them.
            case anyParents
            /// The document id of a `list`: matches a wildcard, which errors when read.
            case unbound
        }

        let names: [String]
        let anyParentsAt: Int?
        let listTail: Bool

        var count: Int { names.count + (anyParentsAt == nil ? 0 : 1) + (listTail ? 1 : 0) }

        /// Whether segment `index` is the name `text`.
        func segment(_ index: Int, equals text: String) -> Bool {
            var i = index
            if let at = anyParentsAt {
                if i == at { return false }
                if i > at { i -= 1 }
            }
            return i < names.count && names[i] == text
        }

        func segment(_ index: Int) -> Segment {
            var i = index
            if let at = anyParentsAt {
                if i == at { return .anyParents }
                if i > at { i -= 1 }
            }
            return i < names.count ? .name(names[i]) : .unbound
        }
    }

    /// Calls `visit` with every allow for `methods` in blocks below `block` whose full pattern
    /// matches `path` from segment `start`, in order, with the frame of its bindings; stops (and
    /// returns true) as soon as `visit` returns true. `frame` is restored on return.
    private func forEachAllow(
        _ block: FirestoreMatchNode, _ path: MatchPath, _ start: Int, _ frame: inout [RulesValue],
        _ methods: FirestoreMethodSet, _ visit: (FirestoreAllow, [RulesValue]) -> Bool
    ) -> Bool {
        for child in block.children where !child.methodsBelow.isDisjoint(with: methods) {
            if match(child, 0, path, start, &frame, methods, visit) { return true }
        }
        return false
    }

    /// Matches `child`'s pattern from `p` against `path[s...]`; where the pattern ends, visits the
    /// child's allows (when the path ends there too) and descends into its blocks.
    private func match(
        _ child: FirestoreMatchNode, _ p: Int, _ path: MatchPath, _ s: Int, _ frame: inout [RulesValue],
        _ methods: FirestoreMethodSet, _ visit: (FirestoreAllow, [RulesValue]) -> Bool
    ) -> Bool {
        var p = p
        var s = s
        // Literals consume no frame slot: compare them in a loop.
        while p < child.kinds.count, child.kinds[p] == .literal {
            guard s < path.count, path.segment(s, equals: child.texts[p]) else { return false }
            p += 1
            s += 1
        }
        guard p < child.kinds.count else {
            if s == path.count {
                for i in child.allowMethods.indices where !child.allowMethods[i].isDisjoint(with: methods) {
                    if visit(child.allows[i], frame) { return true }
                }
            }
            return forEachAllow(child, path, s, &frame, methods, visit)
        }
        if child.kinds[p] == .single {
            guard s < path.count else { return false }
            switch path.segment(s) {
            case .name(let segment): frame.append(.string(segment))
            case .anyParents: return false
            case .unbound: frame.append(.unbound("Variable \(child.texts[p]) is not bound for a list request."))
            }
            defer { frame.removeLast() }
            return match(child, p + 1, path, s + 1, &frame, methods, visit)
        }
        let minimum = version >= 2 ? 0 : 1
        let remaining = path.count - s
        for count in (p + 1 == child.kinds.count ? remaining : 0)...remaining where count >= minimum {
            frame.append(recursiveBinding(child.texts[p], path, s, s + count))
            defer { frame.removeLast() }
            if match(child, p + 1, path, s + count, &frame, methods, visit) { return true }
        }
        return false
    }

    /// What `{name=**}` binds to `path[from..<to]`: a path (v2) or a string (v1), unbound when
    /// it covers the unknown parents or document id of a query.
    private func recursiveBinding(_ name: String, _ path: MatchPath, _ from: Int, _ to: Int) -> RulesValue {
        var parts: [String] = []
        parts.reserveCapacity(to - from)
        for i in from..<to {
            guard case .name(let part) = path.segment(i) else { return .unbound("Variable \(name) is not bound for a list request.") }
            parts.append(part)
        }
        return version >= 2 ? .path(RulesPath(segments: parts)) : .string(parts.joined(separator: "/"))
    }

    /// `databases/(default)/documents/c/d` segments of a name, without any `projects/{p}/` prefix.
    static func relativeSegments(_ name: String) -> [String] {
        var name = name
        return name.withUTF8 { bytes in
            var segments: [String] = []
            segments.reserveCapacity(8)
            var start = 0
            for i in 0...bytes.count where i == bytes.count || bytes[i] == UInt8(ascii: "/") {
                if i > start { segments.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)) }
                start = i + 1
            }
            if segments.count >= 2, segments[0] == "projects" { segments.removeFirst(2) }
            return segments
        }
    }

    /// `request`, read member by member (``RulesRequestMap``).
    static func requestValue(_ request: borrowing FirestoreRulesRequest) -> RulesValue {
        var resource: RulesValue?
        if request.method == .delete {
            // A delete has no new document [unverified: null rather than absent].
            resource = .null
        }
        if request.method == .create || request.method == .update, let newResource = request.newResource {
            resource = FirestoreEvaluator.resourceValue(newResource)
        }
        var query: RulesValue?
        if request.method == .list {
            let constraints = request.query ?? RulesQuery()
            var orderBy: [String: RulesValue] = [:]
            for order in constraints.orderBy { orderBy[order.field] = .string(order.descending ? "DESC" : "ASC") }
            query = .map([
                "limit": constraints.limit.map { .int($0) } ?? .null,
                "offset": constraints.offset.map { .int($0) } ?? .null,
                "orderBy": .map(orderBy),
            ])
        }
        return .lazy(
            .request(
                RulesRequestMap(
                    method: request.method, segments: request.segments, time: request.time,
                    auth: request.preparedAuth?.value ?? .null, resource: resource, query: query)))
    }

    /// Splits `in` and `array-contains-any` filters into one disjunct per value.
    static func expand(_ disjuncts: [[RulesQueryFilter]]) -> [[RulesQueryFilter]] {
        var result: [[RulesQueryFilter]] = []
        for disjunct in disjuncts {
            var partial: [[RulesQueryFilter]] = [[]]
            for filter in disjunct {
                if filter.op == .in, case .list(let values) = filter.value, !values.isEmpty {
                    partial = partial.flatMap { prefix in
                        values.map { prefix + [RulesQueryFilter(field: filter.field, op: .equal, value: $0)] }
                    }
                } else {
                    partial = partial.map { $0 + [filter] }
                }
            }
            result.append(contentsOf: partial)
        }
        return result.isEmpty ? [[]] : result
    }

    static func symbolicDocument(_ filters: [RulesQueryFilter]) -> RulesSymbolicDocument {
        var document = RulesSymbolicDocument(prefix: [], isResource: true, pinned: [:], ranges: [:])
        for filter in filters {
            switch filter.op {
            case .equal: document.pinned[filter.field] = filter.value
            case .greater, .greaterOrEqual:
                var range = document.ranges[filter.field] ?? RulesRange()
                range.lower = filter.value
                range.lowerInclusive = filter.op == .greaterOrEqual
                document.ranges[filter.field] = range
            case .less, .lessOrEqual:
                var range = document.ranges[filter.field] ?? RulesRange()
                range.upper = filter.value
                range.upperInclusive = filter.op == .lessOrEqual
                document.ranges[filter.field] = range
            default: break
            }
        }
        return document
    }
}

extension RulesValue {
    /// Converts a JSON value (token claims): integers stay `int`, other numbers become `float`.
    package init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .double(let d): self = .float(d)
        case .string(let s): self = .string(s)
        case .array(let items): self = .list(items.map(RulesValue.init(json:)))
        case .object(let members):
            var map: [String: RulesValue] = [:]
            for member in members { map[member.name] = RulesValue(json: member.value) }
            self = .map(map)
        }
    }
}
