extension FirestoreRuleset {
    /// Evaluates one standalone expression (no request: `request` and `resource` are null),
    /// for tests and tools. A syntax error comes back as a failure starting with `syntax:`.
    static func evaluateExpression(
        _ text: String, data: any FirestoreRulesDataSource = EmptyFirestoreRulesDataSource()
    ) -> (result: Result<RulesValue, RulesEvaluationError>, debugOutput: [String]) {
        var parsed: FirestoreExpression
        do throws(FirestoreParser.Failure) {
            var parser = try FirestoreParser(text)
            parser.version = 2
            parsed = try parser.parseExpression()
            guard parser.current.isEnd else {
                return (.failure(RulesEvaluationError("syntax: unexpected \(parser.current.display)")), [])
            }
        } catch {
            return (.failure(RulesEvaluationError("syntax: \(error.message)")), [])
        }
        var resolver = FirestoreResolver(functions: [])
        var probe = FirestoreMatch(pattern: [.literal("probe")], line: 1)
        probe.allows = [FirestoreAllow(methods: [.get], condition: parsed, line: 1)]
        var root = FirestoreMatch(pattern: [], line: 1)
        root.children = [probe]
        let resolved = resolver.resolve(root)
        guard let condition = resolved.children.first?.allows.first?.condition else {
            return (.failure(RulesEvaluationError("internal: no expression")), [])
        }
        parsed = condition
        var evaluator = FirestoreEvaluator(functions: [], data: data, projectID: "demo-project")
        do throws(RulesEvaluationError) {
            let value = try evaluator.evaluate(parsed, [.null, .null])
            return (.success(value), evaluator.debugOutput)
        } catch {
            return (.failure(error), evaluator.debugOutput)
        }
    }
}
