import Glibc

/// Compares two strings by their UTF-8 bytes (equivalently, by Unicode scalar values).
///
/// Returns a negative number, zero or a positive number. Unlike `<` on `String`, canonically
/// equivalent but differently encoded strings ("é" vs "e\u{301}") are *not* equal.
///
/// ```swift
/// utf8Compare("a", "b")  // < 0
/// utf8Compare("é", "e\u{301}") // > 0 (0xC3 > 0x65)
/// ```
package func utf8Compare(_ a: String, _ b: String) -> Int {
    let fast = a.utf8.withContiguousStorageIfAvailable { left in
        b.utf8.withContiguousStorageIfAvailable { right in
            UTF8Validation.compare(left, right)
        }
    }
    if let result = fast ?? nil { return result }
    var left = a.utf8.makeIterator()
    var right = b.utf8.makeIterator()
    while true {
        switch (left.next(), right.next()) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case (let x?, let y?) where x != y: return x < y ? -1 : 1
        default: continue
        }
    }
}

/// Whether `a` and `b` have identical UTF-8 bytes.
package func utf8Equal(_ a: String, _ b: String) -> Bool {
    a.utf8.count == b.utf8.count && utf8Compare(a, b) == 0
}

extension UTF8Validation {
    /// Lexicographic comparison of two byte buffers: negative, zero or positive.
    package static func compare(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(left.count, right.count)
        if common > 0, let l = left.baseAddress, let r = right.baseAddress {
            let order = memcmp(l, r, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }
}
