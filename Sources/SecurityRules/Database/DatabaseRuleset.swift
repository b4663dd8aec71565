/// A loaded `database.rules.json`, ready to check reads and writes.
///
/// ```swift
/// switch DatabaseRuleset.parse(text, fileName: "database.rules.json") {
/// case .success(let rules): current = rules
/// case .failure(let diagnostics): log(diagnostics.description)   // keep the previous rules
/// }
/// let decision = current.canRead(path: ["users", "alice"], auth: auth, now: nowMillis, data: source)
/// ```
package struct DatabaseRuleset: Sendable {
    let root: DatabaseRuleNode
    package let fileName: String
    /// The sub-expressions coverage counts, by ``DatabaseExpression/probe`` index.
    let spans: [RulesExpressionSpan]

    init(root: DatabaseRuleNode, fileName: String, spans: [RulesExpressionSpan] = []) {
        self.root = root
        self.fileName = fileName
        self.spans = spans
    }

    /// The rules the official emulator uses without a rules file: everything is allowed.
    package static let defaultSource = #"{"rules": {".read": true, ".write": true}}"#

    /// `defaultSource`, parsed.
    package static func defaultRules() -> DatabaseRuleset {
        var root = DatabaseRuleNode()
        root.read = DatabaseRule(expression: .bool(true), kind: .read, line: 1, column: 1, source: "true")
        root.write = DatabaseRule(expression: .bool(true), kind: .write, line: 1, column: 1, source: "true")
        return DatabaseRuleset(root: root, fileName: "default")
    }

    /// Parses the file (comments allowed), compiles and type-checks every rule.
    package static func parse(_ jsonText: String, fileName: String) -> Result<DatabaseRuleset, RulesDiagnostics> {
        func diagnostic(_ id: String, _ position: SourcePosition, _ message: String) -> RulesDiagnostics {
            RulesDiagnostics([RulesDiagnostic(id: id, fileName: fileName, line: position.line, column: position.column, message: message)])
        }
        let document: LenientJSON
        switch LenientJSONParser.parse(jsonText) {
        case .success(let value): document = value
        case .failure(let failure): return .failure(diagnostic("json.syntax", failure.position, failure.message))
        }
        guard case .object(let members) = document.kind else {
            return .failure(diagnostic("rules.structure", document.position, "the rules file must be a JSON object"))
        }
        var rulesValue: LenientJSON?
        for member in members {
            guard member.name == "rules" else {
                return .failure(diagnostic("rules.structure", member.namePosition, "unexpected top-level key '\(member.name)'; expected only 'rules'"))
            }
            rulesValue = member.value
        }
        guard let rulesValue else {
            return .failure(diagnostic("rules.structure", document.position, "the rules file needs a top-level 'rules' key"))
        }
        do throws(DatabaseRuleCompiler.Failure) {
            let compiler = DatabaseRuleCompiler()
            let root = try compiler.compile(rulesValue, wildcards: [])
            return .success(DatabaseRuleset(root: root, fileName: fileName, spans: compiler.probes.spans))
        } catch {
            return .failure(diagnostic(error.id, error.position, error.message))
        }
    }

    /// Whether every read is allowed without evaluating anything: `.read` is literally `true` at
    /// the root (a grant cannot be revoked deeper).
    package var grantsEveryRead: Bool {
        if case .bool(true)? = root.read?.expression { return true }
        return false
    }

    /// Whether every write is allowed without evaluating anything: `.write` is literally `true`
    /// at the root and no `.validate` rule exists anywhere.
    package var grantsEveryWrite: Bool {
        guard case .bool(true)? = root.write?.expression else { return false }
        func hasValidate(_ node: DatabaseRuleNode) -> Bool {
            node.validate != nil || node.children.values.contains(where: hasValidate)
        }
        return !hasValidate(root)
    }

    /// `.indexOn` at a location (for the emulator's "index not defined" warning).
    package func indexOn(path: [String]) -> [String] {
        var node = root
        for key in path {
            guard let next = node.child(key) else { return [] }
            node = next.node
        }
        return node.indexOn
    }
}

