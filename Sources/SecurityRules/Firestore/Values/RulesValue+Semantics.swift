extension RulesValue {
    /// The type name used by `is` and in error messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .string: "string"
        case .bytes: "bytes"
        case .timestamp: "timestamp"
        case .duration: "duration"
        case .latlng: "latlng"
        case .path: "path"
        case .list: "list"
        case .map, .lazy, .symbolic: "map"
        case .set: "set"
        case .mapDiff: "map_diff"
        case .unbound: "unbound"
        }
    }

    /// Rules equality: numbers compare by value across int and float, collections deeply,
    /// different kinds are unequal.
    func rulesEquals(_ other: RulesValue) -> Bool {
        switch (self, other) {
        case (.lazy, _), (_, .lazy): return materialized.rulesEquals(other.materialized)
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.float(let a), .float(let b)): return a == b
        case (.int(let a), .float(let b)): return Double(a) == b && Double(exactly: a) != nil
        case (.float(let a), .int(let b)): return a == Double(b) && Double(exactly: b) != nil
        case (.string(let a), .string(let b)): return Self.sameBytes(a, b)
        case (.bytes(let a), .bytes(let b)): return a == b
        case (.timestamp(let a), .timestamp(let b)): return a == b
        case (.duration(let a), .duration(let b)): return a == b
        case (.latlng(let a1, let a2), .latlng(let b1, let b2)): return a1 == b1 && a2 == b2
        case (.path(let a), .path(let b)): return a == b
        case (.list(let a), .list(let b)):
            guard a.count == b.count else { return false }
            for i in a.indices where !a[i].rulesEquals(b[i]) { return false }
            return true
        case (.set(let a), .set(let b)):
            guard a.count == b.count else { return false }
            let inB = RulesValueIndex.membership(b)
            return a.allSatisfy(inB)
        case (.map(let a), .map(let b)):
            guard a.count == b.count else { return false }
            for (key, value) in a {
                guard let otherValue = b[key], value.rulesEquals(otherValue) else { return false }
            }
            return true
        default: return false
        }
    }

    /// Whether two strings have the same UTF-8 bytes (not merely canonically equivalent).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        let fast = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in x.elementsEqual(y) }
        }
        return (fast ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }

    /// Ordering for `< <= > >=`: numbers, strings (by UTF-8 bytes), bytes, timestamps,
    /// durations; nil for anything else (an error).
    func rulesCompare(_ other: RulesValue) -> Int? {
        func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a == b ? 0 : 1) }
        switch (self, other) {
        case (.int(let a), .int(let b)): return sign(a, b)
        case (.float(let a), .float(let b)): return a.isNaN || b.isNaN ? nil : sign(a, b)
        case (.int(let a), .float(let b)): return b.isNaN ? nil : sign(Double(a), b)
        case (.float(let a), .int(let b)): return a.isNaN ? nil : sign(a, Double(b))
        case (.string(let a), .string(let b)):
            if a.utf8.elementsEqual(b.utf8) { return 0 }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
        case (.bytes(let a), .bytes(let b)):
            if a == b { return 0 }
            return a.lexicographicallyPrecedes(b) ? -1 : 1
        case (.timestamp(let a), .timestamp(let b)): return sign(a, b)
        case (.duration(let a), .duration(let b)): return sign(a, b)
        default: return nil
        }
    }

    /// Element membership with rules equality.
    static func contains(_ items: [RulesValue], _ value: RulesValue) -> Bool {
        items.contains { $0.rulesEquals(value) }
    }

    /// Removes later duplicates (the first of equal elements wins).
    static func deduplicated(_ items: [RulesValue]) -> [RulesValue] {
        var result: [RulesValue] = []
        result.reserveCapacity(items.count)
        if items.count <= 16 {
            for item in items where !contains(result, item) { result.append(item) }
            return result
        }
        var seen = RulesValueIndex()
        for item in items where seen.insert(item) { result.append(item) }
        return result
    }

    /// The text `debug()` and `string()` write for this value.
    var displayText: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .float(let d): return Self.formatFloat(d)
        case .string(let s): return s
        case .bytes(let b): return "b'" + RulesEncoding.base64(b, urlSafe: true) + "'"
        case .timestamp(let t): return RulesCalendar.iso8601(t)
        case .duration(let d): return "\(d.seconds).\(d.nanos)s"
        case .latlng(let lat, let lng): return "LatLng(\(Self.formatFloat(lat)), \(Self.formatFloat(lng)))"
        case .path(let p): return p.text
        case .list(let items): return "[" + items.map(\.quotedText).joined(separator: ", ") + "]"
        case .set(let items): return "set([" + items.map(\.quotedText).joined(separator: ", ") + "])"
        case .map(let m):
            let body = m.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                .map { "\"\($0)\": \(m[$0]?.quotedText ?? "null")" }
            return "{" + body.joined(separator: ", ") + "}"
        case .lazy: return materialized.displayText
        case .mapDiff(let d): return "map_diff(affected: \(d.added + d.removed + d.changed))"
        case .symbolic: return "resource"
        case .unbound(let name): return "unbound(\(name))"
        }
    }

    var quotedText: String {
        if case .string(let s) = self { return "\"" + s + "\"" }
        return displayText
    }

    static func formatFloat(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) + ".0" }
        return String(d)
    }
}
