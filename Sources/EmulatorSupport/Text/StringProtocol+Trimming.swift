extension StringProtocol {
    /// The text without leading and trailing spaces and tabs: HTTP's optional whitespace around
    /// header values and list items, and the spaces around comma-separated flag values.
    ///
    /// ```swift
    /// " gzip,\tchunked ".split(separator: ",").map(\.trimmingSpaces)   // ["gzip", "chunked"]
    /// ```
    package var trimmingSpaces: SubSequence {
        var text = self[...]
        while let c = text.first, c == " " || c == "\t" { text = text.dropFirst() }
        while let c = text.last, c == " " || c == "\t" { text = text.dropLast() }
        return text
    }
}
