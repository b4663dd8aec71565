/// One independent keyspace in the engine, e.g. `"firestore/demo-proj/(default)"` or `"database/demo-ns"`.
///
/// Equal when the names' UTF-8 bytes are. The name is hashed once, when the ID is made: every
/// read looks its namespace up, and hashing the whole name each time was a tenth of a read
/// whose nodes are cached.
package struct NamespaceID: Hashable, Sendable, Comparable, ExpressibleByStringLiteral, CustomStringConvertible {
    package let name: String
    private let nameHash: Int

    package init(_ name: String) {
        self.name = name
        var hasher = Hasher()
        hasher.combine(Array(name.utf8))
        nameHash = hasher.finalize()
    }

    package init(stringLiteral value: String) { self.init(value) }
    package var description: String { name }

    package static func == (lhs: NamespaceID, rhs: NamespaceID) -> Bool {
        guard lhs.nameHash == rhs.nameHash else { return false }
        let (left, right) = (lhs.name.utf8, rhs.name.utf8)
        let contiguous = left.withContiguousStorageIfAvailable { left in
            right.withContiguousStorageIfAvailable { right in
                // The same storage (one ID copied around) is equal without a look at the bytes.
                (left.baseAddress == right.baseAddress && left.count == right.count)
                    || ByteOrder.compare(left, 0, left.count, right) == 0
            }
        }
        return (contiguous ?? nil) ?? left.elementsEqual(right)
    }

    package func hash(into hasher: inout Hasher) { hasher.combine(nameHash) }

    package static func < (lhs: NamespaceID, rhs: NamespaceID) -> Bool {
        ByteOrder.less(Array(lhs.name.utf8), Array(rhs.name.utf8))
    }
}
