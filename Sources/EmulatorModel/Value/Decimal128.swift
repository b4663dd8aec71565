/// A BSON Decimal128 value as Firestore (with MongoDB compatibility) carries it: the decimal text
/// of `{__decimal128__: "<text>"}`, parsed for exact comparison with every other number.
///
/// Accepted text is Python's `decimal.Decimal` syntax, which the clients validate with: an
/// optional sign, digits with an optional point and exponent (`-1.5e3`), `Infinity`/`Inf`, or
/// `NaN`/`sNaN` (any case, a NaN's payload digits ignored). Special values are stored in their
/// canonical spelling (``canonicalText``): `NaN`, `Infinity`, `-Infinity`; finite text is kept
/// as written. A finite value needs at most 34 significant digits and an exponent in
/// Decimal128's range.
///
/// ```swift
/// Decimal128("inf")?.canonicalText      // "Infinity"
/// Decimal128.compare(Decimal128("0.1")!, 0.1)   // -1: 0.1 as a double is 0.1000000000000000055…
/// ```
package struct Decimal128: Sendable, Hashable {
    package enum Form: Sendable, Hashable {
        case nan
        case infinity(negative: Bool)
        /// `0.d₁d₂…dₙ × 10^exponent`: `digits` are decimal digits without leading or trailing
        /// zeros (empty for zero, whose sign is kept but does not order).
        case finite(negative: Bool, digits: [UInt8], exponent: Int)
    }

    package let form: Form
    /// The text as stored: canonical for special values, as written for finite ones.
    package let canonicalText: String

    /// Significant digits a Decimal128 holds.
    package static let maxDigits = 34

    private init(form: Form, canonicalText: String) {
        self.form = form
        self.canonicalText = canonicalText
    }

    package static let nan = Decimal128(form: .nan, canonicalText: "NaN")

    /// Parses `text`; nil when it is not a decimal number or does not fit a Decimal128.
    package init?(_ text: String) {
        var bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 1000 else { return nil }
        var negative = false
        if bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-") {
            negative = bytes[0] == UInt8(ascii: "-")
            bytes.removeFirst()
        }
        let lower = String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        if lower == "inf" || lower == "infinity" {
            form = .infinity(negative: negative)
            canonicalText = negative ? "-Infinity" : "Infinity"
            return
        }
        if lower.hasPrefix("nan") || lower.hasPrefix("snan") {
            let payload = lower.utf8.dropFirst(lower.hasPrefix("nan") ? 3 : 4)
            guard payload.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            form = .nan
            canonicalText = "NaN"
            return
        }
        // digits [. digits] [e [sign] digits]
        var coefficient: [UInt8] = []
        var pointShift = 0
        var seenPoint = false
        var seenDigit = false
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b >= 0x30 && b <= 0x39 {
                seenDigit = true
                coefficient.append(b - 0x30)
                if seenPoint { pointShift += 1 }
            } else if b == UInt8(ascii: ".") && !seenPoint {
                seenPoint = true
            } else {
                break
            }
            i += 1
        }
        guard seenDigit else { return nil }
        var exponent = 0
        if i < bytes.count {
            guard bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") else { return nil }
            i += 1
            var expNegative = false
            if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) {
                expNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            guard i < bytes.count else { return nil }
            while i < bytes.count {
                let b = bytes[i]
                guard b >= 0x30 && b <= 0x39 else { return nil }
                exponent = exponent * 10 + Int(b - 0x30)
                if exponent > 100_000 { return nil }
                i += 1
            }
            if expNegative { exponent = -exponent }
        }
        // value = coefficient × 10^(exponent − pointShift)
        let quantum = exponent - pointShift
        var first = 0
        while first < coefficient.count && coefficient[first] == 0 { first += 1 }
        let significant = Array(coefficient[first...])
        if significant.count > Self.maxDigits { return nil }
        if !significant.isEmpty {
            // Decimal128: exponents of the integer coefficient from −6176 to 6111 (clamped: a
            // short coefficient may gain trailing zeros up to 34 digits).
            guard quantum >= -6176, quantum + significant.count <= 6111 + Self.maxDigits else { return nil }
        }
        var last = significant.count
        while last > 0 && significant[last - 1] == 0 { last -= 1 }
        let digits = Array(significant[..<last])
        form = .finite(negative: negative, digits: digits, exponent: digits.isEmpty ? 0 : quantum + significant.count)
        canonicalText = text
    }

    /// The nearest double (correctly rounded; ±infinity beyond the double range).
    package var doubleValue: Double {
        switch form {
        case .nan: return .nan
        case .infinity(let negative): return negative ? -.infinity : .infinity
        case .finite(let negative, let digits, let exponent):
            if digits.isEmpty { return negative ? -0.0 : 0.0 }
            if exponent > 400 { return negative ? -.infinity : .infinity }
            if exponent < -400 { return negative ? -0.0 : 0.0 }
            var text = negative ? "-0." : "0."
            for d in digits { text.append(Character(Unicode.Scalar(d + 0x30))) }
            text += "e\(exponent)"
            return Double(text) ?? .nan
        }
    }

    /// The value as an exact Int64, if it is an integer in range.
    package var exactInteger: Int64? {
        guard case .finite(let negative, let digits, let exponent) = form else { return nil }
        if digits.isEmpty { return 0 }
        guard exponent >= digits.count, exponent <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for k in 0..<exponent {
            let d = k < digits.count ? UInt64(digits[k]) : 0
            let (m, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(d)
            if o1 || o2 { return nil }
            magnitude = s
        }
        if negative {
            if magnitude > UInt64(Int64.max) + 1 { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
        }
        return magnitude > UInt64(Int64.max) ? nil : Int64(magnitude)
    }

    // MARK: Exact comparison

    /// Negative, 0 or positive as `a` sorts before, with or after `b`, in Firestore's number
    /// order (NaN first and equal to NaN, `-0 == 0`).
    package static func compare(_ a: Decimal128, _ b: Decimal128) -> Int {
        compareForms(a.form, b.form)
    }

    package static func compare(_ a: Decimal128, _ b: Double) -> Int {
        if b.isNaN { return a.form == .nan ? 0 : 1 }
        if a.form == .nan { return -1 }
        let approx = a.doubleValue
        // Correct rounding is monotone: a differing nearest double decides.
        if approx != b { return approx < b ? -1 : 1 }
        return compareForms(a.form, form(of: b))
    }

    package static func compare(_ a: Decimal128, _ b: Int64) -> Int {
        if a.form == .nan { return -1 }
        return compareForms(a.form, form(of: b))
    }

    private static func compareForms(_ a: Form, _ b: Form) -> Int {
        switch (a, b) {
        case (.nan, .nan): return 0
        case (.nan, _): return -1
        case (_, .nan): return 1
        case (.infinity(let x), .infinity(let y)): return x == y ? 0 : (x ? -1 : 1)
        case (.infinity(let x), .finite): return x ? -1 : 1
        case (.finite, .infinity(let y)): return y ? 1 : -1
        case (.finite(let xn, let xd, let xe), .finite(let yn, let yd, let ye)):
            let xs = xd.isEmpty ? 0 : (xn ? -1 : 1)
            let ys = yd.isEmpty ? 0 : (yn ? -1 : 1)
            if xs != ys { return xs < ys ? -1 : 1 }
            if xs == 0 { return 0 }
            var magnitude: Int
            if xe != ye {
                magnitude = xe < ye ? -1 : 1
            } else {
                magnitude = 0
                let n = min(xd.count, yd.count)
                for k in 0..<n where xd[k] != yd[k] {
                    magnitude = xd[k] < yd[k] ? -1 : 1
                    break
                }
                if magnitude == 0 && xd.count != yd.count { magnitude = xd.count < yd.count ? -1 : 1 }
            }
            return xs < 0 ? -magnitude : magnitude
        }
    }

    /// The exact decimal form of an Int64.
    static func form(of i: Int64) -> Form {
        var magnitude = i.magnitude
        var reversed: [UInt8] = []
        while magnitude > 0 {
            reversed.append(UInt8(magnitude % 10))
            magnitude /= 10
        }
        return finite(negative: i < 0, littleEndian: reversed, exponentOfUnits: 0)
    }

    /// The exact decimal form of a double (every finite double is a finite decimal).
    static func form(of d: Double) -> Form {
        if d.isNaN { return .nan }
        if d.isInfinite { return .infinity(negative: d < 0) }
        if d == 0 { return .finite(negative: d.sign == .minus, digits: [], exponent: 0) }
        // |d| = m × 2^e with m an integer.
        let m = d.significandBitPattern | (d.isNormal ? 1 << 52 : 0)
        let e = d.isNormal ? Int(d.exponent) - 52 : -1074
        var le: [UInt8] = []
        var v = m
        while v > 0 {
            le.append(UInt8(v % 10))
            v /= 10
        }
        if e >= 0 {
            for _ in 0..<e { multiply(&le, by: 2) }
            return finite(negative: d < 0, littleEndian: le, exponentOfUnits: 0)
        }
        // m × 2^e = m × 5^−e × 10^e
        for _ in 0..<(-e) { multiply(&le, by: 5) }
        return finite(negative: d < 0, littleEndian: le, exponentOfUnits: e)
    }

    private static func multiply(_ le: inout [UInt8], by factor: UInt8) {
        var carry: UInt16 = 0
        for k in 0..<le.count {
            let p = UInt16(le[k]) * UInt16(factor) + carry
            le[k] = UInt8(p % 10)
            carry = p / 10
        }
        while carry > 0 {
            le.append(UInt8(carry % 10))
            carry /= 10
        }
    }

    /// `littleEndian` digits × 10^exponentOfUnits as a normalised form.
    private static func finite(negative: Bool, littleEndian: [UInt8], exponentOfUnits: Int) -> Form {
        var digits = Array(littleEndian.reversed())
        var first = 0
        while first < digits.count && digits[first] == 0 { first += 1 }
        digits.removeFirst(first)
        let exponent = digits.count + exponentOfUnits
        while let last = digits.last, last == 0 { digits.removeLast() }
        return .finite(negative: negative, digits: digits, exponent: digits.isEmpty ? 0 : exponent)
    }
}
