package import EmulatorSupport

extension DatabaseNode {
    /// Builds a node from written JSON, in plain or export format: `".priority"` members set
    /// priorities, `{".value": v, ".priority": p}` is a prioritised leaf, arrays become objects
    /// keyed `"0"`, `"1"`, …, nulls and empty objects vanish, other `.`-keys are ignored.
    ///
    /// A `{".sv": …}` object is passed to `serverValue` with its location (relative to the
    /// written node), which returns the resolved JSON; without a resolver it is rejected.
    /// `depth` is the number of keys above the written location, so the 32-level limit applies
    /// to the full path. Throws `INVALID_ARGUMENT` for invalid keys, too deep data, `.value`
    /// beside other children, a string over 10 MB, or an invalid priority.
    package init(
        json: JSONValue, depth: Int = 0,
        serverValue: ((JSONValue, DatabasePath) throws(EmulatorError) -> JSONValue)? = nil
    ) throws(EmulatorError) {
        self = try DatabaseNode.build(json, path: [], depth: depth, serverValue: serverValue)
    }

    private static func build(
        _ json: JSONValue, path: [String], depth: Int,
        serverValue: ((JSONValue, DatabasePath) throws(EmulatorError) -> JSONValue)?
    ) throws(EmulatorError) -> DatabaseNode {
        switch json {
        case .null: return .empty
        case .bool, .int, .double: return .leaf(json)
        case .string(let s):
            if s.utf8.count > maxStringBytes {
                throw .invalidArgument("String at /\(path.joined(separator: "/")) exceeds the maximum size of 10 MB.")
            }
            return .leaf(json)
        case .array(let items):
            var members: [JSONMember] = []
            for (i, item) in items.enumerated() { members.append(JSONMember(String(i), item)) }
            return try build(.object(members), path: path, depth: depth, serverValue: serverValue)
        case .object(let members):
            if members.contains(where: { $0.name == ".sv" }) {
                guard let serverValue else { throw .invalidArgument("unrecognized server value") }
                let resolved = try serverValue(json, DatabasePath(keys: path))
                if case .object(let m) = resolved, m.contains(where: { $0.name == ".sv" }) {
                    throw .invalidArgument("unrecognized server value")
                }
                return try build(resolved, path: path, depth: depth, serverValue: nil)
            }
            var priority: JSONValue? = nil
            var value: JSONValue? = nil
            var children: [Child] = []
            for m in members {
                switch m.name {
                case ".priority":
                    priority = try validPriority(m.value, path: path, serverValue: serverValue)
                case ".value":
                    value = m.value
                default:
                    if m.name.utf8.first == 0x2E { continue }  // other metadata keys are ignored
                    try DatabasePath.validateKey(m.name)
                    if depth + path.count + 1 > DatabasePath.maxDepth {
                        throw .invalidArgument(
                            "Path specified exceeds the maximum depth that can be written (\(DatabasePath.maxDepth)).")
                    }
                    let node = try build(m.value, path: path + [m.name], depth: depth, serverValue: serverValue)
                    if !node.isEmpty { children.append(Child(key: m.name, node: node)) }
                }
            }
            if let value {
                if !children.isEmpty {
                    throw .invalidArgument(
                        "Data at /\(path.joined(separator: "/")) contains \".value\" child in addition to actual children.")
                }
                var leaf = try build(value, path: path, depth: depth, serverValue: serverValue)
                if leaf.leafValue == nil && !leaf.isEmpty {
                    throw .invalidArgument("\".value\" at /\(path.joined(separator: "/")) must be a primitive.")
                }
                leaf.setPriority(priority)
                return leaf
            }
            if children.isEmpty { return .empty }
            children.sort { DatabaseOrder.compareKeys($0.key, $1.key) < 0 }
            var unique: [Child] = []
            unique.reserveCapacity(children.count)
            for c in children {
                if let last = unique.last, UTF8Order.equal(last.key, c.key) {
                    unique[unique.count - 1] = c
                } else {
                    unique.append(c)
                }
            }
            return DatabaseNode(content: .children(unique), priority: priority)
        }
    }

    private static func validPriority(
        _ json: JSONValue, path: [String], serverValue: ((JSONValue, DatabasePath) throws(EmulatorError) -> JSONValue)?
    ) throws(EmulatorError) -> JSONValue? {
        var json = json
        if case .object(let m) = json, m.contains(where: { $0.name == ".sv" }) {
            guard let serverValue else { throw .invalidArgument("unrecognized server value") }
            json = try serverValue(json, DatabasePath(keys: path + [".priority"]))
        }
        switch json {
        case .null: return nil
        case .int, .double, .string: return json
        default:
            throw .invalidArgument("Invalid priority at /\(path.joined(separator: "/")): must be a string, number or null.")
        }
    }

    /// The JSON a read returns. Plain form renders an object as an array when every key is a
    /// non-negative integer without leading zeros and the largest key < 2 × the child count
    /// (missing slots null). `export: true` keeps objects, adds `".priority"`, and writes a
    /// prioritised leaf as `{".value": v, ".priority": p}`. The empty node is `null`.
    package func json(export: Bool = false) -> JSONValue {
        switch content {
        case .empty:
            return .null
        case .leaf(let v):
            if export, let priority { return .object([JSONMember(".value", v), JSONMember(".priority", priority)]) }
            return v
        case .children(let list):
            if !export, let array = arrayForm(list) { return array }
            var members: [JSONMember] = []
            members.reserveCapacity(list.count + 1)
            for c in list { members.append(JSONMember(c.key, c.node.json(export: export))) }
            if export, let priority { members.append(JSONMember(".priority", priority)) }
            return .object(members)
        }
    }

    private func arrayForm(_ list: [Child]) -> JSONValue? {
        var maxIndex = -1
        for c in list {
            guard let i = Self.arrayIndex(c.key) else { return nil }
            maxIndex = max(maxIndex, i)
        }
        guard maxIndex < 2 * list.count else { return nil }
        var items = [JSONValue](repeating: .null, count: maxIndex + 1)
        for c in list {
            if let i = Self.arrayIndex(c.key) { items[i] = c.node.json(export: false) }
        }
        return .array(items)
    }

    /// `"0"` or a digit string without a leading zero that fits in 31 bits.
    private static func arrayIndex(_ key: String) -> Int? {
        let b = key.utf8
        guard let first = b.first, first >= 0x30, first <= 0x39, b.count <= 10 else { return nil }
        if first == 0x30 && b.count > 1 { return nil }
        var v = 0
        for c in b {
            guard c >= 0x30 && c <= 0x39 else { return nil }
            v = v * 10 + Int(c - 0x30)
        }
        return v <= Int(Int32.max) ? v : nil
    }
}
