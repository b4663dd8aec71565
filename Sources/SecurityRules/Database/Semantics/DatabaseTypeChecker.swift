/// The deploy-time check production runs on every rule: a rule must be boolean, names must
/// exist, snapshots must be used through their methods, literal arguments must have the right
/// type (the `isValid: false` cases that goldibex/targaryen recorded against live Firebase,
/// `test/spec/lib/parser/fixtures.json`).
struct DatabaseTypeChecker {
    enum StaticType: Equatable {
        /// Unknown (values from `auth`, query parameters).
        case any
        /// What `val()` returns: string, number, boolean or null.
        case primitive
        case bool, number, string, null, snapshot, query, regex, array
    }

    struct Failure: Error {
        var message: String
    }

    var kind: DatabaseRuleKind
    var wildcards: Set<String>

    static let snapshotMethods: [String: StaticType] = [
        "val": .primitive, "child": .snapshot, "parent": .snapshot, "hasChild": .bool, "hasChildren": .bool,
        "exists": .bool, "getPriority": .primitive, "isNumber": .bool, "isString": .bool, "isBoolean": .bool,
    ]
    static let stringMethods: [String: StaticType] = [
        "contains": .bool, "beginsWith": .bool, "endsWith": .bool, "replace": .string, "toLowerCase": .string,
        "toUpperCase": .string, "matches": .bool,
    ]
    static let queryMembers: Set<String> = [
        "orderByKey", "orderByChild", "orderByValue", "orderByPriority", "startAt", "endAt", "equalTo", "limitToFirst",
        "limitToLast",
    ]

    /// Checks a whole rule: it must produce a boolean.
    func checkRule(_ e: DatabaseExpression) throws(Failure) {
        switch try check(e) {
        case .bool, .any, .primitive: return
        case let other: throw Failure(message: "rule does not evaluate to a boolean (found \(other))")
        }
    }

    private func isBoolish(_ t: StaticType) -> Bool { t == .bool || t == .any || t == .primitive }

    func check(_ e: DatabaseExpression) throws(Failure) -> StaticType {
        switch e {
        case .null: return .null
        case .bool: return .bool
        case .number: return .number
        case .string: return .string
        case .regex: return .regex
        case .array(let items):
            for item in items { _ = try check(item) }
            return .array
        case .variable(let variable):
            switch variable {
            case .auth: return .any
            case .root, .data: return .snapshot
            case .newData:
                guard kind != .read else { throw Failure(message: "newData is not available in .read rules") }
                return .snapshot
            case .now: return .number
            case .query:
                guard kind == .read else { throw Failure(message: "query is only available in .read rules") }
                return .query
            }
        case .wildcard(let name):
            guard wildcards.contains(name) else { throw Failure(message: "unknown variable '\(name)'") }
            return .string
        case .member(let base, let name):
            let baseType = try check(base)
            switch baseType {
            case .snapshot:
                throw Failure(message: "snapshot member '\(name)' must be called as a method")
            case .query:
                guard Self.queryMembers.contains(name) else { throw Failure(message: "unknown query member '\(name)'") }
                return .any
            case .primitive, .string:
                guard name == "length" else { throw Failure(message: "no property '\(name)' on a string") }
                return .number
            case .any, .null: return name == "length" ? .number : .any
            default: throw Failure(message: "no property '\(name)' on \(baseType)")
            }
        case .computedMember(let base, let key):
            let baseType = try check(base)
            _ = try check(key)
            guard baseType == .any || baseType == .null else {
                throw Failure(message: "computed member access is only allowed on auth values")
            }
            return .any
        case .call(let receiver, let name, let arguments):
            let receiverType = try check(receiver)
            var argumentTypes: [StaticType] = []
            for argument in arguments { argumentTypes.append(try check(argument)) }
            switch receiverType {
            case .snapshot:
                guard let result = Self.snapshotMethods[name] else { throw Failure(message: "unknown snapshot method '\(name)'") }
                try checkSnapshotArguments(name, arguments, argumentTypes)
                return result
            case .any, .primitive, .string:
                guard let result = Self.stringMethods[name] else { throw Failure(message: "unknown method '\(name)'") }
                try checkStringArguments(name, argumentTypes)
                return result
            default:
                throw Failure(message: "no method '\(name)' on \(receiverType)")
            }
        case .probe(_, let operand):
            return try check(operand)
        case .not(let operand):
            let t = try check(operand)
            guard isBoolish(t) else { throw Failure(message: "'!' needs a boolean") }
            return .bool
        case .negate(let operand):
            let t = try check(operand)
            guard t != .snapshot, t != .bool, t != .string else { throw Failure(message: "'-' needs a number") }
            return .number
        case .binary(let op, let a, let b):
            let left = try check(a)
            let right = try check(b)
            if left == .snapshot || right == .snapshot { throw Failure(message: "snapshots cannot be used with '\(op.rawValue)'") }
            if left == .regex || right == .regex { throw Failure(message: "a regular expression can only be passed to matches()") }
            switch op {
            case .equal, .notEqual: return .bool
            case .less, .lessOrEqual, .greater, .greaterOrEqual:
                if left == .bool || right == .bool { throw Failure(message: "booleans cannot be compared with '\(op.rawValue)'") }
                return .bool
            case .add:
                if left == .string || right == .string { return .string }
                return left == .number && right == .number ? .number : .any
            default:
                if left == .bool || right == .bool { throw Failure(message: "arithmetic on a boolean") }
                return .number
            }
        case .and(let a, let b), .or(let a, let b):
            let left = try check(a)
            let right = try check(b)
            guard isBoolish(left), isBoolish(right) else { throw Failure(message: "'&&' and '||' need booleans") }
            return .bool
        case .conditional(let c, let a, let b):
            let condition = try check(c)
            let left = try check(a)
            let right = try check(b)
            guard isBoolish(condition) else { throw Failure(message: "the condition of '?:' must be a boolean") }
            guard isBoolish(left), isBoolish(right) else { throw Failure(message: "both branches of '?:' must be booleans") }
            return .bool
        }
    }

    private func checkSnapshotArguments(_ name: String, _ arguments: [DatabaseExpression], _ types: [StaticType]) throws(Failure) {
        func bad() -> Failure { Failure(message: "invalid arguments to \(name)()") }
        switch name {
        case "child", "hasChild":
            guard types.count == 1, types[0] != .bool, types[0] != .snapshot, types[0] != .regex, types[0] != .array else { throw bad() }
        case "hasChildren":
            if types.isEmpty { return }
            guard types.count == 1, case .array(let items) = arguments[0], !items.isEmpty else { throw bad() }
            for item in items {
                switch item {
                case .number, .bool, .null, .array, .regex: throw bad()
                default: break
                }
            }
        default:
            guard types.isEmpty else { throw bad() }
        }
    }

    private func checkStringArguments(_ name: String, _ types: [StaticType]) throws(Failure) {
        func bad() -> Failure { Failure(message: "invalid arguments to \(name)()") }
        func stringish(_ t: StaticType) -> Bool { t == .string || t == .any || t == .primitive }
        switch name {
        case "contains", "beginsWith", "endsWith":
            guard types.count == 1, stringish(types[0]) else { throw bad() }
        case "replace":
            guard types.count == 2, stringish(types[0]), stringish(types[1]) else { throw bad() }
        case "matches":
            guard types.count == 1, types[0] == .regex else { throw Failure(message: "matches() needs a regular expression literal") }
        default:
            guard types.isEmpty else { throw bad() }
        }
    }
}
