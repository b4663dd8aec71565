import EmulatorModel
import EmulatorSupport

/// A minimal rules evaluator used until the full SecurityRules engine is wired: `.read` and
/// `.write` that are `true`/`false` (or the strings `"true"`/`"false"`), inherited downwards,
/// with `$wildcard` keys. Any other expression denies.
package struct LiteralDatabaseRulesGate: DatabaseRulesGate {
    package init() {}

    package func compile(_ source: [UInt8]) -> Result<any DatabaseRules, DatabaseRulesCompileError> {
        let json: JSONValue
        do {
            json = try JSONReader.parse(source, allowComments: true)
        } catch {
            return .failure(DatabaseRulesCompileError("Parse error in rules: \(error.description)"))
        }
        guard case .object = json, let rules = json[member: "rules"], case .object = rules else {
            return .failure(DatabaseRulesCompileError("Rules must be a JSON object with a top-level \"rules\" object."))
        }
        return .success(LiteralDatabaseRules(tree: rules))
    }
}

struct LiteralDatabaseRules: DatabaseRules {
    var tree: JSONValue

    func canRead(
        _ path: DatabasePath, query: DatabaseQuery, auth: DatabaseAuth, now: Int64, data: any DatabaseDataSource
    ) -> Bool {
        allows(".read", path)
    }

    func canWrite(
        _ locations: [DatabasePath], auth: DatabaseAuth, now: Int64, data: any DatabaseDataSource,
        newData: any DatabaseDataSource
    ) -> Bool {
        locations.allSatisfy { allows(".write", $0) }
    }

    /// True when some rule node on the way to `path` grants `kind`.
    private func allows(_ kind: String, _ path: DatabasePath) -> Bool {
        var node: JSONValue? = tree
        var depth = 0
        while let current = node {
            if Self.isTrue(current[member: kind]) { return true }
            guard depth < path.count, case .object(let members) = current else { return false }
            let key = path.keys[depth]
            node = members.first { UTF8Order.equal($0.name, key) }?.value
                ?? members.first { $0.name.utf8.first == UInt8(ascii: "$") }?.value
            depth += 1
        }
        return false
    }

    private static func isTrue(_ value: JSONValue?) -> Bool {
        switch value {
        case .bool(true)?: true
        case .string(let s)? where s.utf8.elementsEqual("true".utf8): true
        default: false
        }
    }
}
