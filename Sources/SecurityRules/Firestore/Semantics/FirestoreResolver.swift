/// Binds every name in a parsed rules file: variables become frame slots, calls become
/// user-function indices or built-ins, so evaluation never searches scopes.
///
/// Frame layout: slot 0 `request`, slot 1 `resource`, then each match block's wildcards from the
/// outermost block inward; a function's frame is its declaring scope's slots, then its
/// parameters, then its `let` bindings.
struct FirestoreResolver {
    var functions: [FirestoreFunction]
    /// Edges of the call graph, for the recursion check.
    private var calls: [Int: Set<Int>] = [:]

    init(functions: [FirestoreFunction]) {
        self.functions = functions
    }

    private struct Scope {
        var variables: [String]
        var functionScopes: [[String: Int]]

        func slot(of name: String) -> Int? {
            variables.lastIndex(of: name)
        }

        func function(named name: String) -> Int? {
            for scope in functionScopes.reversed() {
                if let index = scope[name] { return index }
            }
            return nil
        }
    }

    /// Resolves the whole tree; returns the resolved root.
    mutating func resolve(_ root: FirestoreMatch) -> FirestoreMatch {
        resolveMatch(root, Scope(variables: ["request", "resource"], functionScopes: []))
    }

    private mutating func resolveMatch(_ block: FirestoreMatch, _ outer: Scope) -> FirestoreMatch {
        var block = block
        var scope = outer
        block.firstSlot = scope.variables.count
        for segment in block.pattern {
            switch segment {
            case .single(let name), .recursive(let name): scope.variables.append(name)
            case .literal: break
            }
        }
        var table: [String: Int] = [:]
        for index in block.functions { table[functions[index].name] = index }
        scope.functionScopes.append(table)
        for index in block.functions {
            resolveFunction(index, scope)
        }
        for i in block.allows.indices {
            if let condition = block.allows[i].condition {
                block.allows[i].condition = resolveExpression(condition, scope, caller: nil)
            }
        }
        block.children = block.children.map { resolveMatch($0, scope) }
        return block
    }

    private mutating func resolveFunction(_ index: Int, _ declaring: Scope) {
        var function = functions[index]
        function.capturedSlots = declaring.variables.count
        var scope = declaring
        scope.variables.append(contentsOf: function.parameters)
        var lets: [(String, FirestoreExpression)] = []
        for (name, expression) in function.lets {
            lets.append((name, resolveExpression(expression, scope, caller: index)))
            scope.variables.append(name)
        }
        function.lets = lets
        function.body = resolveExpression(function.body, scope, caller: index)
        functions[index] = function
    }

    private mutating func resolveExpression(_ e: FirestoreExpression, _ scope: Scope, caller: Int?) -> FirestoreExpression {
        func r(_ e: FirestoreExpression) -> FirestoreExpression { resolveExpression(e, scope, caller: caller) }
        switch e {
        case .literal, .local, .userCall, .builtin, .unresolved:
            return e
        case .identifier(let name):
            if let slot = scope.slot(of: name) { return .local(slot) }
            return .unresolved("Variable \(name) is not defined.")
        case .member(let base, let name):
            return .member(r(base), name)
        case .index(let base, let i):
            return .index(r(base), r(i))
        case .slice(let base, let start, let end):
            return .slice(r(base), start.map { r($0) }, end.map { r($0) })
        case .call(let name, let arguments):
            let resolved = arguments.map { r($0) }
            if let index = scope.function(named: name) {
                if let caller { calls[caller, default: []].insert(index) }
                return .userCall(index, resolved)
            }
            if let builtin = RulesBuiltin(rawValue: name), !name.contains(".") {
                return .builtin(builtin, resolved)
            }
            return .unresolved("Function not found error: Name: [\(name)].")
        case .method(let receiver, let name, let arguments):
            let resolved = arguments.map { r($0) }
            if case .identifier(let namespace) = receiver, scope.slot(of: namespace) == nil,
                RulesBuiltin.namespaces.contains(namespace)
            {
                if let builtin = RulesBuiltin(rawValue: namespace + "." + name) { return .builtin(builtin, resolved) }
                return .unresolved("Function not found error: Name: [\(namespace).\(name)].")
            }
            return .method(r(receiver), name, resolved)
        case .not(let x): return .not(r(x))
        case .probe(let index, let x): return .probe(index, r(x))
        case .negate(let x): return .negate(r(x))
        case .binary(let op, let a, let b): return .binary(op, r(a), r(b))
        case .and(let a, let b): return .and(r(a), r(b))
        case .or(let a, let b): return .or(r(a), r(b))
        case .conditional(let c, let a, let b): return .conditional(r(c), r(a), r(b))
        case .isType(let x, let t): return .isType(r(x), t)
        case .list(let items): return .list(items.map { r($0) })
        case .map(let entries): return .map(entries.map { (r($0.0), r($0.1)) })
        case .path(let parts):
            return .path(parts.map { part in
                switch part {
                case .literal: part
                case .interpolated(let x): .interpolated(r(x))
                }
            })
        }
    }

    /// The first function that can reach itself through calls, if any.
    func recursiveFunction() -> Int? {
        for start in functions.indices {
            var stack = Array(calls[start] ?? [])
            var seen: Set<Int> = []
            while let next = stack.popLast() {
                if next == start { return start }
                if seen.insert(next).inserted { stack.append(contentsOf: calls[next] ?? []) }
            }
        }
        return nil
    }
}
