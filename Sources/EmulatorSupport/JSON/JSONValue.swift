/// A parsed JSON document.
///
/// Numbers keep the distinction the wire makes: a literal without fraction or exponent that fits
/// in 64 bits is `.int`, anything else is `.double`. Objects keep their members in source order;
/// member names are compared by their UTF-8 bytes (never with `String ==`, which treats canonically
/// equivalent strings as equal).
package enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])
}

/// One `"name": value` pair of a JSON object, in source order.
package struct JSONMember: Sendable, Hashable {
    package var name: String
    package var value: JSONValue

    package init(_ name: String, _ value: JSONValue) {
        self.name = name
        self.value = value
    }
}

extension JSONValue {
    /// The member called `name` (compared byte for byte), if this is an object that has one.
    package subscript(member name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        for member in members where member.name.utf8.elementsEqual(name.utf8) {
            return member.value
        }
        return nil
    }
}
