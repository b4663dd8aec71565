/// Evaluates resolved expressions for one request (or one batch): counts expressions and
/// document-access calls, caches document reads and collects `debug()` output.
struct FirestoreEvaluator {
    /// What stays the same for a whole request or batch, behind one reference: the evaluator is
    /// a value that Swift may copy around helper calls, and this keeps such copies cheap.
    final class Context {
        let functions: [FirestoreFunction]
        let data: any FirestoreRulesDataSource
        let projectID: String

        init(functions: [FirestoreFunction], data: any FirestoreRulesDataSource, projectID: String) {
            self.functions = functions
            self.data = data
            self.projectID = projectID
        }
    }

    let context: Context
    var functions: [FirestoreFunction] { context.functions }
    var data: any FirestoreRulesDataSource { context.data }
    var projectID: String { context.projectID }
    var steps = 0
    var depth = 0
    var debugOutput: [String] = []
    /// The allows whose conditions ran and how each came out; nil when not tracing.
    var trace: [RulesLineOutcome]?
    /// The counted sub-expressions that ran (``RulesExpressionHit``); nil when not tracing.
    var hits: [UInt32]?
    /// Document reads of this request, keyed by `a:` / `g:` and the full name.
    var accessCache: [String: RulesDocument?] = [:]
    var accessCallsLeftInRequest = 10
    /// Shared across a batch (20); a single request uses its own 10.
    var accessCallsLeftInBatch = 20
    /// Set when a document-access limit was exceeded: the request is denied outright.
    var accessLimitMessage: String?

    /// Production allows 1,000 "expressions" per request; this counts every AST node, so it is higher.
    static let stepLimit = 10_000
    static let callDepthLimit = 20

    init(functions: [FirestoreFunction], data: any FirestoreRulesDataSource, projectID: String) {
        context = Context(functions: functions, data: data, projectID: projectID)
    }

    typealias Failure = RulesEvaluationError

