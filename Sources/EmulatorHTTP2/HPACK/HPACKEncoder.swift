/// Encodes header blocks. By default it never touches the dynamic table (every field is a
/// static-table index or a literal without indexing), so blocks may be produced for any stream in
/// any order; `indexing: true` adds literals to a dynamic table as RFC 7541 Appendix C does.
///
/// ```swift
/// var encoder = HPACKEncoder()
/// let block = encoder.encode([HeaderField(":status", "200")])  // [0x88]
/// ```
package struct HPACKEncoder: Sendable {
    package var huffman: Bool
    package var indexing: Bool
    private var table: HPACKDynamicTable

    package init(huffman: Bool = false, indexing: Bool = false, maxTableSize: Int = 4096) {
        self.huffman = huffman
        self.indexing = indexing
        self.table = HPACKDynamicTable(maxSize: maxTableSize)
    }

    package mutating func encode(_ headers: [HeaderField]) -> [UInt8] {
        var out: [UInt8] = []
        for h in headers {
            if let i = HPACKStaticTable.index(name: h.name, value: h.value) ?? dynamicIndex(h) {
                HPACKPrimitive.appendInteger(i, prefixBits: 7, flags: 0x80, to: &out)
                continue
            }
            let nameIndex = HPACKStaticTable.index(name: h.name) ?? dynamicNameIndex(h.name) ?? 0
            if indexing {
                HPACKPrimitive.appendInteger(nameIndex, prefixBits: 6, flags: 0x40, to: &out)
            } else {
                HPACKPrimitive.appendInteger(nameIndex, prefixBits: 4, flags: 0, to: &out)
            }
            if nameIndex == 0 { HPACKPrimitive.appendString(h.name, huffman: huffman, to: &out) }
            HPACKPrimitive.appendString(h.value, huffman: huffman, to: &out)
            if indexing { table.insert(h) }
        }
        return out
    }

    private func dynamicIndex(_ h: HeaderField) -> Int? {
        guard indexing else { return nil }
        for i in 0..<table.count where table[i] == h { return HPACKStaticTable.entries.count + 1 + i }
        return nil
    }

    private func dynamicNameIndex(_ name: String) -> Int? {
        guard indexing else { return nil }
        for i in 0..<table.count where table[i]?.name == name { return HPACKStaticTable.entries.count + 1 + i }
        return nil
    }
}
