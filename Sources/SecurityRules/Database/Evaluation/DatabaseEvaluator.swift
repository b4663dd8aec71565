import EmulatorSupport

/// Evaluates one Realtime Database rule at one location. `&&`, `||` and `?:` are lazy left to
/// right; a runtime type error (a method on null, arithmetic on a boolean, `-` on strings) makes
/// the rule false, as the `failAtRuntime` cases that goldibex/targaryen recorded against live
/// Firebase show (`test/spec/lib/parser/fixtures.json`).
/// The counted sub-expressions one traced check evaluates (``RulesExpressionHit``): a reference,
/// so that the evaluator (a value, copied per rule) can note them. Lives for one check on one thread.
final class DatabaseExpressionHits {
    var hits: [UInt32] = []
}

struct DatabaseEvaluator {
    struct Failure: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    var view: DatabaseDataView
    var auth: JSONValue?
    var now: Double
    var query: DatabaseRulesQuery
    /// The rule's location: `data` and `newData` point here.
    var location: [String]
    var wildcards: [String: String]
    /// Where counted sub-expressions are noted; nil when the check is not traced.
    var hits: DatabaseExpressionHits?

    func evaluateRule(_ e: DatabaseExpression) -> Result<Bool, Failure> {
        do throws(Failure) {
            guard case .bool(let b) = try evaluate(e) else { return .failure(Failure("rule did not evaluate to a boolean")) }
            return .success(b)
        } catch {
            return .failure(error)
        }
    }

