import EmulatorTestSupport
import Testing
@testable import EmulatorStorage

/// Leaf searches compare 8-byte key hints taken after a prefix the leaf's keys share; these
/// check them against a plain bytewise search on keys chosen to tie, nest and straddle that prefix.
@Suite struct LeafSearchTests {
    /// Keys over a tiny alphabet (0, 1, 2, 255) with a shared head, so many keys are prefixes of
    /// others, tie on their first 8 bytes after the head, or differ only in the zero padding.
    static func trickyKey(_ rng: inout SeededGenerator, head: [UInt8]) -> [UInt8] {
        let alphabet: [UInt8] = [0, 1, 2, 255]
        let length = Int.random(in: 0...14, using: &rng)
        var key = Array(head.prefix(Int.random(in: head.count - 2...head.count, using: &rng)))
        for _ in 0..<length { key.append(alphabet[Int.random(in: 0..<alphabet.count, using: &rng)]) }
        return key
    }

    static func referenceIndex(_ node: TreeNode, _ key: [UInt8]) -> (index: Int, found: Bool) {
        var index = 0
        while index < node.count && ByteOrder.less(node.key(at: index), key) { index += 1 }
        return (index, index < node.count && node.key(at: index) == key)
    }

    /// Heads the keys share: leaves whose keys share up to 8 bytes check a key against their
    /// `prefixHint`, the 10-byte head gives exactly 8 often, the longest reads the arena.
    static let heads: [[UInt8]] = [
        Array("do".utf8), Array("docs\u{0}x".utf8), Array("docs\u{0}abcde".utf8), Array("collection\u{0}sub\u{0}".utf8),
    ]

    @Test(arguments: 1...40)
    func hintSearchAgreesWithBytewiseSearch(seed: Int) {
        var rng = SeededGenerator(seed: UInt64(seed))
        let head = LeafSearchTests.heads[seed % LeafSearchTests.heads.count]
        var keys = Set<[UInt8]>()
        while keys.count < Int.random(in: 1...TreeNode.maxLeafEntries, using: &rng) {
            keys.insert(LeafSearchTests.trickyKey(&rng, head: head))
        }
        let node = TreeNode.leaf()
        // Insert in random order (so the shared prefix shrinks as keys arrive), each at its place.
        for key in keys.shuffled(using: &rng) {
            node.insert(VersionedEntry(key: key, value: [1], createTime: 1, updateTime: 1), at: node.entryIndex(for: key).index)
        }
        let stored = (0..<node.count).map(node.key(at:))
        #expect(stored == keys.sorted { ByteOrder.less($0, $1) })
        // Every stored key, and many that are not, land where a bytewise search puts them.
        var probes = Array(keys)
        for _ in 0..<300 { probes.append(LeafSearchTests.trickyKey(&rng, head: head)) }
        probes += [[], Array(head.prefix(3)), [255, 255]]
        for probe in probes {
            let got = node.entryIndex(for: probe)
            let want = LeafSearchTests.referenceIndex(node, probe)
            #expect(got.index == want.index && got.found == want.found, "probe \(probe)")
        }
        // Keys split off into a new leaf (its hints and prefix rebuilt from its own keys: all of
        // them for even seeds, the upper half for odd ones) are searched alike.
        if node.count > 1 {
            let right = node.splitLeaf(at: seed.isMultiple(of: 2) ? 0 : node.count / 2)
            for probe in probes {
                let got = right.entryIndex(for: probe)
                let want = LeafSearchTests.referenceIndex(right, probe)
                #expect(got.index == want.index && got.found == want.found, "probe \(probe) in the split-off leaf")
            }
            // Removing keys keeps the remaining ones findable.
            for index in stride(from: right.count - 1, through: 0, by: -2) { right.remove(at: index) }
            for index in 0..<right.count {
                #expect(right.entryIndex(for: right.key(at: index)) == (index, true))
            }
        }
        for index in stride(from: node.count - 1, through: 0, by: -2) { node.remove(at: index) }
        for index in 0..<node.count {
            #expect(node.entryIndex(for: node.key(at: index)) == (index, true))
        }
    }

