package import EmulatorSupport

extension DatabaseRuleset {
    /// Checks a read at `path`: allowed when some `.read` from the root down to `path` is true
    /// (a grant cannot be revoked deeper; rules below `path` are ignored).
    ///
    /// - Parameters:
    ///   - now: server time in milliseconds since the epoch (`now`).
    ///   - query: the read's query parameters (`query.*`).
    ///   - tracing: list every rule that ran in ``RulesDecision/evaluated``.
    package func canRead(
        path: [String], auth: AuthContext?, now: Int64, data: any DatabaseRulesDataSource, query: DatabaseRulesQuery = DatabaseRulesQuery(),
        tracing: Bool = false
    ) -> RulesDecision {
        var view = DatabaseDataView(source: data, writes: [])
        if tracing { view.hits = DatabaseExpressionHits() }
        var trace: [String] = []
        var lines: [RulesLineOutcome]? = tracing ? [] : nil
        if cascade(.read, path: path, view: view, auth: auth, now: now, query: query, trace: &trace, lines: &lines) {
            return RulesDecision(isAllowed: true, message: "", evaluated: lines ?? [], expressions: view.hits?.hits ?? [])
        }
        return RulesDecision(
            isAllowed: false, message: Self.message(trace, .read), evaluated: lines ?? [], expressions: view.hits?.hits ?? [])
    }

    /// Checks a set (`newValue`) or delete (`nil`) at `path`. `newValue` must already have server
    /// values (`{".sv": "timestamp"}`) replaced by `now`.
    package func canWrite(
        path: [String], newValue: JSONValue?, auth: AuthContext?, now: Int64, data: any DatabaseRulesDataSource
    ) -> RulesDecision {
        canUpdate(multiPath: [(path, newValue)], auth: auth, now: now, data: data)
    }

    /// Checks a multi-path update: the writes are merged into one new tree first, then every
    /// path must pass `.write` and `.validate` against it; the update is all-or-nothing.
    /// A path whose last key is `.priority` sets the priority of its parent (the value is the
    /// priority, nil removes it) and is checked as a write of the parent.
    ///
    /// ```swift
    /// rules.canUpdate(multiPath: [(["a", "b"], .int(1)), (["c"], nil)], auth: auth, now: now, data: source)
    /// ```
    package func canUpdate(
        multiPath: [(path: [String], value: JSONValue?)], auth: AuthContext?, now: Int64, data: any DatabaseRulesDataSource,
        tracing: Bool = false
    ) -> RulesDecision {
        var view = DatabaseDataView(source: data, writes: multiPath.map { ($0.path, $0.value) })
        if tracing { view.hits = DatabaseExpressionHits() }
        var lines: [RulesLineOutcome]? = tracing ? [] : nil
        for write in multiPath {
            var trace: [String] = []
            let path = DatabaseDataView.isPriority(write.path) ? Array(write.path.dropLast()) : write.path
            guard cascade(.write, path: path, view: view, auth: auth, now: now, query: DatabaseRulesQuery(), trace: &trace, lines: &lines) else {
                return RulesDecision(
                    isAllowed: false, message: Self.message(trace, .write), evaluated: lines ?? [], expressions: view.hits?.hits ?? [])
            }
            if let failure = validate(path: path, view: view, auth: auth, now: now, lines: &lines) {
                return RulesDecision(isAllowed: false, message: failure, evaluated: lines ?? [], expressions: view.hits?.hits ?? [])
            }
        }
        return RulesDecision(isAllowed: true, message: "", evaluated: lines ?? [], expressions: view.hits?.hits ?? [])
    }

    /// The sub-expressions coverage counts (``DatabaseExpression/probe`` indexes into it).
    package var expressionSpans: [RulesExpressionSpan] { spans }

