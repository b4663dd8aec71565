/// One header of an HTTP/2 header list: a lower-case name (pseudo-headers start with `:`) and a value.
package struct HeaderField: Sendable, Equatable, CustomStringConvertible {
    package var name: String
    package var value: String

    package init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// The size HPACK charges for this entry in a dynamic table: name + value + 32 bytes.
    var tableSize: Int { name.utf8.count + value.utf8.count + 32 }

    package var description: String { "\(name): \(value)" }
}

extension [HeaderField] {
    /// The value of the first header named `name`.
    package func first(_ name: String) -> String? {
        first { $0.name == name }?.value
    }
}