    /// Internal nodes route by separator hints and, when the separators share at most 8 bytes, by
    /// a copy of that prefix instead of the arena: the child chosen must be the one a bytewise
    /// count of separators ≤ key gives, for heads shorter and longer than 8 bytes.
    @Test(arguments: 1...30)
    func childSearchAgreesWithBytewiseCount(seed: Int) {
        var rng = SeededGenerator(seed: UInt64(seed) * 131)
        let heads: [[UInt8]] = [[], Array("do".utf8), Array("docs\u{0}x".utf8), Array("collection\u{0}sub\u{0}".utf8)]
        let head = heads[seed % heads.count]
        var separators = Set<[UInt8]>()
        while separators.count < Int.random(in: 1...TreeNode.maxChildren - 1, using: &rng) {
            separators.insert(LeafSearchTests.trickyKey(&rng, head: head.count >= 2 ? head : head + [0, 1]))
        }
        let sorted = separators.sorted { ByteOrder.less($0, $1) }
        let node = TreeNode.node(children: (0...sorted.count).map { _ in TreeNode.leaf() }, separators: sorted)
        var probes = sorted
        for _ in 0..<300 { probes.append(LeafSearchTests.trickyKey(&rng, head: head.count >= 2 ? head : head + [0, 1])) }
        probes += [[], Array(head.prefix(3)), head, [255, 255], sorted[0] + [0], Array(sorted[0].dropLast())]
        for probe in probes {
            let want = sorted.filter { !ByteOrder.less(probe, $0) }.count
            #expect(node.childIndex(for: probe) == want, "probe \(probe) among \(sorted.count) separators")
        }
    }

    /// Leaves laid out in slot order (built from sorted entries, split off, rebuilt by a merge)
    /// record their arena bytes per slot, so with entries of one size a search's guess of where
    /// a found key's bytes are (`entryBytes` × slot) is exactly where they are.
    @Test func leavesInSlotOrderKnowWhereTheirKeysAre() {
        func key(_ number: Int) -> [UInt8] {
            let digits = Array(String(number).utf8)
            return Array("docs/".utf8) + [UInt8](repeating: UInt8(ascii: "0"), count: 6 - digits.count) + digits
        }
        func leaves(_ node: TreeNode) -> [TreeNode] { node.isLeaf ? [node] : node.children.flatMap(leaves) }
        func expectGuessesRight(_ leaf: TreeNode, _ label: String) {
            #expect(leaf.entryBytes == key(0).count + 40, "\(label)")
            for index in 0..<leaf.count {
                #expect(Int(leaf.slots[index].keyStart) == index * leaf.entryBytes, "\(label): slot \(index)")
            }
        }
        let entries = (0..<1000).map {
            VersionedEntry(key: key($0), value: [UInt8](repeating: 7, count: 40), createTime: 1, updateTime: 1)
        }
        var tree = VersionedTree(sorted: entries.filter { $0.key.last.map { $0 % 2 == 0 } ?? false })
        let built = leaves(tree.root)
        #expect(built.count > 1)
        for leaf in built { expectGuessesRight(leaf, "built") }
        let right = built[0].copy(horizon: 0).splitLeaf(at: built[0].count / 2)  // (a copy: the tree keeps its leaf)
        expectGuessesRight(right, "split off")
        // A merge of the odd keys rebuilds every leaf.
        let odd = VersionedTree(sorted: entries.filter { $0.key.last.map { $0 % 2 == 1 } ?? false })
        var source = TreeCursor(root: odd.root)
        source.seek(atLeast: [])
        tree.merge(&source, horizon: 0) { _, _, _ in }
        let merged = leaves(tree.root)
        #expect(merged.reduce(0) { $0 + $1.count } == 1000)
        for leaf in merged { expectGuessesRight(leaf, "merged") }
    }
}
