extension Value {
    /// Firestore's total order of values (the order of `orderBy` and of indexes).
    ///
    /// Type order first (``Kind``): null < MinKey < boolean < number < timestamp < BSON timestamp
    /// < string < bytes < BSON binary < reference < ObjectId < geopoint < regex < array < vector <
    /// map < MaxKey. Within a type: numbers (int64, double, Int32, Decimal128) by exact numeric
    /// value (NaN first, `-0.0 == 0.0`, never rounded); strings by UTF-8 bytes; bytes unsigned
    /// lexicographic; BSON binary by its bytes (subtype first, then data); references segment by
    /// segment (``ResourcePath/compareSegments(_:_:)``); ObjectIds by their hex text; geopoints
    /// latitude then longitude; regexes pattern then options; BSON timestamps seconds then
    /// increment; arrays element-wise then length; vectors length then element-wise; maps key by
    /// key (key bytes, then value) then by entry count; all MinKeys (MaxKeys) equal.
    ///
    /// Returns a negative number, 0 or a positive number.
    package static func compare(_ a: Value, _ b: Value) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.boolean(let x), .boolean(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.integer(let x), .integer(let y)): return NumberOrder.compare(x, y)
        case (.double(let x), .double(let y)): return NumberOrder.compare(x, y)
        case (.integer(let x), .double(let y)): return NumberOrder.compare(x, y)
        case (.double(let x), .integer(let y)): return NumberOrder.compare(x, y)
        case (.timestamp(let x), .timestamp(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.string(let x), .string(let y)): return UTF8Order.compare(x, y)
        case (.bytes(let x), .bytes(let y)): return UTF8Order.compare(x, y)
        case (.reference(let x), .reference(let y)): return ResourcePath.compareNames(x, y)
        case (.geoPoint(let xa, let xo), .geoPoint(let ya, let yo)):
            let c = NumberOrder.compare(xa, ya)
            return c != 0 ? c : NumberOrder.compare(xo, yo)
        case (.array(let x), .array(let y)): return compareArrays(x, y)
        case (.map(let x), .map(let y)):
            let kx = a.kind
            let ky = b.kind
            if kx != ky { return kx.rawValue - ky.rawValue }
            switch kx {
            case .map: return compareMaps(x, y)
            case .vector:
                let ea = x.vectorElements ?? []
                let eb = y.vectorElements ?? []
                return ea.count != eb.count ? (ea.count < eb.count ? -1 : 1) : compareArrays(ea, eb)
            default: return compareBSON(kx, x, y, a, b)
            }
        default:
            let kx = a.kind
            let ky = b.kind
            if kx == .number && ky == .number { return NumberOrder.compare(Number(a), Number(b)) }
            return kx.rawValue - ky.rawValue
        }
    }

    /// Two BSON maps of the same kind.
    private static func compareBSON(_ kind: Kind, _ x: ValueMap, _ y: ValueMap, _ a: Value, _ b: Value) -> Int {
        switch kind {
        case .number: return NumberOrder.compare(Number(a), Number(b))
        case .objectId: return UTF8Order.compare(BSONParts.objectId(x), BSONParts.objectId(y))
        case .bsonBinary: return UTF8Order.compare(BSONParts.binary(x), BSONParts.binary(y))
        case .regex:
            let rx = BSONParts.regex(x)
            let ry = BSONParts.regex(y)
            let c = UTF8Order.compare(rx.pattern, ry.pattern)
            return c != 0 ? c : UTF8Order.compare(rx.options, ry.options)
        case .bsonTimestamp:
            let tx = BSONParts.timestamp(x)
            let ty = BSONParts.timestamp(y)
            let c = NumberOrder.compare(tx.seconds, ty.seconds)
            return c != 0 ? c : NumberOrder.compare(tx.increment, ty.increment)
        default: return 0  // MinKey, MaxKey: all equal
        }
    }

    /// Equality as Firestore's server uses it for `==`, `IN`, `array-contains`, `arrayUnion` and
    /// `arrayRemove`: numbers by numeric value (`3 ≡ 3.0`, `-0.0 ≡ 0.0`), `NaN ≡ NaN`, strings by UTF-8
    /// bytes, containers element by element. Identical to `compare(a, b) == 0`.
    ///
    /// Contrast with `==`, which is representation identity (`.integer(3) != .double(3)`).
    package func isEquivalent(_ other: Value) -> Bool {
        Value.compare(self, other) == 0
    }

    private static func compareArrays(_ x: [Value], _ y: [Value]) -> Int {
        let n = min(x.count, y.count)
        for i in 0..<n {
            let c = compare(x[i], y[i])
            if c != 0 { return c }
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    private static func compareMaps(_ x: ValueMap, _ y: ValueMap) -> Int {
        let n = min(x.count, y.count)
        for i in 0..<n {
            let k = UTF8Order.compare(x[i].name, y[i].name)
            if k != 0 { return k }
            let c = compare(x[i].value, y[i].value)
            if c != 0 { return c }
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }
}
