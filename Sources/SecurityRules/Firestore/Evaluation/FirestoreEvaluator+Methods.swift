extension FirestoreEvaluator {
    /// `receiver.name(arguments)` for every value type's methods (rules.String, List, Map, Set,
    /// MapDiff, Bytes, Path, Timestamp, Duration, LatLng).
    func callMethod(_ receiver: RulesValue, _ name: String, _ args: [RulesValue]) throws(Failure) -> RulesValue {
        switch receiver {
        case .string(let s): return try stringMethod(s, name, args)
        case .list(let items): return try listMethod(items, name, args)
        case .set(let items): return try setMethod(items, name, args)
        case .map(let map): return try mapMethod(map, name, args)
        case .lazy(let map):
            // keys() and size() read the map in place; anything else converts it.
            switch (name, args.count) {
            case ("keys", 0): return .list(map.sortedKeys.map { .string($0) })
            case ("size", 0): return .int(Int64(map.count))
            default: return try mapMethod(map.materialized, name, args)
            }
        case .mapDiff(let diff):
            guard args.isEmpty else { throw Failure.invalidArguments(name) }
            let keys: [String]
            switch name {
            case "addedKeys": keys = diff.added
            case "removedKeys": keys = diff.removed
            case "changedKeys": keys = diff.changed
            case "unchangedKeys": keys = diff.unchanged
            case "affectedKeys": keys = diff.added + diff.removed + diff.changed
            default: throw Failure.functionNotFound(name)
            }
            return .set(keys.map { .string($0) })
        case .bytes(let bytes):
            guard args.isEmpty else { throw Failure.invalidArguments(name) }
            switch name {
            case "size": return .int(Int64(bytes.count))
            case "toBase64": return .string(RulesEncoding.base64(bytes, urlSafe: true))
            case "toHexString": return .string(RulesEncoding.hex(bytes))
            default: throw Failure.functionNotFound(name)
            }
        case .path(let path):
            guard name == "bind", args.count == 1, case .map(let bindings) = args[0] else {
                throw name == "bind" ? Failure.invalidArguments(name) : Failure.functionNotFound(name)
            }
            var segments: [String] = []
            for segment in path.segments {
                if segment.hasPrefix("{"), segment.hasSuffix("}") {
                    let key = String(segment.dropFirst().dropLast())
                    guard case .string(let value)? = bindings[key] else { throw Failure("No binding for path variable \(key).") }
                    segments.append(value)
                } else {
                    segments.append(segment)
                }
            }
            return .path(RulesPath(segments: segments))
        case .timestamp(let t): return try timestampMethod(t, name, args)
        case .duration(let d):
            guard args.isEmpty else { throw Failure.invalidArguments(name) }
            switch name {
            case "seconds": return .int(d.seconds)
            case "nanos": return .int(Int64(d.nanos))
            default: throw Failure.functionNotFound(name)
            }
        case .latlng(let lat, let lng):
            switch (name, args.count) {
            case ("latitude", 0): return .float(lat)
            case ("longitude", 0): return .float(lng)
            case ("distance", 1):
                guard case .latlng(let lat2, let lng2) = args[0] else { throw Failure.invalidArguments(name) }
                return .float(Self.haversine(lat, lng, lat2, lng2))
            default: throw Failure.functionNotFound(name)
            }
        case .null: throw Failure.nullValue
        case .symbolic(let document):
            if name == "keys" || name == "size" || name == "values" || name == "diff" || name == "get" {
                throw Failure("\(name)() on a query's documents cannot be decided from the query.")
            }
            _ = document
            throw Failure.functionNotFound(name)
        default:
            throw Failure.functionNotFound(name)
        }
    }

    private func stringArgument(_ args: [RulesValue], _ i: Int, _ name: String) throws(Failure) -> String {
        guard i < args.count, case .string(let s) = args[i] else { throw Failure.invalidArguments(name) }
        return s
    }

    private func regex(_ pattern: String) throws(Failure) -> RulesRegex {
        do throws(RulesRegex.SyntaxError) {
            return try RulesRegex(pattern)
        } catch {
            throw Failure("Invalid regular expression '\(pattern)': \(error.message).")
        }
    }

    private func stringMethod(_ s: String, _ name: String, _ args: [RulesValue]) throws(Failure) -> RulesValue {
        switch (name, args.count) {
        case ("size", 0): return .int(Int64(s.unicodeScalars.count))
        case ("lower", 0): return .string(s.lowercased())
        case ("upper", 0): return .string(s.uppercased())
        case ("trim", 0):
            let scalars = s.unicodeScalars
            let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
            guard let first = scalars.firstIndex(where: { !isSpace($0) }),
                let last = scalars.lastIndex(where: { !isSpace($0) })
            else { return .string("") }
            return .string(String(scalars[first...last]))
        case ("toUtf8", 0): return .bytes(Array(s.utf8))
        case ("matches", 1):
            return .bool(try regex(try stringArgument(args, 0, name)).matchesWhole(s))
        case ("split", 1):
            let pattern = try regex(try stringArgument(args, 0, name))
            let scalars = Array(s.unicodeScalars)
            var pieces: [RulesValue] = []
            var start = 0
            var searchFrom = 0
            while searchFrom <= scalars.count, let found = pattern.firstMatch(in: scalars, from: searchFrom) {
                if found.isEmpty {
                    // An empty match splits between characters.
                    if found.lowerBound >= scalars.count { break }
                    if found.lowerBound == start { searchFrom = found.lowerBound + 1; continue }
                }
                pieces.append(.string(Self.text(scalars[start..<found.lowerBound])))
                start = found.upperBound
                searchFrom = found.isEmpty ? found.upperBound + 1 : found.upperBound
            }
            pieces.append(.string(Self.text(scalars[start...])))
            return .list(pieces)
        case ("replace", 2):
            let pattern = try regex(try stringArgument(args, 0, name))
            let replacement = try stringArgument(args, 1, name)
            let scalars = Array(s.unicodeScalars)
            var out = String.UnicodeScalarView()
            var position = 0
            while position <= scalars.count, let found = pattern.firstMatch(in: scalars, from: position) {
                out.append(contentsOf: scalars[position..<found.lowerBound])
                out.append(contentsOf: replacement.unicodeScalars)
                if found.isEmpty {
                    if found.lowerBound < scalars.count { out.append(scalars[found.lowerBound]) }
                    position = found.lowerBound + 1
                } else {
                    position = found.upperBound
                }
            }
            if position < scalars.count { out.append(contentsOf: scalars[position...]) }
            return .string(String(out))
        default:
            throw Failure.functionNotFound(name)
        }
    }

    private static func text(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    private func collectionArgument(_ args: [RulesValue], _ name: String) throws(Failure) -> [RulesValue] {
        guard args.count == 1 else { throw Failure.invalidArguments(name) }
        switch args[0] {
        case .list(let items), .set(let items): return items
        default: throw Failure.invalidArguments(name)
        }
    }

    private func listMethod(_ items: [RulesValue], _ name: String, _ args: [RulesValue]) throws(Failure) -> RulesValue {
        switch name {
        case "size":
            guard args.isEmpty else { throw Failure.invalidArguments(name) }
            return .int(Int64(items.count))
        case "concat":
            guard args.count == 1, case .list(let other) = args[0] else { throw Failure.invalidArguments(name) }
            return .list(items + other)
        case "hasAll":
            let other = try collectionArgument(args, name)
            return .bool(other.allSatisfy(RulesValueIndex.membership(items)))
        case "hasAny":
            let other = try collectionArgument(args, name)
            return .bool(other.contains(where: RulesValueIndex.membership(items)))
        case "hasOnly":
            let other = try collectionArgument(args, name)
            return .bool(items.allSatisfy(RulesValueIndex.membership(other)))
        case "join":
            guard args.count == 1, case .string(let separator) = args[0] else { throw Failure.invalidArguments(name) }
            var parts: [String] = []
            for item in items {
                guard case .string(let s) = item else { throw Failure("join() needs a list of strings.") }
                parts.append(s)
            }
            return .string(parts.joined(separator: separator))
        case "removeAll":
            let inOther = RulesValueIndex.membership(try collectionArgument(args, name))
            return .list(items.filter { !inOther($0) })
        case "toSet":
            guard args.isEmpty else { throw Failure.invalidArguments(name) }
            return .set(RulesValue.deduplicated(items))
        default:
            throw Failure.functionNotFound(name)
        }
    }

    private func setMethod(_ items: [RulesValue], _ name: String, _ args: [RulesValue]) throws(Failure) -> RulesValue {
        switch name {
        case "size", "hasAll", "hasAny", "hasOnly":
            return try listMethod(items, name, args)
        case "difference", "union", "intersection":
            guard args.count == 1, case .set(let other) = args[0] else { throw Failure.invalidArguments(name) }
            switch name {
            case "difference":
                let inOther = RulesValueIndex.membership(other)
                return .set(items.filter { !inOther($0) })
            case "union": return .set(RulesValue.deduplicated(items + other))
            default:
                let inOther = RulesValueIndex.membership(other)
                return .set(items.filter(inOther))
            }
        default:
            throw Failure.functionNotFound(name)
        }
    }

    static func sortedKeys(_ map: [String: RulesValue]) -> [String] {
        map.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    private func mapMethod(_ map: [String: RulesValue], _ name: String, _ args: [RulesValue]) throws(Failure) -> RulesValue {
        switch (name, args.count) {
        case ("size", 0): return .int(Int64(map.count))
        case ("keys", 0): return .list(Self.sortedKeys(map).map { .string($0) })
        case ("values", 0): return .list(Self.sortedKeys(map).compactMap { map[$0] })
        case ("get", 2):
            let path: [RulesValue]
            switch args[0] {
            case .string: path = [args[0]]
            case .list(let keys): path = keys
            default: throw Failure.invalidArguments(name)
            }
            var current = RulesValue.map(map)
            for key in path {
                guard case .map(let inner) = current, case .string(let k) = key, let next = inner[k] else { return args[1] }
                current = next
            }
            return current
        case ("diff", 1):
            guard case .map(let other) = args[0] else { throw Failure.invalidArguments(name) }
            var diff = RulesMapDiff(added: [], removed: [], changed: [], unchanged: [])
            for key in Self.sortedKeys(map) {
                guard let old = other[key] else { diff.added.append(key); continue }
                if map[key]?.rulesEquals(old) == true { diff.unchanged.append(key) } else { diff.changed.append(key) }
            }
            for key in Self.sortedKeys(other) where map[key] == nil { diff.removed.append(key) }
            return .mapDiff(diff)
        default:
            throw Failure.functionNotFound(name)
        }
    }

    private func timestampMethod(_ t: RulesTimestamp, _ name: String, _ args: [RulesValue]) throws(Failure) -> RulesValue {
        guard args.isEmpty else { throw Failure.invalidArguments(name) }
        let days = RulesCalendar.floorDiv(t.seconds, 86_400)
        let secondOfDay = t.seconds - days * 86_400
        let date = RulesCalendar.civil(days: days)
        switch name {
        case "year": return .int(date.year)
        case "month": return .int(date.month)
        case "day": return .int(date.day)
        case "hours": return .int(secondOfDay / 3600)
        case "minutes": return .int(secondOfDay / 60 % 60)
        case "seconds": return .int(secondOfDay % 60)
        case "nanos": return .int(Int64(t.nanos))
        case "dayOfWeek":
            // 1970-01-01 was a Thursday; Monday is 1 and Sunday 7.
            let weekday = ((days % 7) + 7 + 3) % 7 + 1
            return .int(weekday)
        case "dayOfYear":
            return .int(days - RulesCalendar.days(year: date.year, month: 1, day: 1) + 1)
        case "date": return .timestamp(RulesTimestamp(seconds: days * 86_400, nanos: 0))
        case "time": return .duration(RulesDuration(seconds: secondOfDay, nanos: t.nanos))
        case "toMillis": return .int(t.seconds * 1000 + Int64(t.nanos) / 1_000_000)
        default: throw Failure.functionNotFound(name)
        }
    }

    static func haversine(_ lat1: Double, _ lng1: Double, _ lat2: Double, _ lng2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLng = (lng2 - lng1) * radians
        let a = RulesMath.sin(dLat / 2) * RulesMath.sin(dLat / 2)
            + RulesMath.cos(lat1 * radians) * RulesMath.cos(lat2 * radians) * RulesMath.sin(dLng / 2) * RulesMath.sin(dLng / 2)
        return 2 * 6_371_000 * RulesMath.asin(min(1, a.squareRoot()))
    }
}
