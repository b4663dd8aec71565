package import EmulatorSupport

extension FirestoreRuleset {
    /// Checks one request: allowed when any `allow` for its method, in any match block that
    /// matches its path, evaluates to true. A denial names every rule that was tried:
    /// `false for 'update' @ L5, Null value error. for 'update' @ L9`.
    package func evaluate(_ request: FirestoreRulesRequest, data: any FirestoreRulesDataSource) -> RulesDecision {
        var evaluator = FirestoreEvaluator(functions: functions, data: data, projectID: request.projectID)
        return evaluate(request, with: &evaluator)
    }

    /// Checks every write of a batch or transaction: all must be allowed. `getAfter` sees the
    /// whole batch through `data`; document-access calls are limited to 10 per write and 20 in all.
    package func evaluateBatch(_ requests: [FirestoreRulesRequest], data: any FirestoreRulesDataSource) -> RulesDecision {
        guard let first = requests.first else { return .allowed() }
        var evaluator = FirestoreEvaluator(functions: functions, data: data, projectID: first.projectID)
        var debugOutput: [String] = []
        for request in requests {
            evaluator.accessCallsLeftInRequest = 10
            evaluator.accessCache = [:]
            let decision = evaluate(request, with: &evaluator)
            debugOutput += decision.debugOutput
            evaluator.debugOutput = []
            if !decision.isAllowed { return .denied(decision.message, debugOutput: debugOutput) }
        }
        return .allowed(debugOutput: debugOutput)
    }

    private struct Candidate {
        var allow: FirestoreAllow
        var frame: [RulesValue]
    }

    private func evaluate(_ request: FirestoreRulesRequest, with evaluator: inout FirestoreEvaluator) -> RulesDecision {
        evaluator.steps = 0
        let pathSegments = Self.relativeSegments(request.path)
        var segments: [String?] = pathSegments
        if request.isCollectionGroup, pathSegments.count >= 4 {
            // Any parent path: only a recursive wildcard can stand for it.
            segments.insert(Self.anyParents, at: 3)
        }
        if request.method == .list { segments.append(nil) }
        let requestValue = Self.requestValue(request, pathSegments: pathSegments)
        let resourceValue: RulesValue =
            request.resource.map {
                FirestoreEvaluator.resourceValue($0, segments: $0.name == request.path ? pathSegments : Self.relativeSegments($0.name))
            } ?? .null
        var candidates: [Candidate] = []
        collect(root, segments[...], [requestValue, resourceValue], request.method, &candidates)
        if candidates.isEmpty { return .denied(RulesDecision.noMatchingRuleMessage) }

        if request.method == .list {
            let query = request.query ?? RulesQuery()
            // Every document the query could return must pass: check each disjunct symbolically.
            var reasons: [String] = []
            for disjunct in Self.expand(query.disjuncts) {
                let symbolic = RulesValue.symbolic(Self.symbolicDocument(disjunct))
                let (granted, why) = firstGrant(candidates, request.method, replacingResource: symbolic, &evaluator)
                if !granted { reasons = why; return .denied(reasons.joined(separator: ", "), debugOutput: evaluator.debugOutput) }
            }
            return .allowed(debugOutput: evaluator.debugOutput)
        }
        let (granted, reasons) = firstGrant(candidates, request.method, replacingResource: nil, &evaluator)
        if granted { return .allowed(debugOutput: evaluator.debugOutput) }
        return .denied(reasons.joined(separator: ", "), debugOutput: evaluator.debugOutput)
    }

    private func firstGrant(
        _ candidates: [Candidate], _ method: FirestoreRulesMethod, replacingResource: RulesValue?,
        _ evaluator: inout FirestoreEvaluator
    ) -> (Bool, [String]) {
        var reasons: [String] = []
        for candidate in candidates {
            guard let condition = candidate.allow.condition else { return (true, []) }
            var frame = candidate.frame
            if let replacingResource { frame[1] = replacingResource }
            let reason: String
            do throws(RulesEvaluationError) {
                switch try evaluator.evaluate(condition, frame) {
                case .bool(true) where evaluator.accessLimitMessage == nil: return (true, [])
                case .bool(false): reason = "false"
                case let other: reason = "Condition is not a boolean: \(other.typeName)."
                }
            } catch {
                reason = error.message
            }
            if let limit = evaluator.accessLimitMessage {
                return (false, ["\(limit) for '\(method.rawValue)' @ L\(candidate.allow.line)"])
            }
            reasons.append("\(reason) for '\(method.rawValue)' @ L\(candidate.allow.line)")
        }
        return (false, reasons)
    }

