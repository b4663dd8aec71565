/// One independent keyspace in the engine, e.g. `"firestore/demo-proj/(default)"` or `"database/demo-ns"`.
package struct NamespaceID: Hashable, Sendable, Comparable, ExpressibleByStringLiteral, CustomStringConvertible {
    package let name: String
    package init(_ name: String) { self.name = name }
    package init(stringLiteral value: String) { self.name = value }
    package var description: String { name }
    package static func < (lhs: NamespaceID, rhs: NamespaceID) -> Bool {
        ByteOrder.less(Array(lhs.name.utf8), Array(rhs.name.utf8))
    }
}
