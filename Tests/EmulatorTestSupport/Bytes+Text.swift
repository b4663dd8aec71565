extension Array where Element == UInt8 {
    /// Whether `text`'s UTF-8 bytes occur in these bytes, e.g. a written value in a journal file.
    package func contains(text: String) -> Bool {
        let needle = Array(text.utf8)
        guard !needle.isEmpty else { return true }
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
