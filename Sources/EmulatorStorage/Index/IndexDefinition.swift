/// A secondary index the engine maintains on every commit.
///
/// `extract` maps an entry to zero or more order-preserving index keys (several for
/// array-contains); storage orders hits by (index key bytes, primary key).
///
/// ```swift
/// // Documents directly in "cities", ordered by an encoded "state" field:
/// let byState = IndexDefinition(id: "cities/state", scope: StorageKey("cities"),
///     includes: { $0.depth == 2 },
///     extract: { key, value in decodeState(value).map { [$0] } ?? [] })
/// engine.ensureIndex("firestore/p/(default)", byState)
/// ```
package struct IndexDefinition: Sendable {
    package let id: String
    /// The subtree the index covers; only keys inside it are offered to `includes`.
    package let scope: StorageKey
    package let includes: @Sendable (StorageKey) -> Bool
    package let extract: @Sendable (StorageKey, [UInt8]) -> [[UInt8]]

    package init(
        id: String, scope: StorageKey, includes: @escaping @Sendable (StorageKey) -> Bool = { _ in true },
        extract: @escaping @Sendable (StorageKey, [UInt8]) -> [[UInt8]]
    ) {
        self.id = id
        self.scope = scope
        self.includes = includes
        self.extract = extract
    }

    func covers(_ key: StorageKey) -> Bool { scope.contains(key) && includes(key) }
}

/// One entry found by an index scan.
package struct IndexHit: Sendable, Equatable {
    /// The index key `extract` produced.
    package var indexKey: [UInt8]
    /// The primary key it points at.
    package var key: StorageKey
}

/// A range of index keys.
///
/// ```swift
/// IndexRange.prefix(encodedCity)   // city == x, any order value after it
/// IndexRange(from: .including(a), to: .excluding(b))
/// ```
package struct IndexRange: Sendable, Equatable {
    package enum Bound: Sendable, Equatable {
        case unbounded
        case including([UInt8])
        case excluding([UInt8])
    }

    /// Inclusive lower and exclusive upper bounds on composite (escaped index key + primary key) bytes.
    var lower: [UInt8]
    var upper: [UInt8]?

    package init(from lowerBound: Bound, to upperBound: Bound) {
        switch lowerBound {
        case .unbounded: lower = []
        case .including(let key): lower = StorageKey.escaped(key)
        case .excluding(let key): lower = IndexRange.open(key) + [1]
        }
        switch upperBound {
        case .unbounded: upper = nil
        case .including(let key): upper = IndexRange.open(key) + [1]
        case .excluding(let key): upper = StorageKey.escaped(key)
        }
    }

    package static let all = IndexRange(from: .unbounded, to: .unbounded)

    /// Index keys that start with `prefix`.
    package static func prefix(_ prefix: [UInt8]) -> IndexRange {
        var range = IndexRange.all
        range.lower = open(prefix)
        range.upper = ByteOrder.prefixSuccessor(range.lower)
        return range
    }

    /// The escaped bytes of `key` without the terminator.
    private static func open(_ key: [UInt8]) -> [UInt8] {
        var bytes = StorageKey.escaped(key)
        bytes.removeLast()
        return bytes
    }

    var keyRange: StorageKeyRange { StorageKeyRange(lower: lower, upper: upper) }
}
