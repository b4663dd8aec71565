extension FirestoreRuleset {
    /// Whether evaluating `condition` can depend on nothing but `request.auth`, the frame slots
    /// not in `excluded` (wildcard bindings), literals and user functions of the same kind: no
    /// other member of `request`, no `resource`, no document access and no `debug()`. Such a
    /// condition gives the same outcome, in the same number of steps, for every write of a batch
    /// made by one caller under the same bindings (``FirestoreMatchCache`` keeps it).
    func readsOnlyAuthAndBindings(_ condition: FirestoreExpression, excluding excluded: [Int]) -> Bool {
        readsOnlyAuthAndBindings(condition, excluded, capturedSlots: Int.max, depth: 0)
    }

    /// `captured`: in a function body, the slots below it are the caller's frame (bindings);
    /// the others are parameters and lets, which the call's arguments and the body decide.
    private func readsOnlyAuthAndBindings(_ e: FirestoreExpression, _ excluded: [Int], capturedSlots: Int, depth: Int) -> Bool {
        func ok(_ e: FirestoreExpression) -> Bool { readsOnlyAuthAndBindings(e, excluded, capturedSlots: capturedSlots, depth: depth) }
        switch e {
        case .member(.local(0), let name): return name == "auth"
        case .local(let slot): return slot >= 2 && (slot >= capturedSlots || !excluded.contains(slot))
        case .literal, .identifier, .unresolved, .call: return true
        case .member(let base, _), .not(let base), .negate(let base), .isType(let base, _), .probe(_, let base): return ok(base)
        case .index(let a, let b), .binary(_, let a, let b), .and(let a, let b), .or(let a, let b): return ok(a) && ok(b)
        case .slice(let base, let from, let to): return ok(base) && (from.map(ok) ?? true) && (to.map(ok) ?? true)
        case .list(let items): return items.allSatisfy(ok)
        case .builtin(let builtin, let arguments):
            switch builtin {
            case .get, .exists, .getAfter, .existsAfter, .debug: return false
            default: return arguments.allSatisfy(ok)
            }
        case .method(let receiver, _, let arguments): return ok(receiver) && arguments.allSatisfy(ok)
        case .userCall(let index, let arguments):
            guard arguments.allSatisfy(ok), depth < 20, functions.indices.contains(index) else { return false }
            let function = functions[index]
            func inBody(_ e: FirestoreExpression) -> Bool {
                readsOnlyAuthAndBindings(e, excluded, capturedSlots: function.capturedSlots, depth: depth + 1)
            }
            return function.lets.allSatisfy { inBody($0.1) } && inBody(function.body)
        case .conditional(let c, let a, let b): return ok(c) && ok(a) && ok(b)
        case .map(let entries): return entries.allSatisfy { ok($0.0) && ok($0.1) }
        case .path(let parts):
            return parts.allSatisfy {
                if case .interpolated(let inner) = $0 { return ok(inner) }
                return true
            }
        }
    }
}