    func evaluate(_ e: DatabaseExpression) throws(Failure) -> DatabaseValue {
        switch e {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let d): return .number(d)
        case .string(let s): return .string(s)
        case .regex(let r, _): return .regex(r)
        case .array(let items):
            var values: [DatabaseValue] = []
            for item in items { values.append(try evaluate(item)) }
            return .array(values)
        case .variable(let variable):
            switch variable {
            case .auth: return auth.map { DatabaseValue(json: $0) } ?? .null
            case .root: return .snapshot(isNew: false, path: [])
            case .data: return .snapshot(isNew: false, path: location)
            case .newData: return .snapshot(isNew: true, path: location)
            case .now: return .number(now)
            case .query: return .query
            }
        case .wildcard(let name):
            guard let value = wildcards[name] else { throw Failure("unknown variable \(name)") }
            return .string(value)
        case .member(let base, let name):
            return try member(try evaluate(base), name)
        case .computedMember(let base, let key):
            let container = try evaluate(base)
            switch try evaluate(key) {
            case .string(let name): return try member(container, name)
            case .number(let d): return try member(container, DatabaseValue.text(d))
            default: throw Failure("invalid member key")
            }
        case .call(let receiver, let name, let arguments):
            let target = try evaluate(receiver)
            var values: [DatabaseValue] = []
            for argument in arguments { values.append(try evaluate(argument)) }
            return try call(target, name, values)
        case .not(let operand):
            guard case .bool(let b) = try evaluate(operand) else { throw Failure("'!' needs a boolean") }
            return .bool(!b)
        case .negate(let operand):
            guard case .number(let d) = try evaluate(operand) else { throw Failure("'-' needs a number") }
            return .number(-d)
        case .binary(let op, let a, let b):
            return try binary(op, try evaluate(a), try evaluate(b))
        case .and(let a, let b):
            guard case .bool(let left) = try evaluate(a) else { throw Failure("'&&' needs booleans") }
            if !left { return .bool(false) }
            guard case .bool(let right) = try evaluate(b) else { throw Failure("'&&' needs booleans") }
            return .bool(right)
        case .or(let a, let b):
            guard case .bool(let left) = try evaluate(a) else { throw Failure("'||' needs booleans") }
            if left { return .bool(true) }
            guard case .bool(let right) = try evaluate(b) else { throw Failure("'||' needs booleans") }
            return .bool(right)
        case .conditional(let c, let a, let b):
            guard case .bool(let condition) = try evaluate(c) else { throw Failure("'?:' needs a boolean condition") }
            return try evaluate(condition ? a : b)
        case .probe(let index, let operand):
            guard let hits else { return try evaluate(operand) }
            do throws(Failure) {
                let value = try evaluate(operand)
                let result: UInt32 =
                    switch value {
                    case .bool(true): RulesExpressionHit.isTrue
                    case .bool(false): RulesExpressionHit.isFalse
                    default: RulesExpressionHit.isOther
                    }
                hits.hits.append(RulesExpressionHit.make(index, result))
                return value
            } catch {
                hits.hits.append(RulesExpressionHit.make(index, RulesExpressionHit.isError))
                throw error
            }
        }
    }

    private func member(_ base: DatabaseValue, _ name: String) throws(Failure) -> DatabaseValue {
        switch base {
        case .null:
            if name == "length" { throw Failure("cannot read length of null") }
            return .null
        case .string(let s):
            if name == "length" { return .number(Double(s.utf16.count)) }
            return .null
        case .object(let json):
            return DatabaseValue(json: json[member: name])
        case .query:
            return queryMember(name)
        case .snapshot:
            throw Failure("snapshot members must be called")
        default:
            if name == "length" { throw Failure("cannot read length of \(base.typeName)") }
            return .null
        }
    }

    private func queryMember(_ name: String) -> DatabaseValue {
        switch name {
        case "orderByKey": return .bool(query.orderBy == nil || query.orderBy == .key)
        case "orderByValue": return .bool(query.orderBy == .value)
        case "orderByPriority": return .bool(query.orderBy == .priority)
        case "orderByChild":
            if case .child(let path)? = query.orderBy { return .string(path) }
            return .null
        case "startAt": return DatabaseValue(json: query.startAt)
        case "endAt": return DatabaseValue(json: query.endAt)
        case "equalTo": return DatabaseValue(json: query.equalTo)
        case "limitToFirst": return query.limitToFirst.map { .number(Double($0)) } ?? .null
        case "limitToLast": return query.limitToLast.map { .number(Double($0)) } ?? .null
        default: return .null
        }
    }

    private func binary(_ op: DatabaseBinaryOperator, _ a: DatabaseValue, _ b: DatabaseValue) throws(Failure) -> DatabaseValue {
        switch op {
        case .equal: return .bool(Self.strictEquals(a, b))
        case .notEqual: return .bool(!Self.strictEquals(a, b))
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let order: Int?
            switch (a, b) {
            case (.number(let x), .number(let y)):
                if x.isNaN || y.isNaN { return .bool(false) }
                order = x < y ? -1 : (x == y ? 0 : 1)
            case (.string(let x), .string(let y)):
                order = x.utf16.elementsEqual(y.utf16) ? 0 : (x.utf16.lexicographicallyPrecedes(y.utf16) ? -1 : 1)
            default:
                throw Failure("cannot compare \(a.typeName) with \(b.typeName)")
            }
            guard let order else { return .bool(false) }
            switch op {
            case .less: return .bool(order < 0)
            case .lessOrEqual: return .bool(order <= 0)
            case .greater: return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        case .add:
            switch (a, b) {
            case (.number(let x), .number(let y)): return .number(x + y)
            case (.string(let x), .string(let y)): return .string(x + y)
            case (.string(let x), .number(let y)): return .string(x + DatabaseValue.text(y))
            case (.number(let x), .string(let y)): return .string(DatabaseValue.text(x) + y)
            default: throw Failure("cannot add \(a.typeName) and \(b.typeName)")
            }
        case .subtract, .multiply, .divide, .remainder:
            guard case .number(let x) = a, case .number(let y) = b else {
                throw Failure("arithmetic needs numbers, found \(a.typeName) and \(b.typeName)")
            }
            switch op {
            case .subtract: return .number(x - y)
            case .multiply: return .number(x * y)
            // Production answers NaN (not Infinity) for a division by zero.
            case .divide: return .number(y == 0 ? .nan : x / y)
            default: return .number(y == 0 ? .nan : x.truncatingRemainder(dividingBy: y))
            }
        }
    }

    static func strictEquals(_ a: DatabaseValue, _ b: DatabaseValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x.utf8.elementsEqual(y.utf8)
        default: return false
        }
    }
}
