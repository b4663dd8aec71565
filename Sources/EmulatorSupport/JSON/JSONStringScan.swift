import CEmulatorLinux

/// Skips plain runs of string bytes: runs of 16 bytes or more in the C shim (SSE2, 16 bytes a
/// step), shorter ones word at a time here (SWAR: eight bytes per step), which costs less than
/// the call for a short name.
package enum JSONStringScan {
    /// From this many bytes on, a scan calls the shim.
    static let shimThreshold = 16

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether any byte of `word` is `"`, `\` or a control character (< 0x20).
    @inline(__always)
    static func needsEscape(_ word: UInt64) -> Bool {
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroInQuote = (quote &- ones) & ~quote
        let zeroInBackslash = (backslash &- ones) & ~backslash
        let control = (word &- ones &* 0x20) & ~word
        return (zeroInQuote | zeroInBackslash | control) & highBits != 0
    }

    /// Whether any byte of `word` is `"`, `\`, a control character or non-ASCII (≥ 0x80).
    @inline(__always)
    static func needsAttention(_ word: UInt64) -> Bool {
        word & highBits != 0 || needsEscape(word)
    }

    /// The index of the first byte at or after `start` (before `end`) that `needsAttention`
    /// may flag; every byte skipped is printable ASCII other than `"` and `\`.
    @inline(__always)
    package static func skipPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        if end - start >= shimThreshold, start >= 0 {
            return Int(cemu_json_plain_prefix(base, UInt64(start), UInt64(end), 1))
        }
        return skipPlainASCIIByWords(base, from: start, to: end)
    }

    /// ``skipPlainASCII(_:from:to:)`` in Swift, eight bytes a step (stops at the first word
    /// holding a byte to look at).
    @inline(__always)
    static func skipPlainASCIIByWords(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        var index = start
        while index + 8 <= end {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            if needsAttention(word) { break }
            index += 8
        }
        return index
    }

    /// Like `skipPlainASCII` but lets non-ASCII bytes through (for the writer, which copies UTF-8 raw).
    @inline(__always)
    package static func skipUnescaped(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        if end - start >= shimThreshold, start >= 0 {
            return Int(cemu_json_plain_prefix(base, UInt64(start), UInt64(end), 0))
        }
        return skipUnescapedByWords(base, from: start, to: end)
    }

    /// ``skipUnescaped(_:from:to:)`` in Swift, eight bytes a step.
    @inline(__always)
    static func skipUnescapedByWords(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        var index = start
        while index + 8 <= end {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            if needsEscape(word) { break }
            index += 8
        }
        return index
    }
}
