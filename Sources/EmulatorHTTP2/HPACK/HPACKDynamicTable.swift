/// An HPACK dynamic table (RFC 7541 §2.3.2, §4): newest entry first, evicting the oldest when
/// the size (sum of name + value + 32) would exceed `maxSize`.
struct HPACKDynamicTable: Sendable {
    /// Oldest first, so inserting is an append.
    private(set) var entries: [HeaderField] = []
    private(set) var size = 0
    private(set) var maxSize: Int

    init(maxSize: Int) { self.maxSize = maxSize }

    var count: Int { entries.count }

    /// The entry at dynamic index `i` (0 = newest).
    subscript(i: Int) -> HeaderField? {
        i >= 0 && i < entries.count ? entries[entries.count - 1 - i] : nil
    }

    mutating func insert(_ field: HeaderField) {
        let s = field.tableSize
        if s > maxSize {
            entries.removeAll()
            size = 0
            return
        }
        while size + s > maxSize, !entries.isEmpty { size -= entries.removeFirst().tableSize }
        entries.append(field)
        size += s
    }

    mutating func resize(_ newMax: Int) {
        maxSize = newMax
        while size > maxSize, !entries.isEmpty { size -= entries.removeFirst().tableSize }
    }
}
