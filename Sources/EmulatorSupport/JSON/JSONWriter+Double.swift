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
        // The standard library prints the shortest round-trip digits; re-lay them out as JS does.
        var description = value.magnitude.description
        description.withUTF8 { text in
            var digits: [UInt8] = []
            digits.reserveCapacity(20)
            var pointPosition = 0  // digits before the decimal point
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
                } else {
                    digits.append(byte)
                    if !seenPoint { pointPosition += 1 }
                }
                index += 1
            }
            // Normalise to value = 0.d1d2…dk × 10^n with d1 ≠ 0 and dk ≠ 0.
            var leading = 0
            while leading < digits.count && digits[leading] == UInt8(ascii: "0") { leading += 1 }
            var trailing = digits.count
            while trailing > leading && digits[trailing - 1] == UInt8(ascii: "0") { trailing -= 1 }
            let significant = digits[leading..<trailing]
            let k = significant.count
            let n = pointPosition + exponent - leading

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
}
