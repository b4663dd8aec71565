/// The Huffman decoder as a state machine that consumes four bits per step, built once from
/// ``HuffmanTree``: a state is an inner node of the tree (the bits read since the last symbol),
/// and each step says where a nibble leads from it and which symbol, if any, it completes.
struct HuffmanDecodingTable: Sendable {
    /// A step's bits: the next state (bits 0–7), the symbol completed (bits 8–15, with ``emits``),
    /// or ``failed`` when the nibble completes EOS or leaves the code.
    static let emits: UInt32 = 1 << 16
    static let failed: UInt32 = 1 << 17

    /// `steps[state << 4 | nibble]`.
    let steps: [UInt32]
    /// Whether a string may end in the state: at most seven bits since the last symbol, all ones
    /// (the most significant bits of EOS).
    let mayEnd: [Bool]

    static let shared = HuffmanDecodingTable(HuffmanTree.shared)

    init(_ tree: HuffmanTree) {
        // Inner nodes in tree order, so the root is state 0; the code has 257 symbols, hence 256
        // inner nodes, which fit the step's eight bits.
        var stateOf = [Int](repeating: -1, count: tree.nodes.count)
        var inner: [Int] = []
        for (index, node) in tree.nodes.enumerated() where node.symbol < 0 {
            stateOf[index] = inner.count
            inner.append(index)
        }
        precondition(inner.count <= 256, "the HPACK code has 256 inner nodes")
        // Bits since the last symbol and whether they are all ones, per node, walking down from
        // the root (a child is always created after its parent).
        var depth = [Int](repeating: 0, count: tree.nodes.count)
        var ones = [Bool](repeating: true, count: tree.nodes.count)
        for (index, node) in tree.nodes.enumerated() {
            for (child, bit) in [(node.zero, false), (node.one, true)] where child > 0 {
                depth[Int(child)] = depth[index] + 1
                ones[Int(child)] = ones[index] && bit
            }
        }
        mayEnd = inner.map { depth[$0] <= 7 && ones[$0] }
        var steps = [UInt32](repeating: Self.failed, count: inner.count << 4)
        for (state, start) in inner.enumerated() {
            for nibble in 0..<16 {
                var node = start
                var step: UInt32 = 0
                for shift in stride(from: 3, through: 0, by: -1) {
                    let next = Int((nibble >> shift) & 1 == 0 ? tree.nodes[node].zero : tree.nodes[node].one)
                    let symbol = next > 0 ? tree.nodes[next].symbol : 256
                    if symbol == 256 {
                        step = Self.failed
                        break
                    }
                    if symbol >= 0 {
                        step |= Self.emits | UInt32(symbol) << 8
                        node = 0
                    } else {
                        node = next
                    }
                }
                steps[state << 4 | nibble] = step & Self.failed != 0 ? Self.failed : step | UInt32(stateOf[node])
            }
        }
        self.steps = steps
    }
}
