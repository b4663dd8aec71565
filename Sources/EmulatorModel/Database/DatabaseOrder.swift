package import EmulatorSupport

/// The Realtime Database comparators: child keys, values (orderByValue / orderByChild) and
/// priorities, each with the key tie-break the SDKs apply.
///
/// ```swift
/// DatabaseOrder.compareKeys("2", "10")     // < 0: int-like keys compare numerically
/// DatabaseOrder.compareKeys("10", "a")     // < 0: int-like keys come first
/// DatabaseOrder.compareKeys("7", "007")    // < 0: numeric tie, shorter first
/// ```
package enum DatabaseOrder {
    /// The sentinel that sorts before every key (query start posts without a name).
    package static let minKey = "[MIN_NAME]"
    /// The sentinel that sorts after every key.
    package static let maxKey = "[MAX_NAME]"

    /// The int32 value of an "integer-like" key: optional `-`, digits (leading zeros allowed,
    /// at most 10 significant digits), within [-2^31, 2^31-1]. nil for every other key.
    package static func integerKey(_ key: String) -> Int32? {
        var it = key.utf8.makeIterator()
        var negative = false
        var value: Int64 = 0
        var significant = 0
        var digits = 0
        var first = true
        while let c = it.next() {
            if first && c == 0x2D {
                negative = true
                first = false
                continue
            }
            first = false
            guard c >= 0x30 && c <= 0x39 else { return nil }
            digits += 1
            if value > 0 || c != 0x30 { significant += 1 }
            if significant > 10 { return nil }
            value = value * 10 + Int64(c - 0x30)
        }
        guard digits > 0 else { return nil }
        let signed = negative ? -value : value
        guard signed >= Int64(Int32.min) && signed <= Int64(Int32.max) else { return nil }
        return Int32(signed)
    }

    /// Key order: the min/max sentinels outermost; int-like keys first, numerically (a tie goes to
    /// the shorter string: `"7" < "007"`, `"0" < "-0"`); then other keys by UTF-16 code units.
    package static func compareKeys(_ a: String, _ b: String) -> Int {
        // Keys starting with neither a digit, `-` nor `[` are neither integer-like nor a
        // sentinel: the usual case, compared as strings at once.
        if let x = a.utf8.first, let y = b.utf8.first, isPlainStart(x), isPlainStart(y) { return compareUTF16(a, b) }
        if UTF8Order.equal(a, b) { return 0 }
        if UTF8Order.equal(a, minKey) || UTF8Order.equal(b, maxKey) { return -1 }
        if UTF8Order.equal(b, minKey) || UTF8Order.equal(a, maxKey) { return 1 }
        switch (integerKey(a), integerKey(b)) {
        case (let x?, let y?):
            if x != y { return x < y ? -1 : 1 }
            let la = a.utf8.count
            let lb = b.utf8.count
            return la != lb ? (la < lb ? -1 : 1) : UTF8Order.compare(a, b)
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil): return compareUTF16(a, b)
        }
    }

    /// Whether a key starting with `byte` can be neither integer-like nor a sentinel.
    @inline(__always)
    private static func isPlainStart(_ byte: UInt8) -> Bool {
        !(byte >= 0x30 && byte <= 0x39) && byte != UInt8(ascii: "-") && byte != UInt8(ascii: "[")
    }

    /// Compares by UTF-16 code units (JavaScript `<`), without transcoding: UTF-8 byte order is
    /// code point order, which differs only when a supplementary character (a surrogate pair in
    /// UTF-16) meets a character in U+E000…U+FFFF.
    package static func compareUTF16(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let n = min(x.count, y.count)
                var i = 0
                while i < n && x[i] == y[i] { i += 1 }
                if i == n { return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1) }
                var start = i
                while start > 0 && x[start] & 0xC0 == 0x80 { start -= 1 }
                let cx = scalar(x, at: start)
                let cy = scalar(y, at: start)
                let rx = cx >= 0x10000 ? 0xD800 : cx
                let ry = cy >= 0x10000 ? 0xD800 : cy
                if rx != ry { return rx < ry ? -1 : 1 }
                return cx < cy ? -1 : (cx > cy ? 1 : 0)
            }
        }
    }

    private static func scalar(_ s: UnsafeBufferPointer<UInt8>, at i: Int) -> UInt32 {
        let b0 = UInt32(s[i])
        func cont(_ k: Int) -> UInt32 { i + k < s.count ? UInt32(s[i + k] & 0x3F) : 0 }
        if b0 < 0x80 { return b0 }
        if b0 < 0xE0 { return (b0 & 0x1F) << 6 | cont(1) }
        if b0 < 0xF0 { return (b0 & 0x0F) << 12 | cont(1) << 6 | cont(2) }
        return (b0 & 0x07) << 18 | cont(1) << 12 | cont(2) << 6 | cont(3)
    }

    /// The rank of a value's type: missing/null 0, false 1, true 2, number 3, string 4, object 5.
    private static func rank(_ v: JSONValue?) -> Int {
        switch v {
        case nil, .null?: 0
        case .bool(false)?: 1
        case .bool(true)?: 2
        case .int?, .double?: 3
        case .string?: 4
        case .array?, .object?: 5
        }
    }

    /// Value order: null (or missing) < false < true < numbers (ascending, int/double exact) <
    /// strings (UTF-16 order) < objects (all objects equal). No key tie-break: see
    /// ``compareChildren(_:_:_:_:)``.
    package static func compareValues(_ a: JSONValue?, _ b: JSONValue?) -> Int {
        let ra = rank(a)
        let rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.int(let x)?, .int(let y)?): return NumberOrder.compare(x, y)
        case (.int(let x)?, .double(let y)?): return NumberOrder.compare(x, y)
        case (.double(let x)?, .int(let y)?): return NumberOrder.compare(x, y)
        case (.double(let x)?, .double(let y)?): return NumberOrder.compare(x, y)
        case (.string(let x)?, .string(let y)?): return compareUTF16(x, y)
        default: return 0
        }
    }

    /// Priority order: no priority (null/missing) < numbers (ascending) < strings (UTF-16 order).
    /// Other JSON kinds are not valid priorities and rank as missing.
    package static func comparePriorities(_ a: JSONValue?, _ b: JSONValue?) -> Int {
        func rank(_ v: JSONValue?) -> Int {
            switch v {
            case .int?, .double?: 1
            case .string?: 2
            default: 0
            }
        }
        let ra = rank(a)
        let rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        return ra == 0 ? 0 : compareValues(a, b)
    }

    /// Children ordered by value, ties broken by key: the order of `orderByValue`/`orderByChild`.
    package static func compareChildren(_ aValue: JSONValue?, _ aKey: String, _ bValue: JSONValue?, _ bKey: String)
        -> Int
    {
        let c = compareValues(aValue, bValue)
        return c != 0 ? c : compareKeys(aKey, bKey)
    }
}
