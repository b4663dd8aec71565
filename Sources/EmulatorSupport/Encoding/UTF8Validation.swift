/// UTF-8 validation and byte-wise string comparison.
///
/// "Valid" follows RFC 3629: no overlong forms, no surrogates (U+D800–U+DFFF), nothing above
/// U+10FFFF.
package enum UTF8Validation {
    /// The length (1–4) of the valid UTF-8 sequence that starts at `index`, or nil if the bytes
    /// there are not valid UTF-8.
    @inline(__always)
    package static func scalarLength(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        let count = bytes.count
        let lead = bytes[index]
        if lead < 0x80 { return 1 }
        @inline(__always) func continuation(_ offset: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            index + offset < count && bytes[index + offset] >= low && bytes[index + offset] <= high
        }
        switch lead {
        case 0xC2...0xDF:
            return continuation(1) ? 2 : nil
        case 0xE0:
            return continuation(1, 0xA0) && continuation(2) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF:
            return continuation(1) && continuation(2) ? 3 : nil
        case 0xED:
            return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : nil
        case 0xF0:
            return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF1...0xF3:
            return continuation(1) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF4:
            return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : nil
        default:
            return nil
        }
    }

    /// The offset of the first byte that is not part of valid UTF-8, or nil if all of `bytes` is valid.
    package static func firstInvalidOffset(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var index = 0
        let count = bytes.count
        while index < count {
            // ASCII fast path, 8 bytes at a time.
            while index + 8 <= count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 != 0 { break }
                index += 8
            }
            guard index < count else { break }
            guard let length = scalarLength(in: bytes, at: index) else { return index }
            index += length
        }
        return nil
    }

    /// Whether `bytes` is entirely valid UTF-8.
    ///
    /// ```swift
    /// UTF8Validation.isValid([0x61, 0xC3, 0xA9]) // true  ("aé")
    /// UTF8Validation.isValid([0xC0, 0x80])       // false (overlong NUL)
    /// ```
    package static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { firstInvalidOffset($0) == nil }
    }

    /// Whether `bytes` is entirely valid UTF-8.
    package static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        firstInvalidOffset(bytes) == nil
    }

    /// The text of `bytes`, or nil when they are not valid UTF-8. ASCII (field names, ids, most
    /// values) is copied without the general validator.
    package static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let n = bytes.count
        guard let base = bytes.baseAddress else { return "" }
        var i = 0
        while i + 8 <= n {
            if UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
                return String(validating: bytes, as: UTF8.self)
            }
            i += 8
        }
        while i < n {
            if bytes[i] >= 0x80 { return String(validating: bytes, as: UTF8.self) }
            i += 1
        }
        return String(unsafeUninitializedCapacity: n) { target in
            _ = target.initialize(from: bytes)
            return n
        }
    }

    /// Appends the UTF-8 encoding of `scalar` to `buffer`.
    @inline(__always)
    package static func appendUTF8(of scalar: Unicode.Scalar, to buffer: inout [UInt8]) {
        let value = scalar.value
        switch value {
        case 0..<0x80:
            buffer.append(UInt8(truncatingIfNeeded: value))
        case 0x80..<0x800:
            buffer.append(UInt8(truncatingIfNeeded: 0xC0 | (value >> 6)))
            buffer.append(UInt8(truncatingIfNeeded: 0x80 | (value & 0x3F)))
        case 0x800..<0x10000:
            buffer.append(UInt8(truncatingIfNeeded: 0xE0 | (value >> 12)))
            buffer.append(UInt8(truncatingIfNeeded: 0x80 | ((value >> 6) & 0x3F)))
            buffer.append(UInt8(truncatingIfNeeded: 0x80 | (value & 0x3F)))
        default:
            buffer.append(UInt8(truncatingIfNeeded: 0xF0 | (value >> 18)))
            buffer.append(UInt8(truncatingIfNeeded: 0x80 | ((value >> 12) & 0x3F)))
            buffer.append(UInt8(truncatingIfNeeded: 0x80 | ((value >> 6) & 0x3F)))
            buffer.append(UInt8(truncatingIfNeeded: 0x80 | (value & 0x3F)))
        }
    }
}
