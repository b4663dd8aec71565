package import EmulatorSupport

/// Where Realtime Database rules read the data as it is before the operation (`root`, `data`).
/// Reading a child must not copy the whole tree: implementations return the subtree at `path`.
///
/// Values are in export form, so rules can see priorities (`getPriority()`): an object may carry a
/// `".priority"` member, and a leaf with a priority is `{".value": v, ".priority": p}`.
package protocol DatabaseRulesDataSource: Sendable {
    /// The value at `path` (child keys from the root), nil when nothing is stored there.
    func value(at path: [String]) -> JSONValue?
}

/// A data source over one in-memory JSON tree (tests, small databases).
package struct DatabaseTreeSource: DatabaseRulesDataSource {
    package var root: JSONValue?

    package init(_ root: JSONValue?) {
        self.root = root
    }

    package func value(at path: [String]) -> JSONValue? {
        var node = root
        for key in path {
            guard let current = node else { return nil }
            node = current[member: key]
        }
        if case .null? = node { return nil }
        return node
    }
}

/// The data a rule sees: the stored tree and, for writes, the pending writes overlaid on it.
struct DatabaseDataView {
    var source: any DatabaseRulesDataSource
    /// Write locations and their new values (nil: delete). Locations do not overlap.
    var writes: [(path: [String], value: JSONValue?)]
    /// Where a traced check notes the counted sub-expressions its rules evaluate (the view is
    /// what every rule of one check shares); nil when not tracing.
    var hits: DatabaseExpressionHits? = nil

    func old(_ path: [String]) -> JSONValue? {
        source.value(at: path)
    }

    func new(_ path: [String]) -> JSONValue? {
        for write in writes where write.path.count <= path.count && path.starts(with: write.path) && !Self.isPriority(write.path) {
            var node = write.value
            for key in path.dropFirst(write.path.count) {
                guard let current = node else { return nil }
                node = current[member: key]
            }
            return Self.pruned(node)
        }
        // Stored data holds no nulls or empty objects: only the written values need pruning, so
        // an ancestor's new value costs the path to each write, not the size of its subtree.
        var base = old(path)
        for write in writes where write.path.count > path.count && write.path.starts(with: path) {
            let value = Self.isPriority(write.path) ? write.value : Self.pruned(write.value)
            base = Self.setting(base, Array(write.path.dropFirst(path.count))[...], value)
        }
        return base
    }

    /// Whether a write path names a priority (its last key is `.priority`).
    static func isPriority(_ path: [String]) -> Bool {
        path.last.map { $0.utf8.elementsEqual(".priority".utf8) } ?? false
    }

    static func setting(_ node: JSONValue?, _ path: ArraySlice<String>, _ value: JSONValue?) -> JSONValue? {
        guard let key = path.first else { return value }
        if path.count == 1, key.utf8.elementsEqual(".priority".utf8) { return settingPriority(node, value) }
        var members: [JSONMember] = []
        if case .object(let existing)? = node {
            // A leaf with a priority (`{".value": v, ".priority": p}`) becomes an object and keeps its priority.
            members = existing.filter { !$0.name.utf8.elementsEqual(".value".utf8) }
        }
        let child = members.firstIndex { $0.name.utf8.elementsEqual(key.utf8) }
        let updated = setting(child.map { members[$0].value }, path.dropFirst(), value)
        switch (child, updated) {
        case (let i?, let v?): members[i].value = v
        case (let i?, nil): members.remove(at: i)
        case (nil, let v?): members.append(JSONMember(key, v))
        case (nil, nil): break
        }
        return hasContent(members) ? .object(members) : nil
    }

    /// `node` with its priority replaced by `priority` (nil removes it); null carries none.
    static func settingPriority(_ node: JSONValue?, _ priority: JSONValue?) -> JSONValue? {
        guard let node else { return nil }
        guard case .object(var members) = node else {
            guard let priority else { return node }
            return .object([JSONMember(".value", node), JSONMember(".priority", priority)])
        }
        members.removeAll { $0.name.utf8.elementsEqual(".priority".utf8) }
        if let priority {
            members.append(JSONMember(".priority", priority))
        } else if members.count == 1, let only = members.first, only.name.utf8.elementsEqual(".value".utf8) {
            return only.value
        }
        return .object(members)
    }

    /// Whether an object's members hold data (a lone `.priority` is nothing: null has no priority).
    static func hasContent(_ members: [JSONMember]) -> Bool {
        members.contains { member in
            if member.name.utf8.first != UInt8(ascii: ".") { return true }
            if member.name.utf8.elementsEqual(".value".utf8), member.value != .null { return true }
            return false
        }
    }

    /// The plain value of an export-form node: no `.priority` members, `.value` leaves unwrapped.
    ///
    /// ```swift
    /// plain(.object([JSONMember(".value", .int(1)), JSONMember(".priority", .int(2))]))   // 1
    /// ```
    static func plain(_ node: JSONValue) -> JSONValue {
        guard case .object(let members) = node else { return node }
        if let inner = members.first(where: { $0.name.utf8.elementsEqual(".value".utf8) }) { return plain(inner.value) }
        guard members.contains(where: { $0.name.utf8.first == UInt8(ascii: ".") || isObject($0.value) }) else { return node }
        var kept: [JSONMember] = []
        kept.reserveCapacity(members.count)
        for member in members where member.name.utf8.first != UInt8(ascii: ".") {
            kept.append(JSONMember(member.name, plain(member.value)))
        }
        return .object(kept)
    }

    private static func isObject(_ value: JSONValue) -> Bool {
        if case .object = value { return true }
        return false
    }

    /// Drops null leaves and objects left empty (or holding only a priority), as the database stores them.
    static func pruned(_ node: JSONValue?) -> JSONValue? {
        guard let node else { return nil }
        switch node {
        case .null: return nil
        case .object(let members):
            var kept: [JSONMember] = []
            kept.reserveCapacity(members.count)
            var changed = false
            for member in members {
                if let value = pruned(member.value) {
                    if case .object = value, value != member.value { changed = true }
                    kept.append(JSONMember(member.name, value))
                } else {
                    changed = true
                }
            }
            if !hasContent(kept) { return nil }
            return changed ? .object(kept) : node
        default: return node
        }
    }
}
