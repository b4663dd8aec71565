/// Decodes header blocks (RFC 7541 §6). Keeps the dynamic table across blocks of one connection,
/// so blocks must be decoded in the order they arrived.
///
/// A block that repeats the one before it byte for byte, when that one left the dynamic table as
/// it found it, is answered with the same header list without decoding: it names the same table
/// entries and holds the same literals, so it means the same. A client that indexes every header
/// but `:path` (h2load does) sends such a block for every call to one method, and its
/// Huffman-coded literal would otherwise be decoded every time.
///
/// ```swift
/// var decoder = HPACKDecoder()
/// let headers = try decoder.decode([0x82, 0x86, 0x84])  // :method GET, :scheme http, :path /
/// ```
package struct HPACKDecoder: Sendable {
    private(set) var table: HPACKDynamicTable
    /// The largest table size the peer may choose (our SETTINGS_HEADER_TABLE_SIZE).
    package var maxAllowedTableSize: Int { didSet { repeated = nil } }
    /// The largest decoded header list (sum of entry sizes) accepted.
    package var maxHeaderListSize: Int { didSet { repeated = nil } }
    /// The last block decoded, and its header list, when decoding it changed nothing in the
    /// dynamic table (no incremental indexing, no size update): while it is kept, the table is
    /// the one that block was decoded against.
    private var repeated: (block: [UInt8], fields: [HeaderField])?
    /// How many blocks were answered from the repeated block (for tests).
    package private(set) var repeatedBlocks = 0

    package init(maxTableSize: Int = 4096, maxHeaderListSize: Int = 1 << 20) {
        self.table = HPACKDynamicTable(maxSize: maxTableSize)
        self.maxAllowedTableSize = maxTableSize
        self.maxHeaderListSize = maxHeaderListSize
    }

    /// The dynamic table's current size in HPACK units (for tests).
    package var dynamicTableSize: Int { table.size }
    /// The dynamic table's entries, newest first (for tests).
    package var dynamicEntries: [HeaderField] { (0..<table.count).compactMap { table[$0] } }

    package mutating func decode(_ bytes: [UInt8]) throws(HPACKError) -> [HeaderField] {
        if let repeated, repeated.block == bytes {
            repeatedBlocks &+= 1
            return repeated.fields
        }
        repeated = nil
        var changesTable = false
        let fields = try decodeAll(bytes, changesTable: &changesTable)
        if !changesTable { repeated = (bytes, fields) }
        return fields
    }

    private mutating func decodeAll(_ bytes: [UInt8], changesTable: inout Bool) throws(HPACKError) -> [HeaderField] {
        var out: [HeaderField] = []
        var listSize = 0
        var i = 0
        var sawField = false
        while i < bytes.count {
            let b = bytes[i]
            if b & 0x80 != 0 {
                // Indexed header field.
                let index = try HPACKPrimitive.readInteger(bytes, &i, prefixBits: 7)
                out.append(try field(at: index))
            } else if b & 0xC0 == 0x40 {
                // Literal with incremental indexing.
                let f = try literal(bytes, &i, prefixBits: 6)
                changesTable = true
                table.insert(f)
                out.append(f)
            } else if b & 0xE0 == 0x20 {
                // Dynamic table size update: only at the start of a block.
                if sawField { throw .tableSizeUpdateMisplaced }
                let size = try HPACKPrimitive.readInteger(bytes, &i, prefixBits: 5)
                if size > maxAllowedTableSize { throw .tableSizeUpdateTooLarge(size) }
                changesTable = true
                table.resize(size)
                continue
            } else {
                // Literal without indexing (0000) or never indexed (0001).
                out.append(try literal(bytes, &i, prefixBits: 4))
            }
            sawField = true
            listSize += out[out.count - 1].tableSize
            if listSize > maxHeaderListSize { throw .headerListTooLarge }
        }
        return out
    }

    private func field(at index: Int) throws(HPACKError) -> HeaderField {
        if index >= 1, index <= HPACKStaticTable.entries.count {
            let e = HPACKStaticTable.entries[index - 1]
            return HeaderField(e.name, e.value)
        }
        guard let f = table[index - HPACKStaticTable.entries.count - 1] else { throw .invalidIndex(index) }
        return f
    }

    private func literal(_ bytes: [UInt8], _ i: inout Int, prefixBits: Int) throws(HPACKError) -> HeaderField {
        let index = try HPACKPrimitive.readInteger(bytes, &i, prefixBits: prefixBits)
        let name = index == 0 ? try HPACKPrimitive.readString(bytes, &i) : try field(at: index).name
        let value = try HPACKPrimitive.readString(bytes, &i)
        return HeaderField(name, value)
    }
}