    mutating func evaluate(_ e: FirestoreExpression, _ frame: [RulesValue]) throws(Failure) -> RulesValue {
        steps += 1
        if steps > Self.stepLimit { throw Failure("Exceeded maximum number of expressions evaluated.") }
        switch e {
        case .literal(let value):
            return value
        case .local(let slot):
            let value = frame[slot]
            if case .unbound(let message) = value { throw Failure(message) }
            return value
        case .member(let base, let name):
            return try Self.member(try evaluate(base, frame), name)
        case .index(let base, let index):
            let container = try evaluate(base, frame)
            return try Self.subscriptValue(container, try evaluate(index, frame))
        case .slice(let base, let start, let end):
            let container = try evaluate(base, frame)
            var from: RulesValue?
            if let start { from = try evaluate(start, frame) }
            var to: RulesValue?
            if let end { to = try evaluate(end, frame) }
            return try Self.slice(container, from, to)
        case .userCall(let index, let arguments):
            var values: [RulesValue] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments { values.append(try evaluate(argument, frame)) }
            return try call(index, values, frame)
        case .builtin(let builtin, let arguments):
            var values: [RulesValue] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments { values.append(try evaluate(argument, frame).materialized) }
            return try callBuiltin(builtin, values)
        case .method(let receiver, let name, let arguments):
            let target = try evaluate(receiver, frame)
            var values: [RulesValue] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments { values.append(try evaluate(argument, frame).materialized) }
            return try callMethod(target, name, values)
        case .not(let operand):
            guard case .bool(let b) = try evaluate(operand, frame) else { throw Failure("Unary ! needs a bool operand.") }
            return .bool(!b)
        case .negate(let operand):
            return try Self.negate(try evaluate(operand, frame))
        case .binary(let op, let a, let b):
            let left = try evaluate(a, frame)
            let right = try evaluate(b, frame)
            return try Self.binary(op, left, right)
        case .and(let a, let b):
            // Errors absorb commutatively: false wins over an error on either side.
            let left = boolOrError(a, frame)
            if case .success(false) = left { return .bool(false) }
            let right = boolOrError(b, frame)
            if case .success(false) = right { return .bool(false) }
            if case .failure(let error) = left { throw error }
            if case .failure(let error) = right { throw error }
            return .bool(true)
        case .or(let a, let b):
            let left = boolOrError(a, frame)
            if case .success(true) = left { return .bool(true) }
            let right = boolOrError(b, frame)
            if case .success(true) = right { return .bool(true) }
            if case .failure(let error) = left { throw error }
            if case .failure(let error) = right { throw error }
            return .bool(false)
        case .conditional(let c, let a, let b):
            guard case .bool(let condition) = try evaluate(c, frame) else {
                throw Failure("Conditional expression needs a bool condition.")
            }
            return try evaluate(condition ? a : b, frame)
        case .isType(let operand, let typeName):
            return .bool(Self.value(try evaluate(operand, frame), isType: typeName))
        case .list(let items):
            var values: [RulesValue] = []
            values.reserveCapacity(items.count)
            for item in items { values.append(try evaluate(item, frame).materialized) }
            return .list(values)
        case .map(let entries):
            var map: [String: RulesValue] = [:]
            for (k, v) in entries {
                guard case .string(let key) = try evaluate(k, frame) else { throw Failure("Map keys must be strings.") }
                map[key] = try evaluate(v, frame).materialized
            }
            return .map(map)
        case .path(let parts):
            var segments: [String] = []
            for part in parts {
                switch part {
                case .literal(let text): segments.append(text)
                case .interpolated(let inner):
                    switch try evaluate(inner, frame) {
                    case .string(let s): segments.append(s)
                    case .int(let i): segments.append(String(i))
                    case .path(let p): segments.append(contentsOf: p.segments)
                    case let other: throw Failure("Path segment must be a string, found \(other.typeName).")
                    }
                }
            }
            return .path(RulesPath(segments: segments))
        case .probe(let index, let operand):
            steps -= 1
            if hits == nil { return try evaluate(operand, frame) }
            do throws(Failure) {
                let value = try evaluate(operand, frame)
                let result: UInt32 =
                    switch value {
                    case .bool(true): RulesExpressionHit.isTrue
                    case .bool(false): RulesExpressionHit.isFalse
                    default: RulesExpressionHit.isOther
                    }
                hits?.append(RulesExpressionHit.make(index, result))
                return value
            } catch {
                hits?.append(RulesExpressionHit.make(index, RulesExpressionHit.isError))
                throw error
            }
        case .unresolved(let message):
            throw Failure(message)
        case .identifier(let name):
            throw Failure("Variable \(name) is not defined.")
        case .call(let name, _):
            throw Failure.functionNotFound(name)
        }
    }

    private mutating func boolOrError(_ e: FirestoreExpression, _ frame: [RulesValue]) -> Result<Bool, Failure> {
        do throws(Failure) {
            guard case .bool(let b) = try evaluate(e, frame) else {
                return .failure(Failure("Logical operator needs bool operands."))
            }
            return .success(b)
        } catch {
            return .failure(error)
        }
    }

    private mutating func call(_ index: Int, _ arguments: [RulesValue], _ callerFrame: [RulesValue]) throws(Failure) -> RulesValue {
        let function = functions[index]
        guard arguments.count == function.parameters.count else {
            throw Failure("Function \(function.name) expects \(function.parameters.count) arguments, got \(arguments.count).")
        }
        depth += 1
        defer { depth -= 1 }
        if depth > Self.callDepthLimit { throw Failure("Exceeded maximum function call depth (20).") }
        var frame = Array(callerFrame.prefix(function.capturedSlots))
        frame.reserveCapacity(function.capturedSlots + arguments.count + function.lets.count)
        frame.append(contentsOf: arguments)
        for (_, expression) in function.lets {
            // A failing binding only matters if it is read.
            do throws(Failure) {
                frame.append(try evaluate(expression, frame))
            } catch {
                frame.append(.unbound(error.message))
            }
        }
        return try evaluate(function.body, frame)
    }

    static func value(_ value: RulesValue, isType typeName: String) -> Bool {
        switch (typeName, value) {
        case ("number", .int), ("number", .float): true
        case ("map", .map), ("map", .lazy), ("map", .symbolic): true
        default: value.typeName == typeName
        }
    }
}
