extension FirestoreEvaluator {
    mutating func callBuiltin(_ builtin: RulesBuiltin, _ args: [RulesValue]) throws(Failure) -> RulesValue {
        func arity(_ n: Int) throws(Failure) {
            guard args.count == n else { throw Failure.invalidArguments(builtin.rawValue) }
        }
        func number(_ i: Int) throws(Failure) -> Double {
            switch args[i] {
            case .int(let x): return Double(x)
            case .float(let x): return x
            default: throw Failure.invalidArguments(builtin.rawValue)
            }
        }
        func integer(_ i: Int) throws(Failure) -> Int64 {
            guard case .int(let x) = args[i] else { throw Failure.invalidArguments(builtin.rawValue) }
            return x
        }
        func toInt(_ d: Double) throws(Failure) -> RulesValue {
            guard d.isFinite, d >= -9.2e18, d <= 9.2e18 else { throw Failure("Value out of int range.") }
            return .int(Int64(d))
        }
        switch builtin {
        case .get, .getAfter, .exists, .existsAfter:
            try arity(1)
            guard case .path(let path) = args[0] else { throw Failure.invalidArguments(builtin.rawValue) }
            let after = builtin == .getAfter || builtin == .existsAfter
            let document = try read(path, afterWrites: after)
            if builtin == .exists || builtin == .existsAfter { return .bool(document != nil) }
            return document.map { Self.resourceValue($0) } ?? .null
        case .debug:
            try arity(1)
            debugOutput.append(args[0].displayText)
            return args[0]
        case .int:
            try arity(1)
            switch args[0] {
            case .int: return args[0]
            case .float(let d): return try toInt(d.rounded(.towardZero))
            case .string(let s):
                guard let value = Int64(s) else { throw Failure("Cannot convert '\(s)' to int.") }
                return .int(value)
            default: throw Failure.invalidArguments("int")
            }
        case .float:
            try arity(1)
            switch args[0] {
            case .int(let i): return .float(Double(i))
            case .float: return args[0]
            case .string(let s):
                guard let value = Double(s) else { throw Failure("Cannot convert '\(s)' to float.") }
                return .float(value)
            default: throw Failure.invalidArguments("float")
            }
        case .string:
            try arity(1)
            switch args[0] {
            case .null, .bool, .int, .float, .string, .path: return .string(args[0].displayText)
            default: throw Failure.invalidArguments("string")
            }
        case .path:
            try arity(1)
            guard case .string(let s) = args[0] else { throw Failure.invalidArguments("path") }
            return .path(RulesPath(parsing: s))
        case .mathAbs:
            try arity(1)
            switch args[0] {
            case .int(let i):
                guard i != Int64.min else { throw Failure("Integer overflow.") }
                return .int(Swift.abs(i))
            case .float(let d): return .float(Swift.abs(d))
            default: throw Failure.invalidArguments(builtin.rawValue)
            }
        case .mathCeil, .mathFloor, .mathRound:
            try arity(1)
            if case .int = args[0] { return args[0] }
            let d = try number(0)
            let rule: FloatingPointRoundingRule =
                builtin == .mathCeil ? .up : builtin == .mathFloor ? .down : .toNearestOrAwayFromZero
            return try toInt(d.rounded(rule))
        case .mathSqrt:
            try arity(1)
            let d = try number(0)
            guard d >= 0 else { throw Failure("math.sqrt of a negative number.") }
            return .float(d.squareRoot())
        case .mathPow:
            try arity(2)
            return .float(RulesMath.pow(try number(0), try number(1)))
        case .mathIsNaN:
            try arity(1)
            return .bool(try number(0).isNaN)
        case .mathIsInfinite:
            try arity(1)
            return .bool(try number(0).isInfinite)
        case .timestampDate:
            try arity(3)
            let (y, m, d) = (try integer(0), try integer(1), try integer(2))
            guard y >= 1, y <= 9999, m >= 1, m <= 12, d >= 1, d <= 31 else { throw Failure("Invalid date.") }
            let days = RulesCalendar.days(year: y, month: m, day: d)
            guard RulesCalendar.civil(days: days) == (y, m, d) else { throw Failure("Invalid date.") }
            return .timestamp(RulesTimestamp(seconds: days * 86_400, nanos: 0))
        case .timestampValue:
            try arity(1)
            let millis = try integer(0)
            // 0001-01-01T00:00:00Z ... 9999-12-31T23:59:59.999Z
            guard millis >= -62_135_596_800_000, millis <= 253_402_300_799_999 else { throw Failure("Timestamp out of range.") }
            let seconds = RulesCalendar.floorDiv(millis, 1000)
            return .timestamp(RulesTimestamp(seconds: seconds, nanos: Int32((millis - seconds * 1000) * 1_000_000)))
        case .durationValue:
            try arity(2)
            guard case .string(let unit) = args[1] else { throw Failure.invalidArguments(builtin.rawValue) }
            let nanosPerUnit: Int64
            switch unit {
            case "w": nanosPerUnit = 604_800_000_000_000
            case "d": nanosPerUnit = 86_400_000_000_000
            case "h": nanosPerUnit = 3_600_000_000_000
            case "m": nanosPerUnit = 60_000_000_000
            case "s": nanosPerUnit = 1_000_000_000
            case "ms": nanosPerUnit = 1_000_000
            case "ns": nanosPerUnit = 1
            default: throw Failure("Invalid duration unit '\(unit)'.")
            }
            let magnitude = try number(0)
            if case .int(let n) = args[0] {
                let (total, overflow) = n.multipliedReportingOverflow(by: nanosPerUnit)
                if overflow { throw Failure("Duration overflow.") }
                return .duration(RulesDuration(totalNanos: total))
            }
            let total = magnitude * Double(nanosPerUnit)
            guard total.isFinite, Swift.abs(total) < 9.2e18 else { throw Failure("Duration overflow.") }
            return .duration(RulesDuration(totalNanos: Int64(total)))
        case .durationTime:
            try arity(4)
            let (h, m, s, ns) = (try integer(0), try integer(1), try integer(2), try integer(3))
            let limit: Int64 = 2_562_047  // hours in the Int64 nanosecond range
            guard Swift.abs(h) <= limit, Swift.abs(m) <= limit * 60, Swift.abs(s) <= limit * 3600, ns != Int64.min else {
                throw Failure("Duration overflow.")
            }
            let (total, overflow) = ((h * 60 + m) * 60 + s).multipliedReportingOverflow(by: 1_000_000_000)
            let (sum, overflow2) = total.addingReportingOverflow(ns)
            guard !overflow, !overflow2 else { throw Failure("Duration overflow.") }
            return .duration(RulesDuration(totalNanos: sum))
        case .durationAbs:
            try arity(1)
            guard case .duration(let d) = args[0] else { throw Failure.invalidArguments(builtin.rawValue) }
            return .duration(RulesDuration(seconds: Swift.abs(d.seconds), nanos: Swift.abs(d.nanos)))
        case .latlngValue:
            try arity(2)
            let (lat, lng) = (try number(0), try number(1))
            guard lat >= -90, lat <= 90, lng >= -180, lng <= 180 else { throw Failure("Invalid latitude or longitude.") }
            return .latlng(latitude: lat, longitude: lng)
        case .hashingCrc32, .hashingCrc32c, .hashingMd5, .hashingSha256:
            try arity(1)
            let bytes: [UInt8]
            switch args[0] {
            case .string(let s): bytes = Array(s.utf8)
            case .bytes(let b): bytes = b
            default: throw Failure.invalidArguments(builtin.rawValue)
            }
            switch builtin {
            case .hashingCrc32: return .bytes(RulesHashing.crc32(bytes))
            case .hashingCrc32c: return .bytes(RulesHashing.crc32c(bytes))
            case .hashingMd5: return .bytes(RulesHashing.md5(bytes))
            default: return .bytes(RulesHashing.sha256(bytes))
            }
        }
    }

    /// One document-access call: cached per (kind, path), counted against the 10-per-request and
    /// 20-per-batch limits.
    mutating func read(_ path: RulesPath, afterWrites: Bool) throws(Failure) -> RulesDocument? {
        let name = "projects/\(projectID)" + path.text
        let key = (afterWrites ? "a:" : "g:") + name
        if let cached = accessCache[key] { return cached }
        guard accessCallsLeftInRequest > 0, accessCallsLeftInBatch > 0 else {
            let message = accessCallsLeftInBatch > 0
                ? "Exceeded maximum of 10 document access calls for this request."
                : "Exceeded maximum of 20 document access calls for this batch."
            accessLimitMessage = message
            throw Failure(message)
        }
        accessCallsLeftInRequest -= 1
        accessCallsLeftInBatch -= 1
        let document = data.document(name, afterWrites: afterWrites)
        accessCache[key] = .some(document)
        return document
    }

    /// `resource`-style map: `data`, `id` and `__name__` (`/databases/(default)/documents/c/d`),
    /// read in place.
    static func resourceValue(_ document: RulesDocument) -> RulesValue {
        .lazy(.document(document))
    }
}
