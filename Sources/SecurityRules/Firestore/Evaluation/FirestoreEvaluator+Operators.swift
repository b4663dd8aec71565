extension FirestoreEvaluator {
    /// `x.name`: map fields, null errors, the symbolic document of a list request.
    static func member(_ base: RulesValue, _ name: String) throws(Failure) -> RulesValue {
        switch base {
        case .map(let map):
            guard let value = map[name] else { throw Failure.undefinedProperty(name) }
            return value
        case .lazy(let map):
            guard let value = map.member(name) else { throw Failure.undefinedProperty(name) }
            return value
        case .null:
            throw Failure.nullValue
        case .symbolic(let document):
            return try symbolicMember(document, name)
        default:
            throw Failure.undefinedProperty(name)
        }
    }

    static func symbolicMember(_ document: RulesSymbolicDocument, _ name: String) throws(Failure) -> RulesValue {
        if document.isResource {
            guard name == "data" else {
                throw Failure("Property \(name) is undefined on object: a query's documents are only known through its filters.")
            }
            var data = document
            data.isResource = false
            return .symbolic(data)
        }
        let path = (document.prefix + [name]).joined(separator: ".")
        if let value = document.pinned[path] { return value }
        let childPrefix = path + "."
        if document.ranges[path] != nil
            || document.pinned.keys.contains(where: { $0.hasPrefix(childPrefix) })
            || document.ranges.keys.contains(where: { $0.hasPrefix(childPrefix) })
        {
            var child = document
            child.prefix.append(name)
            return .symbolic(child)
        }
        // The field is unknown for the query's potential documents; the official emulator
        // reports this as a null value (firebase-tools#2217: `Null value error. for 'list' @ L11`).
        throw Failure.nullValue
    }

    static func subscriptValue(_ base: RulesValue, _ index: RulesValue) throws(Failure) -> RulesValue {
        switch (base, index) {
        case (.map, .string(let key)), (.lazy, .string(let key)), (.symbolic, .string(let key)), (.null, .string(let key)):
            return try member(base, key)
        case (.list(let items), .int(let i)):
            guard i >= 0, i < items.count else { throw Failure("Index out of range: \(i).") }
            return items[Int(i)]
        case (.path(let path), .int(let i)):
            guard i >= 0, i < path.segments.count else { throw Failure("Index out of range: \(i).") }
            return .string(path.segments[Int(i)])
        case (.string(let s), .int(let i)):
            let scalars = Array(s.unicodeScalars)
            guard i >= 0, i < scalars.count else { throw Failure("Index out of range: \(i).") }
            return .string(String(scalars[Int(i)]))
        default:
            throw Failure("Invalid index of type \(index.typeName) into \(base.typeName).")
        }
    }

    static func slice(_ base: RulesValue, _ start: RulesValue?, _ end: RulesValue?) throws(Failure) -> RulesValue {
        func bounds(_ count: Int) throws(Failure) -> Range<Int> {
            var from = 0
            var to = count
            if let start {
                guard case .int(let i) = start else { throw Failure("Range bounds must be int.") }
                from = Int(clamping: i)
            }
            if let end {
                guard case .int(let i) = end else { throw Failure("Range bounds must be int.") }
                to = Int(clamping: i)
            }
            guard from >= 0, to <= count, from <= to else { throw Failure("Range [\(from):\(to)] is out of bounds.") }
            return from..<to
        }
        switch base {
        case .list(let items): return .list(Array(items[try bounds(items.count)]))
        case .string(let s):
            let scalars = Array(s.unicodeScalars)
            var out = String.UnicodeScalarView()
            out.append(contentsOf: scalars[try bounds(scalars.count)])
            return .string(String(out))
        default: throw Failure("Range is not supported on \(base.typeName).")
        }
    }

    static func negate(_ value: RulesValue) throws(Failure) -> RulesValue {
        switch value {
        case .int(let i):
            guard i != Int64.min else { throw Failure("Integer overflow.") }
            return .int(-i)
        case .float(let d): return .float(-d)
        case .duration(let d): return .duration(RulesDuration(seconds: -d.seconds, nanos: -d.nanos))
        default: throw Failure("Unary - needs a number, found \(value.typeName).")
        }
    }

    static func binary(_ op: RulesBinaryOperator, _ a: RulesValue, _ b: RulesValue) throws(Failure) -> RulesValue {
        switch op {
        case .equal: return .bool(try equals(a, b))
        case .notEqual: return .bool(!(try equals(a, b)))
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            return .bool(try compare(op, a, b))
        case .in:
            switch b {
            case .list(let items), .set(let items): return .bool(RulesValue.contains(items, a))
            case .map(let map):
                guard case .string(let key) = a else { return .bool(false) }
                return .bool(map[key] != nil)
            case .lazy(let map):
                guard case .string(let key) = a else { return .bool(false) }
                return .bool(map.member(key) != nil)
            case .symbolic(let document):
                guard case .string(let key) = a else { return .bool(false) }
                do throws(Failure) {
                    _ = try symbolicMember(document, key)
                    return .bool(true)
                } catch {
                    throw Failure("'in' on a query's documents needs the query to constrain '\(key)'.")
                }
            default: throw Failure.unsupported("in", a, b)
            }
        case .add, .subtract, .multiply, .divide, .remainder:
            return try arithmetic(op, a, b)
        }
    }

    static func equals(_ a: RulesValue, _ b: RulesValue) throws(Failure) -> Bool {
        if case .symbolic = a { throw Failure("Cannot compare a query's document: the query does not constrain it.") }
        if case .symbolic = b { throw Failure("Cannot compare a query's document: the query does not constrain it.") }
        return a.materialized.rulesEquals(b.materialized)
    }

    static func compare(_ op: RulesBinaryOperator, _ a: RulesValue, _ b: RulesValue) throws(Failure) -> Bool {
        if case .symbolic(let document) = a, let range = document.ranges[document.prefix.joined(separator: ".")] {
            return try implied(op, range, b)
        }
        if case .symbolic(let document) = b, let range = document.ranges[document.prefix.joined(separator: ".")] {
            let flipped: RulesBinaryOperator =
                switch op {
                case .less: .greater
                case .lessOrEqual: .greaterOrEqual
                case .greater: .less
                default: .lessOrEqual
                }
            return try implied(flipped, range, a)
        }
        guard let order = a.rulesCompare(b) else {
            if case .float(let x) = a, x.isNaN { return false }
            if case .float(let y) = b, y.isNaN { return false }
            throw Failure.unsupported(op.rawValue, a, b)
        }
        switch op {
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        default: return order >= 0
        }
    }

    /// Decides `field op constant` for every value the query's range admits; an undecidable
    /// comparison is an error (the query might return documents that fail the rule).
    static func implied(_ op: RulesBinaryOperator, _ range: RulesRange, _ constant: RulesValue) throws(Failure) -> Bool {
        func cmp(_ x: RulesValue) throws(Failure) -> Int {
            guard let order = x.rulesCompare(constant) else { throw Failure.unsupported(op.rawValue, x, constant) }
            return order
        }
        switch op {
        case .greater, .greaterOrEqual:
            if let lower = range.lower {
                let order = try cmp(lower)
                if order > 0 || (order == 0 && (op == .greaterOrEqual || !range.lowerInclusive)) { return true }
            }
        case .less, .lessOrEqual:
            if let upper = range.upper {
                let order = try cmp(upper)
                if order < 0 || (order == 0 && (op == .lessOrEqual || !range.upperInclusive)) { return true }
            }
        default: break
        }
        throw Failure("The query's range on this field does not prove the condition.")
    }

    static func arithmetic(_ op: RulesBinaryOperator, _ a: RulesValue, _ b: RulesValue) throws(Failure) -> RulesValue {
        switch (a, b) {
        case (.int(let x), .int(let y)):
            let result: (Int64, Bool)
            switch op {
            case .add: result = x.addingReportingOverflow(y)
            case .subtract: result = x.subtractingReportingOverflow(y)
            case .multiply: result = x.multipliedReportingOverflow(by: y)
            case .divide:
                guard y != 0 else { throw Failure("Division by zero.") }
                result = x.dividedReportingOverflow(by: y)
            default:
                guard y != 0 else { throw Failure("Modulo by zero.") }
                result = x.remainderReportingOverflow(dividingBy: y)
            }
            if result.1 { throw Failure("Integer overflow.") }
            return .int(result.0)
        case (.int, .float), (.float, .int), (.float, .float):
            let x = Self.double(a), y = Self.double(b)
            switch op {
            case .add: return .float(x + y)
            case .subtract: return .float(x - y)
            case .multiply: return .float(x * y)
            case .divide:
                guard y != 0 else { throw Failure("Division by zero.") }
                return .float(x / y)
            default:
                guard y != 0 else { throw Failure("Modulo by zero.") }
                return .float(x.truncatingRemainder(dividingBy: y))
            }
        case (.string(let x), .string(let y)) where op == .add:
            return .string(x + y)
        case (.timestamp(let t), .duration(let d)) where op == .add || op == .subtract:
            return .timestamp(try Self.shift(t, d, negate: op == .subtract))
        case (.duration(let d), .timestamp(let t)) where op == .add:
            return .timestamp(try Self.shift(t, d, negate: false))
        case (.timestamp(let x), .timestamp(let y)) where op == .subtract:
            // Seconds and nanos apart: the span of valid timestamps overflows Int64 nanoseconds.
            var seconds = x.seconds - y.seconds
            var nanos = Int64(x.nanos) - Int64(y.nanos)
            if seconds > 0, nanos < 0 {
                seconds -= 1
                nanos += 1_000_000_000
            } else if seconds < 0, nanos > 0 {
                seconds += 1
                nanos -= 1_000_000_000
            }
            return .duration(RulesDuration(seconds: seconds, nanos: Int32(nanos)))
        case (.duration(let x), .duration(let y)) where op == .add || op == .subtract:
            guard let nx = x.totalNanos, let ny = y.totalNanos else { throw Failure("Duration overflow.") }
            let (sum, overflow) = op == .add ? nx.addingReportingOverflow(ny) : nx.subtractingReportingOverflow(ny)
            if overflow { throw Failure("Duration overflow.") }
            return .duration(RulesDuration(totalNanos: sum))
        default:
            throw Failure.unsupported(op.rawValue, a, b)
        }
    }

    static func double(_ v: RulesValue) -> Double {
        switch v {
        case .int(let i): Double(i)
        case .float(let d): d
        default: .nan
        }
    }

    static func shift(_ t: RulesTimestamp, _ d: RulesDuration, negate: Bool) throws(Failure) -> RulesTimestamp {
        let sign: Int64 = negate ? -1 : 1
        var seconds = t.seconds + sign * d.seconds
        var nanos = Int64(t.nanos) + sign * Int64(d.nanos)
        seconds += RulesCalendar.floorDiv(nanos, 1_000_000_000)
        nanos -= RulesCalendar.floorDiv(nanos, 1_000_000_000) * 1_000_000_000
        // 0001-01-01 ... 9999-12-31
        guard seconds >= -62_135_596_800, seconds <= 253_402_300_799 else { throw Failure("Timestamp out of range.") }
        return RulesTimestamp(seconds: seconds, nanos: Int32(nanos))
    }
}
