extension JSONParser {
    /// Exact powers of ten representable in a Double (10^0 … 10^22).
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    @inline(__always)
    private func isDigit(_ i: Int) -> Bool {
        i < bytes.count && bytes[i] &- UInt8(ascii: "0") < 10
    }

    /// Parses a number literal starting at `index`.
    mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        var i = index
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }

        // Integer part: "0" or [1-9][0-9]*; accumulate all significant digits into `mantissa`.
        var mantissa: UInt64 = 0
        var mantissaOverflow = false
        @inline(__always) func accumulate(_ byte: UInt8) {
            let digit = UInt64(byte &- UInt8(ascii: "0"))
            let (times10, o1) = mantissa.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(digit)
            if o1 || o2 { mantissaOverflow = true } else { mantissa = sum }
        }
        guard isDigit(i) else {
            throw error(i >= bytes.count ? "unexpected end of input in number" : "expected a digit in number", at: i)
        }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if isDigit(i) { throw error("leading zeros are not allowed in numbers", at: start) }
        } else {
            while isDigit(i) {
                accumulate(bytes[i])
                i += 1
            }
        }

        var isInteger = true
        var fractionDigits = 0
        if i < bytes.count && bytes[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard isDigit(i) else { throw error("expected a digit after '.' in number", at: i) }
            while isDigit(i) {
                if !mantissaOverflow {
                    accumulate(bytes[i])
                    fractionDigits += 1
                }
                i += 1
            }
        }
        var exponent = 0
        if i < bytes.count && (bytes[i] | 0x20) == UInt8(ascii: "e") {
            isInteger = false
            i += 1
            var exponentNegative = false
            if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            guard isDigit(i) else { throw error("expected a digit in exponent", at: i) }
            while isDigit(i) {
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[i] &- UInt8(ascii: "0")) }
                i += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        index = i

        if isInteger && !mantissaOverflow {
            if negative {
                if mantissa == 0 { return .double(-0.0) }
                if mantissa <= UInt64(Int64.max) + 1 {
                    return .int(Int64(truncatingIfNeeded: 0 &- mantissa))
                }
            } else if mantissa <= UInt64(Int64.max) {
                return .int(Int64(mantissa))
            }
        }

        // Clinger's fast path: an exact mantissa times an exact power of ten rounds once.
        let scale = exponent - fractionDigits
        if !mantissaOverflow && mantissa <= 1 << 53 && scale >= -22 && scale <= 22 {
            var value = Double(mantissa)
            if scale >= 0 {
                value *= Self.exactPowersOfTen[scale]
            } else {
                value /= Self.exactPowersOfTen[-scale]
            }
            return .double(negative ? -value : value)
        }
        if mantissa == 0 && !mantissaOverflow {
            return .double(negative ? -0.0 : 0.0)
        }
        // Slow path: the standard library's correctly rounded conversion.
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw error("number out of range", at: start)
        }
        return .double(value)
    }
}
