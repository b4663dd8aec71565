/// Membership tests over a list in expected constant time, with rules equality (1 == 1.0,
/// strings by UTF-8 bytes). Documents may hold 20,000-element arrays: `hasOnly`, `toSet` and
/// set algebra must not be quadratic on them.
struct RulesValueIndex {
    private enum Key: Hashable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
    }

    private var items: [RulesValue] = []
    private var buckets: [Key: [Int]] = [:]
    /// Positions of values with no hash key (lists, maps, timestamps, ...).
    private var others: [Int] = []

    init(_ items: [RulesValue] = []) {
        buckets.reserveCapacity(items.count)
        for item in items { append(item) }
    }

    private mutating func append(_ item: RulesValue) {
        if let key = Self.key(item) {
            buckets[key, default: []].append(items.count)
        } else {
            others.append(items.count)
        }
        items.append(item)
    }

    /// Adds `value` unless an equal value is present; true when it was added.
    mutating func insert(_ value: RulesValue) -> Bool {
        if contains(value) { return false }
        append(value)
        return true
    }

    private static func key(_ value: RulesValue) -> Key? {
        switch value {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .number(Double(i))
        case .float(let d): return d.isNaN ? nil : .number(d)
        // String hashing folds canonically equivalent strings together; candidates are
        // confirmed byte for byte below.
        case .string(let s): return .string(s)
        default: return nil
        }
    }

    func contains(_ value: RulesValue) -> Bool {
        if let key = Self.key(value) {
            return buckets[key]?.contains { items[$0].rulesEquals(value) } ?? false
        }
        return others.contains { items[$0].rulesEquals(value) }
    }

    /// Uses an index only when the list is long enough to pay for it.
    static func membership(_ items: [RulesValue]) -> (RulesValue) -> Bool {
        if items.count <= 16 { return { RulesValue.contains(items, $0) } }
        let index = RulesValueIndex(items)
        return { index.contains($0) }
    }
}
