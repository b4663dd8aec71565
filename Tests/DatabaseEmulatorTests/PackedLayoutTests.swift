import DatabaseEmulator
import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import EmulatorTestSupport
import Testing

/// `DatabasePackedCodec`: a small object in one engine entry, byte for byte.
@Suite struct PackedCodecTests {
    func node(_ text: String) -> DatabaseNode {
        DatabaseNode.build((try? JSONReader.parse(Array(text.utf8))) ?? .null, existing: .empty, now: 0)
    }

    @Test(arguments: [
        // tag, leaf count, child count, then key length, key, value per child (keys in database order)
        (#"{"age":36,"city":"Lima"}"#,
         [0x6F, 0x02, 0x02, 0x03, 0x61, 0x67, 0x65, 0x69, 0x48, 0x04, 0x63, 0x69, 0x74, 0x79, 0x73, 0x04, 0x4C, 0x69, 0x6D, 0x61]),
        // a nested object, true, a double's big-endian bits
        (#"{"a":{"b":true},"n":-1.5}"#,
         [0x6F, 0x02, 0x02, 0x01, 0x61, 0x6F, 0x01, 0x01, 0x62, 0x74, 0x01, 0x6E, 0x64, 0xBF, 0xF8, 0, 0, 0, 0, 0, 0]),
        // zigzag integers: -1 → 1, 64 → 128 (two varint bytes); false; the empty string
        (#"{"10":false,"2":-1,"x":64,"y":""}"#,
         [0x6F, 0x04, 0x04, 0x01, 0x32, 0x69, 0x01, 0x02, 0x31, 0x30, 0x66, 0x01, 0x78, 0x69, 0x80, 0x01, 0x01, 0x79, 0x73, 0x00]),
    ] as [(String, [UInt8])])
    func bytes(json: String, expected: [UInt8]) {
        #expect(DatabasePackedCodec.encode(node(json)) == expected)
        #expect(DatabasePackedCodec.decode(expected) == node(json))
        #expect(DatabasePackedCodec.leafCount(expected) == Int(expected[1]))
    }