    /// Where every `.read`, `.write` and `.validate` expression starts, in file order: the rules
    /// a coverage report lists.
    package var rulePositions: [SourcePosition] {
        var result: [SourcePosition] = []
        func walk(_ node: DatabaseRuleNode) {
            for rule in [node.read, node.write, node.validate].compactMap({ $0 }) {
                result.append(SourcePosition(line: rule.line, column: rule.column))
            }
            for child in node.children.values { walk(child) }
        }
        walk(root)
        return result.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
    }

    /// Adds `rule`'s outcome to a trace being kept.
    private static func note(_ result: Result<Bool, DatabaseEvaluator.Failure>, _ rule: DatabaseRule, _ lines: inout [RulesLineOutcome]?) {
        guard lines != nil else { return }
        let outcome: RulesOutcome =
            switch result {
            case .success(true): .allow
            case .success(false): .deny
            case .failure: .error
            }
        lines?.append(RulesLineOutcome(line: rule.line, column: rule.column, outcome: outcome))
    }

    private func evaluator(_ view: DatabaseDataView, _ auth: AuthContext?, _ now: Int64, _ query: DatabaseRulesQuery,
                           _ location: [String], _ wildcards: [String: String]) -> DatabaseEvaluator {
        DatabaseEvaluator(
            view: view, auth: auth?.databaseAuth, now: Double(now), query: query, location: location, wildcards: wildcards, hits: view.hits)
    }

    private static func message(_ trace: [String], _ kind: DatabaseRuleKind) -> String {
        if trace.isEmpty { return "Permission denied: no \(kind.rawValue) rule applies." }
        return "Permission denied: " + trace.joined(separator: ", ")
    }

    private static func outcome(_ result: Result<Bool, DatabaseEvaluator.Failure>, _ rule: DatabaseRule, _ rulePath: [String]) -> (Bool, String) {
        // The message is built only for a denial: an allowed check pays no string work.
        func place() -> String {
            "'\(rule.kind.rawValue)' @ /\(rulePath.joined(separator: "/")) L\(rule.line): \(oneLine(rule.source))"
        }
        switch result {
        case .success(true): return (true, "")
        case .success(false): return (false, "false for \(place())")
        case .failure(let error): return (false, "\(error.message) for \(place())")
        }
    }

