/// HPACK's static Huffman code (RFC 7541 §5.2, Appendix B).
///
/// ```swift
/// let encoded = Huffman.encode(Array("www.example.com".utf8))   // 12 bytes
/// let decoded = try Huffman.decode(encoded)
/// ```
package enum Huffman {
    /// The encoded length in bytes of `bytes`.
    package static func encodedCount(_ bytes: some Sequence<UInt8>) -> Int {
        var bits = 0
        for b in bytes { bits += Int(HuffmanTable.codes[Int(b)].length) }
        return (bits + 7) / 8
    }

    /// Encodes `bytes`, padding the last byte with the most significant bits of EOS (all ones).
    package static func encode(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        var accumulator: UInt64 = 0
        var count = 0
        for b in bytes {
            let (code, length) = HuffmanTable.codes[Int(b)]
            accumulator = (accumulator << UInt64(length)) | UInt64(code)
            count += Int(length)
            while count >= 8 {
                count -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt64(count)))
            }
        }
        if count > 0 {
            let pad = 8 - count
            out.append(UInt8(truncatingIfNeeded: (accumulator << UInt64(pad)) | ((1 << UInt64(pad)) - 1)))
        }
        return out
    }

    /// Decodes a Huffman string. Rejects EOS, padding longer than 7 bits and padding that is not
    /// all ones (RFC 7541 §5.2).
    package static func decode(_ bytes: some Sequence<UInt8>) throws(HPACKError) -> [UInt8] {
        let table = HuffmanDecodingTable.shared
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount + bytes.underestimatedCount / 2)
        var state = 0
        for byte in bytes {
            // Four bits at a time: no code is shorter than five bits, so a nibble ends at most one symbol.
            state = try step(table, state, byte >> 4, &out)
            state = try step(table, state, byte & 0x0F, &out)
        }
        guard table.mayEnd[state] else { throw .invalidHuffman }
        return out
    }

    @inline(__always)
    private static func step(_ table: HuffmanDecodingTable, _ state: Int, _ nibble: UInt8, _ out: inout [UInt8]) throws(HPACKError) -> Int {
        let step = table.steps[state << 4 | Int(nibble)]
        if step & HuffmanDecodingTable.failed != 0 { throw .invalidHuffman }
        if step & HuffmanDecodingTable.emits != 0 { out.append(UInt8(truncatingIfNeeded: step >> 8)) }
        return Int(step & 0xFF)
    }
}

/// The decoding tree of the Huffman code, built once.
struct HuffmanTree: Sendable {
    struct Node: Sendable {
        var zero: Int32 = 0
        var one: Int32 = 0
        var symbol: Int16 = -1
    }

    var nodes: [Node] = [Node()]

    static let shared = HuffmanTree()

    init() {
        for (symbol, entry) in HuffmanTable.codes.enumerated() {
            var node = 0
            for i in stride(from: Int(entry.length) - 1, through: 0, by: -1) {
                let bit = (entry.code >> UInt32(i)) & 1
                let existing = bit == 0 ? nodes[node].zero : nodes[node].one
                if existing > 0 {
                    node = Int(existing)
                    continue
                }
                nodes.append(Node())
                let created = Int32(nodes.count - 1)
                if bit == 0 { nodes[node].zero = created } else { nodes[node].one = created }
                node = Int(created)
            }
            nodes[node].symbol = Int16(symbol)
        }
    }
}
