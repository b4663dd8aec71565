/// A range of keys in encoded order: an inclusive lower and an exclusive upper encoding.
///
/// ```swift
/// StorageKeyRange.subtree(of: StorageKey("users"))      // "users" and everything below it
/// StorageKeyRange.descendants(of: StorageKey("users"))  // everything strictly below "users"
/// StorageKeyRange(from: .excluding(StorageKey("users/bob")), to: .unbounded)
/// ```
package struct StorageKeyRange: Sendable, Equatable {
    /// One end of a range.
    package enum Bound: Sendable, Equatable {
        case unbounded
        case including(StorageKey)
        case excluding(StorageKey)
    }

    /// Inclusive lower bound on encodings.
    var lower: [UInt8]
    /// Exclusive upper bound on encodings; nil means unbounded.
    var upper: [UInt8]?

    init(lower: [UInt8], upper: [UInt8]?) {
        self.lower = lower
        self.upper = upper
    }

    /// Keys between two bounds in key order (a key's descendants sort right after it).
    package init(from lowerBound: Bound, to upperBound: Bound) {
        switch lowerBound {
        case .unbounded: lower = []
        case .including(let key): lower = key.encoded
        case .excluding(let key): lower = key.encoded + [0]
        }
        switch upperBound {
        case .unbounded: upper = nil
        case .including(let key): upper = key.encoded + [0]
        case .excluding(let key): upper = key.encoded
        }
    }

    package static let all = StorageKeyRange(lower: [], upper: nil)

    /// `key` and all its descendants.
    package static func subtree(of key: StorageKey) -> StorageKeyRange {
        StorageKeyRange(lower: key.encoded, upper: key.subtreeEnd)
    }

    /// All strict descendants of `key`.
    package static func descendants(of key: StorageKey) -> StorageKeyRange {
        StorageKeyRange(lower: key.isRoot ? [] : key.encoded + [0], upper: key.subtreeEnd)
    }

    /// The overlap of two ranges.
    package func clamped(to other: StorageKeyRange) -> StorageKeyRange {
        let newLower = ByteOrder.less(lower, other.lower) ? other.lower : lower
        let newUpper: [UInt8]?
        switch (upper, other.upper) {
        case (nil, let u): newUpper = u
        case (let u, nil): newUpper = u
        case (let a?, let b?): newUpper = ByteOrder.less(a, b) ? a : b
        }
        return StorageKeyRange(lower: newLower, upper: newUpper)
    }

    func contains(_ encoded: [UInt8]) -> Bool {
        !ByteOrder.less(encoded, lower) && (upper.map { ByteOrder.less(encoded, $0) } ?? true)
    }

    var isEmpty: Bool { upper.map { !ByteOrder.less(lower, $0) } ?? false }
}