/// Turns the `rules` JSON tree into rule nodes.
struct DatabaseRuleCompiler {
    struct Failure: Error {
        var id: String
        var position: SourcePosition
        var message: String
    }

    /// The sub-expressions coverage counts, gathered across every rule string of the file.
    final class Probes {
        var spans: [RulesExpressionSpan] = []
    }

    let probes = Probes()

    func compile(_ value: LenientJSON, wildcards: [String]) throws(Failure) -> DatabaseRuleNode {
        guard case .object(let members) = value.kind else {
            throw Failure(id: "rules.structure", position: value.position, message: "expected an object of rules")
        }
        var node = DatabaseRuleNode()
        for member in members {
            let name = member.name
            switch name {
            case ".read", ".write", ".validate":
                let kind = DatabaseRuleKind(rawValue: name) ?? .read
                let rule = try compileRule(member.value, kind: kind, wildcards: wildcards)
                switch kind {
                case .read: node.read = rule
                case .write: node.write = rule
                case .validate: node.validate = rule
                }
            case ".indexOn":
                switch member.value.kind {
                case .string(let key): node.indexOn = [key]
                case .array(let items):
                    for item in items {
                        guard case .string(let key) = item.kind else {
                            throw Failure(id: "rules.index-on", position: item.position, message: ".indexOn entries must be strings")
                        }
                        node.indexOn.append(key)
                    }
                default:
                    throw Failure(id: "rules.index-on", position: member.value.position, message: ".indexOn must be a string or an array of strings")
                }
            default:
                if name.hasPrefix(".") {
                    throw Failure(id: "rules.unknown-key", position: member.namePosition, message: "unknown rule type '\(name)'")
                }
                var childWildcards = wildcards
                if name.hasPrefix("$") {
                    if node.wildcardKey != nil {
                        throw Failure(id: "rules.wildcard", position: member.namePosition,
                                      message: "only one wildcard child is allowed per location ('\(name)')")
                    }
                    if wildcards.contains(name) {
                        throw Failure(id: "rules.wildcard", position: member.namePosition,
                                      message: "wildcard '\(name)' is already used on this path")
                    }
                    node.wildcardKey = name
                    childWildcards.append(name)
                }
                node.children[name] = try compile(member.value, wildcards: childWildcards)
            }
        }
        return node
    }

    private func compileRule(_ value: LenientJSON, kind: DatabaseRuleKind, wildcards: [String]) throws(Failure) -> DatabaseRule {
        let line = value.position.line
        let column = value.position.column
        switch value.kind {
        case .bool(let b):
            return DatabaseRule(expression: .bool(b), kind: kind, line: line, column: column, source: b ? "true" : "false")
        case .string(let text):
            let expression: DatabaseExpression
            switch DatabaseExpressionParser.parse(text, probes: &probes.spans, rule: SourcePosition(line: line, column: column)) {
            case .success(let parsed): expression = parsed
            case .failure(let failure):
                throw Failure(id: "rules.syntax", position: Self.position(value.position, text, failure.offset),
                              message: "\(kind.rawValue): \(failure.message)")
            }
            do throws(DatabaseTypeChecker.Failure) {
                try DatabaseTypeChecker(kind: kind, wildcards: Set(wildcards)).checkRule(expression)
            } catch {
                throw Failure(id: "rules.type", position: SourcePosition(line: line, column: column + 1), message: "\(kind.rawValue): \(error.message)")
            }
            return DatabaseRule(expression: expression, kind: kind, line: line, column: column, source: text)
        default:
            throw Failure(id: "rules.structure", position: value.position, message: "\(kind.rawValue) must be a boolean or a string expression")
        }
    }

    /// Where byte `offset` of a rule string falls in the file (exact for strings without
    /// escapes or newlines, which is how rules are written).
    static func position(_ start: SourcePosition, _ text: String, _ offset: Int) -> SourcePosition {
        var line = start.line
        var column = start.column + 1
        for b in text.utf8.prefix(offset) {
            if b == 0x0A {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return SourcePosition(line: line, column: column)
    }
}
