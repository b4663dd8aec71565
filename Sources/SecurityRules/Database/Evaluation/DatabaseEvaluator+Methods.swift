import EmulatorSupport

extension DatabaseEvaluator {
    func call(_ target: DatabaseValue, _ name: String, _ args: [DatabaseValue]) throws(Failure) -> DatabaseValue {
        switch target {
        case .snapshot(let isNew, let path): return try snapshotMethod(isNew, path, name, args)
        case .string(let s): return try stringMethod(s, name, args)
        case .null: throw Failure("cannot call \(name)() on null")
        default: throw Failure("cannot call \(name)() on \(target.typeName)")
        }
    }

    private func stringArgument(_ args: [DatabaseValue], _ i: Int, _ name: String) throws(Failure) -> String {
        guard i < args.count, case .string(let s) = args[i] else { throw Failure("\(name)() needs a string argument") }
        return s
    }

    private func stringMethod(_ s: String, _ name: String, _ args: [DatabaseValue]) throws(Failure) -> DatabaseValue {
        switch name {
        case "contains":
            let needle = try stringArgument(args, 0, name)
            return .bool(needle.isEmpty || s.utf8.firstRange(of: needle.utf8) != nil)
        case "beginsWith": return .bool(s.utf8.starts(with: try stringArgument(args, 0, name).utf8))
        case "endsWith": return .bool(s.utf8.reversed().starts(with: try stringArgument(args, 0, name).utf8.reversed()))
        case "replace":
            let target = try stringArgument(args, 0, name)
            let replacement = try stringArgument(args, 1, name)
            guard !target.isEmpty else { return .string(s) }
            return .string(Self.replacingAll(s, target, replacement))
        case "toLowerCase": return .string(s.lowercased())
        case "toUpperCase": return .string(s.uppercased())
        case "matches":
            guard args.count == 1, case .regex(let regex) = args[0] else { throw Failure("matches() needs a regular expression") }
            return .bool(regex.containsMatch(s))
        default: throw Failure("unknown method \(name)()")
        }
    }

    static func replacingAll(_ s: String, _ target: String, _ replacement: String) -> String {
        let bytes = Array(s.utf8)
        let needle = Array(target.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if i + needle.count <= bytes.count, bytes[i..<(i + needle.count)].elementsEqual(needle) {
                out.append(contentsOf: replacement.utf8)
                i += needle.count
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func node(_ isNew: Bool, _ path: [String]) -> JSONValue? {
        isNew ? view.new(path) : view.old(path)
    }

    static func childPath(_ path: [String], _ relative: String) -> [String] {
        // The usual `child('name')`: one key, nothing to split.
        if !relative.isEmpty, !relative.utf8.contains(UInt8(ascii: "/")) { return path + CollectionOfOne(relative) }
        return path + relative.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    private func snapshotMethod(_ isNew: Bool, _ path: [String], _ name: String, _ args: [DatabaseValue]) throws(Failure) -> DatabaseValue {
        switch name {
        case "child":
            return .snapshot(isNew: isNew, path: Self.childPath(path, try stringArgument(args, 0, name)))
        case "parent":
            guard !path.isEmpty else { throw Failure("parent() of the root") }
            return .snapshot(isNew: isNew, path: Array(path.dropLast()))
        case "val":
            return DatabaseValue(json: node(isNew, path).map(DatabaseDataView.plain))
        case "exists":
            return .bool(node(isNew, path) != nil)
        case "hasChild":
            return .bool(node(isNew, Self.childPath(path, try stringArgument(args, 0, name))) != nil)
        case "hasChildren":
            if args.isEmpty {
                guard case .object(let members)? = node(isNew, path) else { return .bool(false) }
                return .bool(members.contains { !$0.name.hasPrefix(".") })
            }
            guard args.count == 1, case .array(let names) = args[0], !names.isEmpty else {
                throw Failure("hasChildren() needs a non-empty array of names")
            }
            var keys: [String] = []
            for item in names {
                guard case .string(let key) = item else { throw Failure("hasChildren() needs string names") }
                keys.append(key)
            }
            for key in keys where node(isNew, Self.childPath(path, key)) == nil { return .bool(false) }
            return .bool(true)
        case "getPriority":
            guard case .object(let members)? = node(isNew, path) else { return .null }
            return DatabaseValue(json: members.first { $0.name.utf8.elementsEqual(".priority".utf8) }?.value)
        case "isNumber", "isString", "isBoolean":
            let value = try snapshotMethod(isNew, path, "val", [])
            switch (name, value) {
            case ("isNumber", .number), ("isString", .string), ("isBoolean", .bool): return .bool(true)
            default: return .bool(false)
            }
        default:
            throw Failure("unknown snapshot method \(name)()")
        }
    }
}
