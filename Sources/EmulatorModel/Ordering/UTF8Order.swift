/// Byte-wise comparison of strings, the order Firestore uses for strings, field names and ids.
///
/// Swift's `String ==` and `<` use Unicode canonical equivalence (`"é" == "e\u{301}"`), which
/// would merge distinct keys; every comparison in the model goes through these functions instead.
package enum UTF8Order {
    /// Compares the UTF-8 bytes of `a` and `b`: negative if `a` sorts first, 0 if equal, positive after.
    @inlinable
    package static func compare(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        return a.withUTF8 { pa in b.withUTF8 { pb in compare(pa, pb) } }
    }

    /// True when `a` and `b` have the same UTF-8 bytes.
    @inlinable
    package static func equal(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && compare(a, b) == 0
    }

    /// Unsigned lexicographic comparison of two byte sequences; a proper prefix sorts first.
    @inlinable
    package static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let n = min(a.count, b.count)
        var i = 0
        while i < n {
            let x = a[i]
            let y = b[i]
            if x != y { return x < y ? -1 : 1 }
            i += 1
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// Unsigned lexicographic comparison of two byte arrays; a proper prefix sorts first.
    @inlinable
    package static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in compare(pa, pb) } }
    }
}
