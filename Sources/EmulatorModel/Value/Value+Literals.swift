/// Literals for tests and fixtures. Deliberately not `ExpressibleByNilLiteral`: `fields["x"] = nil`
/// must remove a field, not store `.null`.
extension Value: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    package init(booleanLiteral value: Bool) { self = .boolean(value) }
    package init(integerLiteral value: Int64) { self = .integer(value) }
    package init(floatLiteral value: Double) { self = .double(value) }
    package init(stringLiteral value: String) { self = .string(value) }
    package init(arrayLiteral elements: Value...) { self = .array(elements) }
    /// A map; on duplicate keys (by UTF-8 bytes) the last one wins.
    package init(dictionaryLiteral elements: (String, Value)...) { self = .map(ValueMap(elements)) }
}
