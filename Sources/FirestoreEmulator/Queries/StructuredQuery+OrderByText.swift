import EmulatorModel

extension StructuredQuery.Order {
    /// Parses ListDocuments' `order_by` text, as REST's `orderBy` parameter and gRPC's field 6 carry
    /// it: comma-separated field paths, each optionally followed by `asc` or `desc` (any case).
    /// Empty text is no ordering.
    ///
    /// ```swift
    /// try StructuredQuery.Order.list(parsing: "a desc, b")  // [a descending, b ascending]
    /// ```
    ///
    /// Throws `INVALID_ARGUMENT` (`Invalid order_by "…".`) for a part of more than two words or
    /// another direction word, and the field path's error for a path that does not parse.
    static func list(parsing text: String) throws(EmulatorError) -> [StructuredQuery.Order] {
        var orders: [StructuredQuery.Order] = []
        for part in text.split(separator: ",") {
            let words = part.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = words.first, words.count <= 2 else { throw .invalidArgument("Invalid order_by \"\(text)\".") }
            let direction: StructuredQuery.Direction
            switch words.count == 2 ? words[1].lowercased() : "asc" {
            case "asc": direction = .ascending
            case "desc": direction = .descending
            default: throw .invalidArgument("Invalid order_by \"\(text)\".")
            }
            orders.append(.init(try FieldPath(parsing: String(first)), direction))
        }
        return orders
    }
}
