extension FirestoreRuleset {
    /// Whether any condition or function of these rules can read `resource` (frame slot 1).
    static func readsResource(root: FirestoreMatch, functions: [FirestoreFunction]) -> Bool {
        functions.contains { function in
            function.lets.contains { reads(slot: 1, $0.1) } || reads(slot: 1, function.body)
        } || reads(slot: 1, root)
    }

    /// Whether any condition or function of these rules can read `request.method`: `request` used
    /// other than as the base of a member other than `method` counts (`request['method']`,
    /// `debug(request)`, `f(request)`).
    static func readsRequestMethod(root: FirestoreMatch, functions: [FirestoreFunction]) -> Bool {
        functions.contains { function in
            function.lets.contains { readsMethod($0.1) } || readsMethod(function.body)
        } || readsMethod(root)
    }

    private static func readsMethod(_ block: FirestoreMatch) -> Bool {
        block.allows.contains { $0.condition.map(readsMethod) ?? false } || block.children.contains(where: readsMethod)
    }

    private static func readsMethod(_ e: FirestoreExpression) -> Bool {
        switch e {
        case .member(.local(0), let name): name == "method"
        case .local(let s): s == 0
        case .literal, .identifier, .unresolved: false
        case .member(let base, _), .not(let base), .negate(let base), .isType(let base, _), .probe(_, let base): readsMethod(base)
        case .index(let a, let b), .binary(_, let a, let b), .and(let a, let b), .or(let a, let b):
            readsMethod(a) || readsMethod(b)
        case .slice(let base, let from, let to):
            readsMethod(base) || from.map(readsMethod) == true || to.map(readsMethod) == true
        case .call(_, let arguments), .userCall(_, let arguments), .builtin(_, let arguments), .list(let arguments):
            arguments.contains(where: readsMethod)
        case .method(let receiver, _, let arguments):
            readsMethod(receiver) || arguments.contains(where: readsMethod)
        case .conditional(let c, let a, let b): readsMethod(c) || readsMethod(a) || readsMethod(b)
        case .map(let entries): entries.contains { readsMethod($0.0) || readsMethod($0.1) }
        case .path(let parts):
            parts.contains {
                if case .interpolated(let inner) = $0 { return readsMethod(inner) }
                return false
            }
        }
    }

    private static func reads(slot: Int, _ block: FirestoreMatch) -> Bool {
        block.allows.contains { $0.condition.map { reads(slot: slot, $0) } ?? false }
            || block.children.contains { reads(slot: slot, $0) }
    }

    /// Whether `e` reads frame slot `slot` (slots 0 and 1, `request` and `resource`, mean the same
    /// in every scope).
    private static func reads(slot: Int, _ e: FirestoreExpression) -> Bool {
        switch e {
        case .local(let s): s == slot
        case .literal, .identifier, .unresolved: false
        case .member(let base, _), .not(let base), .negate(let base), .isType(let base, _), .probe(_, let base): reads(slot: slot, base)
        case .index(let a, let b), .binary(_, let a, let b), .and(let a, let b), .or(let a, let b):
            reads(slot: slot, a) || reads(slot: slot, b)
        case .slice(let base, let from, let to):
            reads(slot: slot, base) || from.map { reads(slot: slot, $0) } == true || to.map { reads(slot: slot, $0) } == true
        case .call(_, let arguments), .userCall(_, let arguments), .builtin(_, let arguments), .list(let arguments):
            arguments.contains { reads(slot: slot, $0) }
        case .method(let receiver, _, let arguments):
            reads(slot: slot, receiver) || arguments.contains { reads(slot: slot, $0) }
        case .conditional(let c, let a, let b): reads(slot: slot, c) || reads(slot: slot, a) || reads(slot: slot, b)
        case .map(let entries): entries.contains { reads(slot: slot, $0.0) || reads(slot: slot, $0.1) }
        case .path(let parts):
            parts.contains {
                if case .interpolated(let inner) = $0 { return reads(slot: slot, inner) }
                return false
            }
        }
    }
}
