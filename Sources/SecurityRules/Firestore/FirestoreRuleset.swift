/// A loaded `firestore.rules` file, ready to evaluate requests.
///
/// ```swift
/// switch FirestoreRuleset.parse(source, fileName: "firestore.rules") {
/// case .success(let rules): current = rules
/// case .failure(let diagnostics): log(diagnostics.description)   // keep the previous rules
/// }
/// ```
package struct FirestoreRuleset: Sendable {
    let root: FirestoreMatch
    /// `root`, as evaluation walks it.
    let tree: FirestoreMatchNode
    /// Every literal segment of every `match` pattern (``FirestoreMatchCache`` skips ids among them).
    let literals: Set<String>
    /// `literals` when there are few (a scan beats hashing the id), else empty.
    private let fewLiterals: [String]
    let functions: [FirestoreFunction]
    /// `rules_version`: 1 or 2.
    package let version: Int
    package let fileName: String
    /// Whether any condition or function can read `resource` (the stored document). When not, an
    /// emulator may check only that the document exists, without decoding it.
    package let readsResource: Bool
    /// Whether any condition or function can read `request.method`.
    package let readsRequestMethod: Bool
    /// True when a write's verdict (not its denial message) cannot depend on whether its
    /// document exists, except through which `allow`s apply: the rules read neither `resource`
    /// nor `request.method`. An emulator may then send a plain set as a request with
    /// ``FirestoreRulesRequest/existenceUnknown`` and skip reading the stored document; the
    /// evaluator asks for the real method only when an `allow` names one of create and update
    /// but not both, or to word a denial.
    package var decidesWritesWithoutExistence: Bool { !readsResource && !readsRequestMethod }

    /// The sub-expressions coverage counts (``FirestoreExpression/probe`` indexes into it).
    package let expressionSpans: [RulesExpressionSpan]

    init(
        root: FirestoreMatch, functions: [FirestoreFunction], version: Int, fileName: String,
        expressionSpans: [RulesExpressionSpan] = []
    ) {
        self.root = root
        self.expressionSpans = expressionSpans
        self.tree = FirestoreMatchNode(root)
        self.literals = tree.literals
        self.fewLiterals = literals.count <= 16 ? Array(literals) : []
        self.functions = functions
        self.version = version
        self.fileName = fileName
        self.readsResource = Self.readsResource(root: root, functions: functions)
        self.readsRequestMethod = Self.readsRequestMethod(root: root, functions: functions)
    }

    /// Whether `segment` is a literal of some `match` pattern.
    func isLiteral(_ segment: String) -> Bool {
        literals.count <= 16 ? fewLiterals.contains(segment) : literals.contains(segment)
    }

    /// Parses, resolves names and checks limits; diagnostics carry `file:line:col`.
    package static func parse(_ source: String, fileName: String) -> Result<FirestoreRuleset, RulesDiagnostics> {
        func diagnostic(_ id: String, _ position: SourcePosition, _ message: String) -> RulesDiagnostics {
            RulesDiagnostics([RulesDiagnostic(id: id, fileName: fileName, line: position.line, column: position.column, message: message)])
        }
        if source.utf8.count > 256 * 1024 {
            return .failure(diagnostic("limit.source-size", SourcePosition(line: 1, column: 1), "rules source is larger than 256 KB"))
        }
        do throws(FirestoreParser.Failure) {
            var parser = try FirestoreParser(source)
            let file = try parser.parseFile()
            var resolver = FirestoreResolver(functions: parser.functions)
            let root = resolver.resolve(file.root)
            if let index = resolver.recursiveFunction() {
                let function = resolver.functions[index]
                return .failure(diagnostic("semantic.recursion", function.position,
                                           "function '\(function.name)' calls itself; recursion is not allowed"))
            }
            return .success(
                FirestoreRuleset(
                    root: root, functions: resolver.functions, version: file.version, fileName: fileName, expressionSpans: parser.probes))
        } catch {
            return .failure(diagnostic(error.id, error.position, error.message))
        }
    }

    /// The rules the official emulator uses when no rules file is configured: every request is
    /// allowed (the emulator runs in open "test mode").
    package static let defaultSource = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /{document=**} {
              allow read, write: if true;
            }
          }
        }
        """

    /// `defaultSource`, parsed.
    package static func defaultRules() -> FirestoreRuleset {
        switch parse(defaultSource, fileName: "default.rules") {
        case .success(let rules): return rules
        case .failure: return FirestoreRuleset(root: FirestoreMatch(pattern: [], line: 1), functions: [], version: 2, fileName: "")
        }
    }

    /// Rules that deny everything (production's locked-mode default).
    package static let lockedSource = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /{document=**} {
              allow read, write: if false;
            }
          }
        }
        """
}

extension FirestoreRuleset {
    /// Where every `allow` condition starts (the `allow` itself when unconditional), in file
    /// order: the rules a coverage report lists.
    package var rulePositions: [SourcePosition] {
        var result: [SourcePosition] = []
        func walk(_ block: FirestoreMatch) {
            for allow in block.allows { result.append(SourcePosition(line: allow.line, column: allow.column)) }
            for child in block.children { walk(child) }
        }
        walk(root)
        return result.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
    }
}
