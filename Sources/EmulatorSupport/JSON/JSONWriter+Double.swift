extension JSONWriter {
    /// `value` formatted exactly as JavaScript's `Number.prototype.toString()` formats it: the
    /// shortest digits that round-trip, plain notation for 1e-7 < |x| < 1e21, exponent notation
    /// otherwise.
    ///
    /// ```swift
    /// JSONWriter.formatDouble(1.0)    // "1"
    /// JSONWriter.formatDouble(-0.0)   // "0"
    /// JSONWriter.formatDouble(1e21)   // "1e+21"
    /// JSONWriter.formatDouble(1e-7)   // "1e-7"
    /// JSONWriter.formatDouble(0.1 + 0.2) // "0.30000000000000004"
    /// ```
    /// NaN and infinities give `"NaN"`, `"Infinity"`, `"-Infinity"`.
    package static func formatDouble(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        var bytes: [UInt8] = []
        appendFormattedDouble(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends a finite `value` formatted as `formatDouble` does.
    package static func appendFormattedDouble(_ value: Double, to bytes: inout [UInt8]) {
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        // Integral values below 2^53 print as their integer digits; skip the digit generator.
        if value.magnitude < 9_007_199_254_740_992 {
            let integral = Int64(value)
            if Double(integral) == value {
                appendDecimal(integral, to: &bytes)
                return
            }
        }
        let (significand, n) = shortestDigits(value.magnitude)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            // The decimal digits of `significand`, d1…dk, with value = 0.d1…dk × 10^n.
            var position = 20
            var remaining = significand
            repeat {
                position -= 1
                let (quotient, remainder) = remaining.quotientAndRemainder(dividingBy: 10)
                buffer[position] = UInt8(truncatingIfNeeded: remainder) &+ UInt8(ascii: "0")
                remaining = quotient
            } while remaining > 0
            let significant = UnsafeBufferPointer(rebasing: buffer[position..<20])
            let k = significant.count

            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            if k <= n && n <= 21 {
                bytes.append(contentsOf: significant)
                for _ in 0..<(n - k) { bytes.append(UInt8(ascii: "0")) }
            } else if 0 < n && n <= 21 {
                bytes.append(contentsOf: significant.prefix(n))
                bytes.append(UInt8(ascii: "."))
                bytes.append(contentsOf: significant.dropFirst(n))
            } else if -6 < n && n <= 0 {
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "."))
                for _ in 0..<(-n) { bytes.append(UInt8(ascii: "0")) }
                bytes.append(contentsOf: significant)
            } else {
                bytes.append(significant[significant.startIndex])
                if k > 1 {
                    bytes.append(UInt8(ascii: "."))
                    bytes.append(contentsOf: significant.dropFirst())
                }
                bytes.append(UInt8(ascii: "e"))
                let e = n - 1
                bytes.append(e < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
                appendDecimal(Int64(e.magnitude), to: &bytes)
            }
        }
    }

    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// The shortest decimal significand (no trailing zeros) and exponent `n` such that
    /// `significand × 10^(n − digitCount)` reads back as `magnitude` (positive, finite).
    static func shortestDigits(_ magnitude: Double) -> (significand: UInt64, n: Int) {
        // Fast path: the smallest k with m / 10^k == magnitude for an integer m < 10^15. Both m and
        // 10^k are exact doubles and division rounds correctly, so "m e-k" reads back as magnitude;
        // and since any two decimals of ≤ 15 digits map to different doubles, no shorter string does.
        if magnitude >= 1e-7 && magnitude < 1e15 {
            var k = 1
            while k <= 22 {
                let scale = powersOfTen[k]
                let scaled = magnitude * scale
                if scaled >= 1e15 { break }
                let m = UInt64(scaled + 0.5)
                if Double(m) / scale == magnitude {
                    return (m, decimalDigitCount(m) - k)
                }
                k += 1
            }
        }
        // General case: the standard library prints the shortest round-trip digits.
        var description = magnitude.description
        return description.withUTF8 { text in
            var significand: UInt64 = 0
            var digitCount = 0
            var pointPosition = 0  // digits before the decimal point, leading zeros excluded
            var seenPoint = false
            var exponent = 0
            var index = 0
            while index < text.count {
                let byte = text[index]
                if byte == UInt8(ascii: ".") {
                    seenPoint = true
                } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                    var exponentNegative = false
                    index += 1
                    if index < text.count && (text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+")) {
                        exponentNegative = text[index] == UInt8(ascii: "-")
                        index += 1
                    }
                    while index < text.count {
                        exponent = exponent * 10 + Int(text[index] &- UInt8(ascii: "0"))
                        index += 1
                    }
                    if exponentNegative { exponent = -exponent }
                    break
                } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                    if significand == 0 && byte == UInt8(ascii: "0") {
                        // A leading zero: after the point it shifts the exponent.
                        if seenPoint { pointPosition -= 1 }
                    } else {
                        significand = significand &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
                        digitCount += 1
                        if !seenPoint { pointPosition += 1 }
                    }
                }
                index += 1
            }
            while significand > 0 && significand % 10 == 0 {
                significand /= 10
            }
            return (significand, pointPosition + exponent)
        }
    }

    static func decimalDigitCount(_ value: UInt64) -> Int {
        var count = 1
        var remaining = value
        while remaining >= 10 {
            remaining /= 10
            count += 1
        }
        return count
    }
}