    /// Finds every allow for `method` in blocks whose full pattern matches `segments`.
    private func collect(
        _ block: FirestoreMatch, _ segments: ArraySlice<String?>, _ frame: [RulesValue], _ method: FirestoreRulesMethod,
        _ out: inout [Candidate]
    ) {
        for child in block.children {
            var matches: [([RulesValue], ArraySlice<String?>)] = []
            matchPattern(child.pattern[...], segments, [], &matches)
            for (bindings, rest) in matches {
                let childFrame = frame + bindings
                if rest.isEmpty {
                    for allow in child.allows where allow.methods.contains(method) {
                        out.append(Candidate(allow: allow, frame: childFrame))
                    }
                }
                collect(child, rest, childFrame, method, &out)
            }
        }
    }

    private func matchPattern(
        _ pattern: ArraySlice<FirestorePatternSegment>, _ segments: ArraySlice<String?>, _ bindings: [RulesValue],
        _ out: inout [([RulesValue], ArraySlice<String?>)]
    ) {
        guard let first = pattern.first else {
            out.append((bindings, segments))
            return
        }
        let rest = pattern.dropFirst()
        switch first {
        case .literal(let text):
            guard let segment = segments.first, let segment, segment == text else { return }
            matchPattern(rest, segments.dropFirst(), bindings, &out)
        case .single(let name):
            guard let segment = segments.first, segment != Self.anyParents else { return }
            let value: RulesValue = segment.map { .string($0) } ?? .unbound("Variable \(name) is not bound for a list request.")
            matchPattern(rest, segments.dropFirst(), bindings + [value], &out)
        case .recursive(let name):
            let minimum = version >= 2 ? 0 : 1
            let counts: [Int] = rest.isEmpty ? [segments.count] : Array(0...segments.count)
            for count in counts where count >= minimum {
                let captured = segments.prefix(count)
                let value: RulesValue
                if captured.contains(where: { $0 == nil || $0 == Self.anyParents }) {
                    value = .unbound("Variable \(name) is not bound for a list request.")
                } else {
                    let parts = captured.compactMap { $0 }
                    value = version >= 2 ? .path(RulesPath(segments: parts)) : .string(parts.joined(separator: "/"))
                }
                matchPattern(rest, segments.dropFirst(count), bindings + [value], &out)
            }
        }
    }

    /// Stands for the unknown parents of a collection-group query (never a real segment).
    static let anyParents = "\u{0}**"

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

    static func requestValue(_ request: FirestoreRulesRequest, pathSegments: [String]? = nil) -> RulesValue {
        let segments = pathSegments ?? relativeSegments(request.path)
        var map: [String: RulesValue] = [
            "method": .string(request.method.rawValue),
            "path": .path(RulesPath(segments: segments)),
            "time": .timestamp(request.time),
        ]
        if let auth = request.auth {
            map["auth"] = .map(["uid": .string(auth.uid), "token": RulesValue(json: auth.token)])
        } else {
            map["auth"] = .null
        }
        if request.method == .delete {
            // A delete has no new document [unverified: null rather than absent].
            map["resource"] = .null
        }
        if request.method == .create || request.method == .update, let newResource = request.newResource {
            map["resource"] = FirestoreEvaluator.resourceValue(
                newResource, segments: newResource.name == request.path ? segments : relativeSegments(newResource.name))
        }
        if request.method == .list {
            let query = request.query ?? RulesQuery()
            var orderBy: [String: RulesValue] = [:]
            for order in query.orderBy { orderBy[order.field] = .string(order.descending ? "DESC" : "ASC") }
            map["query"] = .map([
                "limit": query.limit.map { .int($0) } ?? .null,
                "offset": query.offset.map { .int($0) } ?? .null,
                "orderBy": .map(orderBy),
            ])
        }
        return .map(map)
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
