package import EmulatorModel
package import EmulatorSupport

extension DatabaseNode {
    /// Builds the node a validated write value stands for (see `DatabaseInputValidator`),
    /// resolving server values against `existing` (the current node at the written location) and
    /// `now` (the request's server time in ms). Arrays become objects keyed "0", "1", …; nulls and
    /// empty objects vanish; `.value`/`.priority` become a prioritized leaf or object.
    package static func build(_ json: JSONValue, existing: DatabaseNode, now: Int64) -> DatabaseNode {
        switch json {
        case .null: return .empty
        case .bool(let v): return .leaf(.bool(v))
        case .int(let v): return .leaf(.int(v))
        case .double(let v): return .leaf(.double(v))
        case .string(let v): return .leaf(.string(v))
        case .array(let items):
            var pairs: [(key: String, node: DatabaseNode)] = []
            for (i, item) in items.enumerated() {
                let key = String(i)
                let node = build(item, existing: existing.child(key), now: now)
                if !node.isEmpty { pairs.append((key, node)) }
            }
            pairs.sort { DatabaseOrder.compareKeys($0.key, $1.key) < 0 }
            return pairs.isEmpty ? .empty : DatabaseNode(.children(DatabaseChildren(sorted: pairs)))
        case .object(let members):
            var priority: JSONValue? = nil
            var value: JSONValue? = nil
            var serverValue: JSONValue? = nil
            var pairs: [(key: String, node: DatabaseNode)] = []
            pairs.reserveCapacity(members.count)
            for member in members {
                switch member.name {
                case ".priority": priority = resolvePriority(member.value, now: now)
                case ".value": value = member.value
                case ".sv": serverValue = member.value
                default:
                    if member.name.utf8.first == UInt8(ascii: ".") { continue }
                    pairs.append((member.name, build(member.value, existing: existing.child(member.name), now: now)))
                }
            }
            if let serverValue {
                var node = resolveServerValue(serverValue, existing: existing, now: now)
                node.priority = node.isEmpty ? nil : priority
                return node
            }
            if let value {
                var node = build(value, existing: existing, now: now)
                node.priority = node.isEmpty ? nil : priority
                return node
            }
            return DatabaseNode(children: pairs, priority: priority)
        }
    }

    private static func resolvePriority(_ json: JSONValue, now: Int64) -> JSONValue? {
        switch json {
        case .int, .double, .string: return json
        case .object:
            if json[member: ".sv"] != nil { return .int(now) }
            return nil
        default: return nil
        }
    }

    /// `{".sv":"timestamp"}` → now; `{".sv":{"increment":n}}` → current + n (n when the current
    /// value is not a number), double arithmetic when either side is a double or the sum overflows.
    static func resolveServerValue(_ sv: JSONValue, existing: DatabaseNode, now: Int64) -> DatabaseNode {
        if case .string = sv { return .leaf(.int(now)) }
        guard let delta = sv[member: "increment"] else { return .empty }
        switch (existing.content, delta) {
        case (.int(let a), .int(let b)):
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? .leaf(.double(Double(a) + Double(b))) : .leaf(.int(sum))
        case (.int(let a), .double(let b)): return .leaf(.double(Double(a) + b))
        case (.double(let a), .int(let b)): return .leaf(.double(a + Double(b)))
        case (.double(let a), .double(let b)): return .leaf(.double(a + b))
        case (_, .int(let b)): return .leaf(.int(b))
        case (_, .double(let b)): return .leaf(.double(b))
        default: return .empty
        }
    }

    /// The ETag REST returns: the hash, or `null_etag` for a null location.
    package var etag: String { isEmpty ? "null_etag" : hash }
}
