import Glibc

/// Bytewise (memcmp) ordering of byte strings.
enum ByteOrder {
    @inline(__always)
    static func compare(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        lhs.withUnsafeBufferPointer { left in
            rhs.withUnsafeBufferPointer { right in
                let common = min(left.count, right.count)
                if common > 0, let l = left.baseAddress, let r = right.baseAddress {
                    let result = memcmp(l, r, common)
                    if result != 0 { return result < 0 ? -1 : 1 }
                }
                return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
            }
        }
    }

    /// Compares `arena[start..<start+count]` with `key`.
    @inline(__always)
    static func compare(
        _ arena: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int, _ key: UnsafeBufferPointer<UInt8>
    ) -> Int {
        let common = min(count, key.count)
        if common > 0, let base = arena.baseAddress, let other = key.baseAddress {
            let result = memcmp(base + start, other, common)
            if result != 0 { return result < 0 ? -1 : 1 }
        }
        return count == key.count ? 0 : (count < key.count ? -1 : 1)
    }

    @inline(__always)
    static func less(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool { compare(lhs, rhs) < 0 }

    /// True if both hold the same bytes: one `memcmp`, where `==` on arrays compares element by
    /// element (a 1 KB value costs thousands of instructions).
    @inline(__always)
    static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        lhs.count == rhs.count && compare(lhs, rhs) == 0
    }

    /// `equal` for values that may be absent (both absent is equal).
    @inline(__always)
    static func equal(_ lhs: [UInt8]?, _ rhs: [UInt8]?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let l?, let r?): equal(l, r)
        default: false
        }
    }

    /// The smallest byte string greater than every string that starts with `prefix`, or nil if none.
    static func prefixSuccessor(_ prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }
}
