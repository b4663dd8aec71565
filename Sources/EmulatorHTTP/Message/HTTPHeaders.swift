/// Header fields in arrival order. Lookups ignore ASCII case, as HTTP requires.
package struct HTTPHeaders: Sendable, Hashable, Sequence {
    package private(set) var fields: [(name: String, value: String)] = []

    package init() {}

    /// Empty, with room for `minimumCapacity` fields.
    package init(minimumCapacity: Int) {
        fields.reserveCapacity(minimumCapacity)
    }

    package init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    package mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field called `name` with one field.
    package mutating func set(_ name: String, _ value: String) {
        // Usually absent: a scan that finds nothing leaves the array alone.
        if fields.contains(where: { Self.namesMatch($0.name, name) }) { remove(name) }
        fields.append((name: name, value: value))
    }

    package mutating func remove(_ name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    /// The first value of the field called `name`.
    package subscript(_ name: String) -> String? {
        // Indexed in place, lengths first: a search that copied each field out would retain and
        // release both of its strings, and most names differ in length (every request asks for
        // a field or two: `Origin`, `Authorization`).
        let count = name.utf8.count
        for i in fields.indices where fields[i].name.utf8.count == count && Self.namesMatch(fields[i].name, name) {
            return fields[i].value
        }
        return nil
    }

    package func values(_ name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    package func makeIterator() -> some IteratorProtocol<(name: String, value: String)> {
        fields.makeIterator()
    }

    package static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    package func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
    }

    /// ASCII case-insensitive comparison of two field names.
    package static func namesMatch(_ a: String, _ b: String) -> Bool {
        let a = a.utf8, b = b.utf8
        guard a.count == b.count else { return false }
        let fast = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in
                for i in 0..<x.count where !HTTPFieldName.sameIgnoringCase(x[i], y[i]) { return false }
                return true
            }
        }
        if let fast, let fast { return fast }
        return zip(a, b).allSatisfy { x, y in HTTPFieldName.sameIgnoringCase(x, y) }
    }
}

/// Byte-level comparisons of field names, which HTTP compares ignoring ASCII case.
package enum HTTPFieldName {
    /// Whether two bytes are equal, or the same ASCII letter in different cases.
    // Inlinable, as `matches` is: other modules call it on request bytes.
    @inlinable @inline(__always)
    package static func sameIgnoringCase(_ x: UInt8, _ y: UInt8) -> Bool {
        x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A)
    }

    /// Whether `name` (raw bytes) is `lowercase` (ASCII, lower case) ignoring case.
    /// Inlinable: called from other modules, unspecialized it would step through the collection
    /// by protocol witnesses (a tenth of an RTDB GET's CPU once).
    @inlinable
    package static func matches(_ name: some Collection<UInt8>, _ lowercase: StaticString) -> Bool {
        guard name.count == lowercase.utf8CodeUnitCount else { return false }
        var i = 0
        for byte in name {
            if !sameIgnoringCase(byte, lowercase.utf8Start[i]) { return false }
            i += 1
        }
        return true
    }
}