    /// `text` with each run of whitespace (line breaks of a multi-line rule among them) as one space.
    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }).joined(separator: " ")
    }

    /// Walks root → `path` evaluating `kind` rules; true at the first granting level.
    private func cascade(
        _ kind: DatabaseRuleKind, path: [String], view: DatabaseDataView, auth: AuthContext?, now: Int64, query: DatabaseRulesQuery,
        trace: inout [String], lines: inout [RulesLineOutcome]?
    ) -> Bool {
        var node = root
        var wildcards: [String: String] = [:]
        var rulePath: [String] = []
        var level = 0
        while true {
            if let rule = node.rule(kind) {
                let location = Array(path.prefix(level))
                let result = evaluator(view, auth, now, query, location, wildcards).evaluateRule(rule.expression)
                Self.note(result, rule, &lines)
                let (granted, why) = Self.outcome(result, rule, rulePath)
                if granted { return true }
                trace.append(why)
            }
            guard level < path.count, let next = node.child(path[level]) else { return false }
            if let wildcard = next.wildcard {
                wildcards[wildcard] = path[level]
                rulePath.append(wildcard)
            } else {
                rulePath.append(path[level])
            }
            node = next.node
            level += 1
        }
    }

    /// Runs `.validate` on every ancestor of `path` and on every written node below it whose
    /// new value exists; returns the first failure.
    private func validate(
        path: [String], view: DatabaseDataView, auth: AuthContext?, now: Int64, lines: inout [RulesLineOutcome]?
    ) -> String? {
        var node = root
        var wildcards: [String: String] = [:]
        var rulePath: [String] = []
        var level = 0
        while true {
            let location = Array(path.prefix(level))
            if let rule = node.validate, view.new(location) != nil {
                let result = evaluator(view, auth, now, DatabaseRulesQuery(), location, wildcards).evaluateRule(rule.expression)
                Self.note(result, rule, &lines)
                let (ok, why) = Self.outcome(result, rule, rulePath)
                if !ok { return "Permission denied: " + why }
            }
            if level == path.count { break }
            guard let next = node.child(path[level]) else { return nil }
            if let wildcard = next.wildcard {
                wildcards[wildcard] = path[level]
                rulePath.append(wildcard)
            } else {
                rulePath.append(path[level])
            }
            node = next.node
            level += 1
        }
        guard let value = view.new(path) else { return nil }
        return validateBelow(node, value, path, rulePath, wildcards, view, auth, now, &lines)
    }

    private func validateBelow(
        _ node: DatabaseRuleNode, _ value: JSONValue, _ location: [String], _ rulePath: [String], _ wildcards: [String: String],
        _ view: DatabaseDataView, _ auth: AuthContext?, _ now: Int64, _ lines: inout [RulesLineOutcome]?
    ) -> String? {
        guard case .object(let members) = value, !node.children.isEmpty else { return nil }
        for member in members where !member.name.hasPrefix(".") {
            guard let next = node.child(member.name), let childValue = DatabaseDataView.pruned(member.value) else { continue }
            var childWildcards = wildcards
            var childRulePath = rulePath
            if let wildcard = next.wildcard {
                childWildcards[wildcard] = member.name
                childRulePath.append(wildcard)
            } else {
                childRulePath.append(member.name)
            }
            let childLocation = location + [member.name]
            if let rule = next.node.validate {
                let result = evaluator(view, auth, now, DatabaseRulesQuery(), childLocation, childWildcards).evaluateRule(rule.expression)
                Self.note(result, rule, &lines)
                let (ok, why) = Self.outcome(result, rule, childRulePath)
                if !ok { return "Permission denied: " + why }
            }
            if let failure = validateBelow(next.node, childValue, childLocation, childRulePath, childWildcards, view, auth, now, &lines) {
                return failure
            }
        }
        return nil
    }
}

/// The verdict of one rule expression, for tools and tests that need to tell a runtime error
/// from `false`.
package enum DatabaseRuleOutcome: Sendable, Equatable {
    case invalid(String)
    case error(String)
    case value(Bool)
}

extension DatabaseRuleset {
    /// Compiles `rule` as a `.read` rule mounted at `path` (whose `$name` segments are bound to
    /// `wildcards`) and evaluates it once.
    package static func evaluateReadRule(
        _ rule: String, wildcards: [(name: String, value: String)], auth: JSONValue?, root: JSONValue?, query: DatabaseRulesQuery,
        now: Int64 = 0
    ) -> DatabaseRuleOutcome {
        let expression: DatabaseExpression
        switch DatabaseExpressionParser.parse(rule) {
        case .success(let parsed): expression = parsed
        case .failure(let failure): return .invalid(failure.message)
        }
        do throws(DatabaseTypeChecker.Failure) {
            try DatabaseTypeChecker(kind: .read, wildcards: Set(wildcards.map(\.name))).checkRule(expression)
        } catch {
            return .invalid(error.message)
        }
        var bindings: [String: String] = [:]
        for wildcard in wildcards { bindings[wildcard.name] = wildcard.value }
        let evaluator = DatabaseEvaluator(
            view: DatabaseDataView(source: DatabaseTreeSource(root), writes: []), auth: auth, now: Double(now), query: query,
            location: wildcards.map(\.value), wildcards: bindings)
        switch evaluator.evaluateRule(expression) {
        case .success(let b): return .value(b)
        case .failure(let error): return .error(error.message)
        }
    }
}

extension DatabaseRuleset {
    /// Where the root's `.read` (or `.write`) rule starts: what open rules grant by without
    /// evaluating anything, for traces and coverage.
    package func rootRulePosition(write: Bool) -> SourcePosition? {
        guard let rule = write ? root.write : root.read else { return nil }
        return SourcePosition(line: rule.line, column: rule.column)
    }
}
