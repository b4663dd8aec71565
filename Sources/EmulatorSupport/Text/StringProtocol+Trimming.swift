extension StringProtocol {
    /// The text without leading and trailing spaces and tabs: HTTP's optional whitespace around
    /// header values and list items, and the spaces around comma-separated flag values.
    ///
    /// ```swift
    /// " gzip,\tchunked ".split(separator: ",").map(\.trimmingSpaces)   // ["gzip", "chunked"]
    /// ```
    package var trimmingSpaces: SubSequence {
        // Bytes first: a space or tab next to ASCII (or the end) is a character of its own.
        // (Forward only: a StringProtocol's UTF-8 view is not known to be bidirectional.)
        let bytes = utf8
        var lower = bytes.startIndex
        while lower < bytes.endIndex, bytes[lower] == 0x20 || bytes[lower] == 0x09 { lower = bytes.index(after: lower) }
        var upper = lower
        var lastKept: UInt8 = 0
        var i = lower
        while i < bytes.endIndex {
            let byte = bytes[i]
            i = bytes.index(after: i)
            if byte != 0x20 && byte != 0x09 {
                upper = i
                lastKept = byte
            }
        }
        let trimmedFront = lower != bytes.startIndex
        let trimmedBack = upper != bytes.endIndex
        if (!trimmedFront || lower == upper || bytes[lower] < 0x80) && (!trimmedBack || upper == lower || lastKept < 0x80) {
            return self[lower..<upper]
        }
        // A non-ASCII neighbour may join a space into one character (a combining mark after it,
        // a prepended mark before it): trim whole characters, as the text reads.
        var text = self[...]
        while let c = text.first, c == " " || c == "\t" { text = text.dropFirst() }
        while let c = text.last, c == " " || c == "\t" { text = text.dropLast() }
        return text
    }
}