    @Test func valuesRoundTripExactly() throws {
        let ints: [Int64] = [0, 1, -1, 63, -64, 64, 1 << 40, .max, .min]
        let doubles: [Double] = [0.5, -0.0, 1e300, -1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
        let strings = ["", "é", "e\u{301}", "🙂", String(repeating: "s", count: 300)]
        var pairs: [(key: String, node: DatabaseNode)] = []
        for (i, v) in ints.enumerated() { pairs.append(("i\(i)", .leaf(.int(v)))) }
        for (i, v) in doubles.enumerated() { pairs.append(("d\(i)", .leaf(.double(v)))) }
        for (i, v) in strings.enumerated() { pairs.append(("s\(i)", .leaf(.string(v)))) }
        pairs.append(("t", .leaf(.bool(true))))
        pairs.append(("o", DatabaseNode(children: [("x", .leaf(.int(1))), ("y", .leaf(.string("z")))], priority: nil)))
        let original = DatabaseNode(children: pairs, priority: nil)
        let bytes = try #require(DatabasePackedCodec.encode(original))
        let decoded = try #require(DatabasePackedCodec.decode(bytes))
        #expect(decoded == original)
        // Equality treats 0.0 and -0.0 alike and compares strings by bytes; check the bits too.
        #expect(decoded.child("d1").leafValue == .double(-0.0))
        if case .double(let d) = decoded.child("d1").content { #expect(d.sign == .minus) }
        #expect(decoded.child("i7") == .leaf(.int(.max)) && decoded.child("i8") == .leaf(.int(.min)))
        #expect(DatabasePackedCodec.leafCount(bytes) == pairs.count - 1 + 2)
    }

    @Test func onlySmallObjectsWithoutPrioritiesPack() {
        #expect(DatabasePackedCodec.encode(.leaf(.int(1))) == nil)
        #expect(DatabasePackedCodec.encode(.empty) == nil)
        #expect(DatabasePackedCodec.encode(node(#"{"a":1,".priority":2}"#)) == nil)
        #expect(DatabasePackedCodec.encode(node(#"{"a":{".value":1,".priority":2}}"#)) == nil)
        #expect(DatabasePackedCodec.encode(node(#"{"a":{"b":{"c":1}}}"#)) == nil)  // height 3
        #expect(DatabasePackedCodec.encode(node(#"{"a":{"b":1}}"#)) != nil)  // height 2
        let leaves = (0..<DatabasePackedCodec.maxLeaves).map { #""k\#($0)":\#($0)"# }
        #expect(DatabasePackedCodec.encode(node("{" + leaves.joined(separator: ",") + "}")) != nil)
        #expect(DatabasePackedCodec.encode(node("{" + (leaves + [#""z":0"#]).joined(separator: ",") + "}")) == nil)
        let long = String(repeating: "x", count: DatabasePackedCodec.maxBytes)
        #expect(DatabasePackedCodec.encode(node(#"{"s":"\#(long)"}"#)) == nil)
    }

    @Test func malformedBytesDecodeToNothing() throws {
        let good = try #require(DatabasePackedCodec.encode(node(#"{"a":1,"b":"xy"}"#)))
        for cut in 1..<good.count { #expect(DatabasePackedCodec.decode(Array(good[..<cut])) == nil) }
        #expect(DatabasePackedCodec.decode(good + [0]) == nil)  // trailing bytes
        var badTag = good
        badTag[5] = UInt8(ascii: "?")
        #expect(DatabasePackedCodec.decode(badTag) == nil)
        #expect(DatabasePackedCodec.decode([0x6F, 0x01, 0x00]) == nil)  // no children
        #expect(DatabasePackedCodec.decode([0x6F, 0x01, 0x01, 0x05, 0x61]) == nil)  // key past the end
        // Nesting past the packed height is refused too.
        #expect(DatabasePackedCodec.decode([0x6F, 0x01, 0x01, 0x01, 0x61, 0x6F, 0x01, 0x01, 0x62, 0x6F, 0x01, 0x01, 0x63, 0x74]) == nil)
    }
}

/// The packed layout against one entry per leaf (the layout before packing, still read): the
/// same writes give the same data (read back whole, at random paths and their priorities) and the
/// same changed locations, so readers and listeners cannot tell them apart.
@Suite struct PackedLayoutParityTests {
    let ns: NamespaceID = "database/parity"

    static let keys = ["a", "b", "c", "2", "10", "x"]

    func path(_ g: inout SeededGenerator) -> DatabasePath {
        DatabasePath(keys: (0..<(1 + g.below(3))).map { _ in Self.keys[g.below(Self.keys.count)] })
    }

    func value(_ g: inout SeededGenerator, depth: Int = 0) -> DatabaseNode {
        switch g.below(depth >= 3 ? 4 : 7) {
        case 0: return .empty
        case 1: return .leaf(.int(Int64(g.below(3))))
        case 2: return .leaf(.string(["s", "t", "long " + String(repeating: "z", count: 700)][g.below(3)]))
        case 3: return .leaf(.bool(g.below(2) == 0), priority: g.below(5) == 0 ? .int(1) : nil)
        default:
            let pairs = (0..<(1 + g.below(4))).map { _ in (Self.keys[g.below(Self.keys.count)], value(&g, depth: depth + 1)) }
            return DatabaseNode(children: pairs, priority: g.below(6) == 0 ? .string("p") : nil)
        }
    }

    func write(_ g: inout SeededGenerator) -> DatabaseWrite {
        switch g.below(4) {
        case 0:
            var base = path(&g)
            base = DatabasePath(keys: Array(base.keys.prefix(1)))
            var used = Set<String>()
            var changes: [(path: DatabasePath, node: DatabaseNode)] = []
            for _ in 0..<(1 + g.below(4)) {
                let key = Self.keys[g.below(Self.keys.count)]
                guard used.insert(key).inserted else { continue }
                let change = g.below(3) == 0 ? DatabasePath(keys: [key, Self.keys[g.below(Self.keys.count)]]) : DatabasePath(keys: [key])
                changes.append((change, value(&g)))
            }
            return .update(base: base, changes)
        case 1:
            return .set(path(&g).child(".priority"), g.below(2) == 0 ? .leaf(.int(5)) : .empty)
        default:
            return .set(g.below(10) == 0 ? .root : path(&g), value(&g))
        }
    }

    func read(_ engine: StorageEngine, _ path: DatabasePath) throws -> DatabaseNode { try engine.databaseNode(ns, at: path) }

    @Test(arguments: 1...40)
    func sameDataAndSameChangedLocations(seed: Int) throws {
        var g = SeededGenerator(seed: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15)
        let packed = StorageEngine(keepsHistory: { _ in false })
        let perLeaf = StorageEngine(keepsHistory: { _ in false })
        for step in 0..<60 {
            let write = write(&g)
            let a = packed.commit { (txn: inout CommitBuilder) in DatabaseStorageMapping.apply(write, to: &txn, ns) }
            let b = perLeaf.commit { (txn: inout CommitBuilder) in DatabaseStorageMapping.apply(write, to: &txn, ns, packs: false) }
            #expect(
                DatabaseStorageMapping.changedLocations(a.changes, write: write) == b.changes.map { DatabaseStorageMapping.path(of: $0.key) },
                "seed \(seed) step \(step): \(write)")
            #expect(a.cleared.map(\.key) == b.cleared.map(\.key), "seed \(seed) step \(step)")
            #expect(try read(packed, .root) == read(perLeaf, .root), "seed \(seed) step \(step)")
            for _ in 0..<4 {
                let probe = path(&g)
                #expect(try read(packed, probe) == read(perLeaf, probe), "seed \(seed) step \(step) at \(probe)")
                let priority = probe.child(".priority")
                #expect(try read(packed, priority) == read(perLeaf, priority), "seed \(seed) step \(step) at \(priority)")
            }
        }
    }

    /// Writes made with packing over data stored one entry per leaf (a data directory written
    /// before packing existed) give the same data and locations as over packed data.
    @Test(arguments: 1...20)
    func writesOverTheOldLayout(seed: Int) throws {
        var g = SeededGenerator(seed: UInt64(seed) &* 0xD1B5_4A32_D192_ED03)
        let mixed = StorageEngine(keepsHistory: { _ in false })
        let perLeaf = StorageEngine(keepsHistory: { _ in false })
        for step in 0..<40 {
            let write = write(&g)
            // The first half written the old way into both, the second half packed into one.
            let packs = step >= 20
            let a = mixed.commit { (txn: inout CommitBuilder) in DatabaseStorageMapping.apply(write, to: &txn, ns, packs: packs) }
            let b = perLeaf.commit { (txn: inout CommitBuilder) in DatabaseStorageMapping.apply(write, to: &txn, ns, packs: false) }
            #expect(
                DatabaseStorageMapping.changedLocations(a.changes, write: write) == b.changes.map { DatabaseStorageMapping.path(of: $0.key) },
                "seed \(seed) step \(step): \(write)")
            #expect(try read(mixed, .root) == read(perLeaf, .root), "seed \(seed) step \(step)")
        }
    }
}

/// `DatabaseNode.encoded` writes straight from the node what `json(export:)` encodes to.
@Suite struct NodeEncodingTests {
    @Test(arguments: [
        #"{"a":1,"b":{"c":"x","d":[true,null,2.5]},"e":{".value":3,".priority":"p"},".priority":1}"#,
        #"[1,2,3]"#, #"{"0":"a","2":"c"}"#, #"{"0":"a","3":"d"}"#, #"{"1":1,"01":2}"#, #""text""#, "1e21", "null",
        #"{"n":-0.0,"big":9007199254740993,"u":"é\n\u0001"}"#,
    ])
    func encodingMatchesTheJSONValue(text: String) throws {
        let node = DatabaseNode.build(try JSONReader.parse(Array(text.utf8)), existing: .empty, now: 0)
        for export in [false, true] {
            for pretty in [false, true] {
                #expect(node.encoded(export: export, pretty: pretty) == JSONWriter.encode(node.json(export: export), pretty: pretty))
            }
        }
    }
}
