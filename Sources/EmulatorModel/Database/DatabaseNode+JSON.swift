package import EmulatorSupport

extension DatabaseNode {
    /// Maximum UTF-8 bytes of a string leaf (10 MB).
    package static let maxStringBytes = 10 * 1024 * 1024

    /// Builds a node from written JSON, in plain or export format: `".priority"` members set
    /// priorities, `{".value": v, ".priority": p}` is a prioritised leaf, arrays become objects
    /// keyed `"0"`, `"1"`, …, nulls and empty objects vanish, other `.`-keys are ignored, and of
    /// two members with the same name the last wins.
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
        case .bool(let v): return .leaf(.bool(v))
        case .int(let v): return .leaf(.int(v))
        case .double(let v): return .leaf(.double(v))
        case .string(let s):
            if s.utf8.count > maxStringBytes {
                throw .invalidArgument("String at /\(path.joined(separator: "/")) exceeds the maximum size of 10 MB.")
            }
            return .leaf(.string(s))
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
            var priority: JSONValue?
            var value: JSONValue?
            var pairs: [(key: String, node: DatabaseNode)] = []
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
                    pairs.append((m.name, try build(m.value, path: path + [m.name], depth: depth, serverValue: serverValue)))
                }
            }
            if let value {
                if pairs.contains(where: { !$0.node.isEmpty }) {
                    throw .invalidArgument(
                        "Data at /\(path.joined(separator: "/")) contains \".value\" child in addition to actual children.")
                }
                var leaf = try build(value, path: path, depth: depth, serverValue: serverValue)
                if !leaf.isLeaf && !leaf.isEmpty {
                    throw .invalidArgument("\".value\" at /\(path.joined(separator: "/")) must be a primitive.")
                }
                if !leaf.isEmpty { leaf.priority = priority }
                return leaf
            }
            return DatabaseNode(children: pairs, priority: priority)
        }
    }

    /// An object node from unsorted children, possibly repeating a key (the last one wins) or
    /// empty (dropped); `.empty` when no child is left.
    package init(children pairs: [(key: String, node: DatabaseNode)], priority: JSONValue?) {
        if pairs.count <= 16 {
            // A few children (the usual object): insertion into sorted arrays, a later duplicate
            // replacing the earlier one.
            var keys: [String] = []
            var nodes: [DatabaseNode] = []
            keys.reserveCapacity(pairs.count)
            nodes.reserveCapacity(pairs.count)
            for pair in pairs {
                var index = keys.count
                var duplicate = false
                while index > 0 {
                    let order = DatabaseOrder.compareKeys(keys[index - 1], pair.key)
                    if order < 0 { break }
                    index -= 1
                    if order == 0 {
                        duplicate = true
                        break
                    }
                }
                if duplicate {
                    nodes[index] = pair.node
                } else {
                    keys.insert(pair.key, at: index)
                    nodes.insert(pair.node, at: index)
                }
            }
            var index = nodes.count
            while index > 0 {
                index -= 1
                if nodes[index].isEmpty {
                    keys.remove(at: index)
                    nodes.remove(at: index)
                }
            }
            self = keys.isEmpty ? .empty : DatabaseNode(.children(DatabaseChildren(sortedKeys: keys, nodes: nodes)), priority: priority)
            return
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
        self = unique.isEmpty ? .empty : DatabaseNode(.children(DatabaseChildren(sorted: unique)), priority: priority)
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

    /// The JSON value as REST returns it: objects whose keys are all array indices (and dense
    /// enough: max key < 2 × count) render as arrays with null holes, unless `export` is set;
    /// `export` adds `.priority` members and `{".value":…,".priority":…}` for prioritized leaves.
    package func json(export: Bool = false) -> JSONValue {
        switch content {
        case .empty: return .null
        case .bool, .int, .double, .string:
            let value = leafValue ?? .null
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

    /// JSON bytes of `json(export:)`, written straight from the node (no `JSONValue` in between).
    package func encoded(export: Bool = false, pretty: Bool = false) -> [UInt8] {
        var writer = JSONWriter(pretty: pretty)
        write(to: &writer, export: export)
        return writer.bytes
    }

    /// Appends what `json(export:)` gives to `writer`.
    package func write(to writer: inout JSONWriter, export: Bool = false) {
        switch content {
        case .empty: writer.appendNull()
        case .bool, .int, .double, .string:
            if export, let priority {
                writer.beginObject()
                writer.appendKey(".value")
                writeLeaf(to: &writer)
                writer.appendKey(".priority")
                writer.write(priority)
                writer.endObject()
            } else {
                writeLeaf(to: &writer)
            }
        case .children(let kids):
            if !export, let count = kids.arrayLength {
                // Integer keys sort numerically, so the items come in index order.
                writer.beginArray()
                var next = 0
                for (key, node) in kids {
                    guard let index = Int(key), index >= next, index < count else { continue }
                    while next < index {
                        writer.appendNull()
                        next += 1
                    }
                    node.write(to: &writer)
                    next += 1
                }
                while next < count {
                    writer.appendNull()
                    next += 1
                }
                writer.endArray()
                return
            }
            writer.beginObject()
            for (key, node) in kids {
                writer.appendKey(key)
                node.write(to: &writer, export: export)
            }
            if export, let priority {
                writer.appendKey(".priority")
                writer.write(priority)
            }
            writer.endObject()
        }
    }

    private func writeLeaf(to writer: inout JSONWriter) {
        switch content {
        case .bool(let v): writer.appendBool(v)
        case .int(let v): writer.appendInt(v)
        case .double(let v): writer.appendDouble(v)
        case .string(let v): writer.appendString(v)
        case .empty, .children: writer.appendNull()
        }
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
