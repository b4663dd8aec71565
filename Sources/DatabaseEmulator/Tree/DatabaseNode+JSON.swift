import EmulatorModel
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
            // Sort stably, then keep the last of duplicate names (as a JSON object reader would).
            let sorted = pairs.enumerated().sorted {
                let c = DatabaseOrder.compareKeys($0.element.key, $1.element.key)
                return c != 0 ? c < 0 : $0.offset < $1.offset
            }.map(\.element)
            var unique: [(key: String, node: DatabaseNode)] = []
            unique.reserveCapacity(sorted.count)
            for pair in sorted {
                if let last = unique.last, UTF8Order.equal(last.key, pair.key) { unique.removeLast() }
                unique.append(pair)
            }
            unique.removeAll { $0.node.isEmpty }
            if unique.isEmpty { return .empty }
            return DatabaseNode(.children(DatabaseChildren(sorted: unique)), priority: priority)
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

    // MARK: Output

    /// The JSON value as REST returns it: objects whose keys are all array indices (and dense
    /// enough: max key < 2 × count) render as arrays with null holes, unless `export` is set;
    /// `export` adds `.priority` members and `{".value":…,".priority":…}` for prioritized leaves.
    package func json(export: Bool = false) -> JSONValue {
        switch content {
        case .empty: return .null
        case .bool, .int, .double, .string:
            let value = leafJSON
            if export, let priority { return .object([JSONMember(".value", value), JSONMember(".priority", priority)]) }
            return value
        case .children(let kids):
            if !export, let count = kids.arrayLength {
                var items = [JSONValue](repeating: .null, count: count)
                for (key, node) in kids {
                    if let i = Int(key) { items[i] = node.json() }
                }
                return .array(items)
            }
            var members: [JSONMember] = []
            members.reserveCapacity(kids.count + 1)
            for (key, node) in kids { members.append(JSONMember(key, node.json(export: export))) }
            if export, let priority { members.append(JSONMember(".priority", priority)) }
            return .object(members)
        }
    }

    var leafJSON: JSONValue {
        switch content {
        case .bool(let v): .bool(v)
        case .int(let v): .int(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .empty, .children: .null
        }
    }

    /// Compact JSON bytes of `json(export:)`.
    package func encoded(export: Bool = false, pretty: Bool = false) -> [UInt8] {
        JSONWriter.encode(json(export: export), pretty: pretty)
    }
}

extension DatabaseChildren {
    /// The array length when these children render as an array, else nil: every key a
    /// non-negative integer without a leading zero (here at most nine digits) and the largest
    /// below twice the child count (the JS SDK's `ChildrenNode.val()`,
    /// packages/database/src/core/snap/ChildrenNode.ts).
    var arrayLength: Int? {
        var maxKey = -1
        for key in keys {
            let bytes = key.utf8
            guard bytes.count <= 9, let first = bytes.first else { return nil }
            if first == UInt8(ascii: "0") && bytes.count > 1 { return nil }
            var value = 0
            for c in bytes {
                guard c >= 0x30 && c <= 0x39 else { return nil }
                value = value * 10 + Int(c - 0x30)
            }
            maxKey = Swift.max(maxKey, value)
        }
        guard maxKey >= 0, maxKey < 2 * keys.count else { return nil }
        return maxKey + 1
    }
}
