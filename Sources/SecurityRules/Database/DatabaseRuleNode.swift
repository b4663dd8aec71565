/// One compiled `.read`, `.write` or `.validate` rule with where it came from.
struct DatabaseRule: Sendable {
    var expression: DatabaseExpression
    var kind: DatabaseRuleKind
    var line: Int
    var column: Int
    /// The expression as written (`true`/`false` for a boolean), for denial messages.
    var source: String
}

/// The rules at one level of `database.rules.json`: its own rules and its children.
struct DatabaseRuleNode: Sendable {
    var read: DatabaseRule?
    var write: DatabaseRule?
    var validate: DatabaseRule?
    /// `.indexOn`: child keys (or `.value`) queries may order by.
    var indexOn: [String] = []
    /// Named children and, under its `$name` key, the wildcard child.
    var children: [String: DatabaseRuleNode] = [:]
    var wildcardKey: String?

    func rule(_ kind: DatabaseRuleKind) -> DatabaseRule? {
        switch kind {
        case .read: read
        case .write: write
        case .validate: validate
        }
    }

    /// The child rules for a data key: a named child wins over the wildcard.
    func child(_ key: String) -> (node: DatabaseRuleNode, wildcard: String?)? {
        if !key.hasPrefix("$"), let named = children[key] { return (named, nil) }
        if let wildcardKey, let node = children[wildcardKey] { return (node, wildcardKey) }
        return nil
    }
}
