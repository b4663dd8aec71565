import Testing

@testable import EmulatorHTTP2

/// The nibble-at-a-time decoder against a bit-at-a-time walk of the code's tree.
@Suite("HPACK Huffman decoding")
struct HuffmanDecodingTests {
    /// The reference: one bit at a time down ``HuffmanTree``, with RFC 7541 §5.2's checks.
    static func decodeBitByBit(_ bytes: [UInt8]) -> [UInt8]? {
        let tree = HuffmanTree.shared
        var out: [UInt8] = []
        var node = 0
        var bits = 0
        var ones = true
        for byte in bytes {
            for shift in stride(from: 7, through: 0, by: -1) {
                let bit = (byte >> UInt8(shift)) & 1
                let next = Int(bit == 0 ? tree.nodes[node].zero : tree.nodes[node].one)
                guard next > 0 else { return nil }
                bits += 1
                if bit == 0 { ones = false }
                let symbol = tree.nodes[next].symbol
                if symbol == 256 { return nil }
                if symbol >= 0 {
                    out.append(UInt8(symbol))
                    (node, bits, ones) = (0, 0, true)
                } else {
                    node = next
                }
            }
        }
        return bits > 7 || !ones ? nil : out
    }

    @Test func everySymbolRoundTrips() throws {
        let all = (0...255).map { UInt8($0) }
        #expect(try Huffman.decode(Huffman.encode(all)) == all)
        for b in all {
            #expect(try Huffman.decode(Huffman.encode([b, b, b])) == [b, b, b])
        }
    }

    @Test func eosIsRejected() {
        // EOS is thirty ones; here followed by two zero bits.
        #expect(throws: HPACKError.invalidHuffman) { try Huffman.decode([0xFF, 0xFF, 0xFF, 0xFC]) }
    }

    @Test func randomInputsDecodeAsTheTreeWalkDoes() {
        var generator = SystemRandomNumberGenerator()
        var accepted = 0
        for round in 0..<20_000 {
            let count = Int.random(in: 0...12, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Half the inputs are encodings with random tails cut off, so most are valid.
            if round % 2 == 0 {
                bytes = Huffman.encode(bytes.map { $0 % 96 + 32 })
                if !bytes.isEmpty, Bool.random(using: &generator) { bytes.removeLast() }
            }
            let expected = Self.decodeBitByBit(bytes)
            let decoded = try? Huffman.decode(bytes)
            #expect(decoded == expected, "\(bytes)")
            if expected != nil { accepted += 1 }
        }
        #expect(accepted > 5_000)
    }
}
