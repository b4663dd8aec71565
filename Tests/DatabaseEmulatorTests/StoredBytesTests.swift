import DatabaseEmulator
import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import EmulatorTestSupport
import Testing

/// `DatabaseStoredBytes` and the `.children` write: a bulk PATCH stored straight from its JSON
/// leaves exactly the entries, changes and data that building nodes and storing them leaves.
@Suite struct StoredBytesTests {
    let ns: NamespaceID = "database/stored"

    func parse(_ text: String) -> JSONValue { (try? JSONReader.parse(Array(text.utf8))) ?? .null }

    @Test(arguments: [
        #"{"age":36,"city":"Lima","name":"Ada","score":12}"#, #"{"b":1,"a":2,"10":3,"2":4,"-1":5,"é":6,"z":7}"#,
        #"{"a":{"y":true,"x":false},"n":-1.5,"s":""}"#, #"{"x":9223372036854775807,"y":-9223372036854775808}"#,
    ])
    func objectsEncodeAsTheirPackedNode(text: String) throws {
        let json = parse(text)
        let node = DatabaseNode.build(json, existing: .empty, now: 0)
        #expect(DatabaseStoredBytes.encode(json, depth: 1) == DatabasePackedCodec.encode(node))
    }

    @Test(arguments: [
        "null", "[]", "[1]", "{}", #"{"a":null}"#, #"{"a":{}}"#, #"{"a":[1]}"#, #"{".sv":"timestamp"}"#,
        #"{"a":{".sv":"timestamp"}}"#, #"{".value":1}"#, #"{"a":1,".priority":2}"#, #"{"a$":1}"#, #"{"a":{"b":{"c":1}}}"#,
    ])
    func otherValuesTakeTheGeneralWay(text: String) {
        #expect(DatabaseStoredBytes.encode(parse(text), depth: 1) == nil)
    }

    /// At the packed layout's limits (leaves, bytes; `PackedLayoutTests` checks the layout's side)
    /// the bytes from JSON are made exactly when the node packs; and past the path limits never.
    @Test func limitsTakeTheGeneralWay() {
        let leaves = (0..<DatabasePackedCodec.maxLeaves).map { #""k\#($0)":\#($0)"# }
        let long = String(repeating: "x", count: DatabasePackedCodec.maxBytes)
        var seen: Set<Bool> = []
        for text in [
            "{" + leaves.joined(separator: ",") + "}", "{" + (leaves + [#""z":0"#]).joined(separator: ",") + "}",
            #"{"s":"\#(long)"}"#, #"{"s":"\#(long.dropLast(64))"}"#,
        ] {
            let json = parse(text)
            let packs = DatabasePackedCodec.encode(DatabaseNode.build(json, existing: .empty, now: 0)) != nil
            seen.insert(packs)
            #expect((DatabaseStoredBytes.encode(json, depth: 1) != nil) == packs, "\(text.prefix(40))…")
        }
        #expect(seen == [true, false], "the texts sit on both sides of the limits")
        #expect(DatabaseStoredBytes.encode(parse(#"{"a":{"b":1}}"#), depth: DatabasePath.maxDepth - 2) != nil)
        #expect(DatabaseStoredBytes.encode(parse(#"{"a":{"b":1}}"#), depth: DatabasePath.maxDepth - 1) == nil)
        #expect(DatabaseStoredBytes.encode(parse(#"{"k":1}"#), depth: 1) != nil)
        let longKey = String(repeating: "k", count: DatabasePath.maxKeyBytes + 1)
        #expect(DatabaseStoredBytes.encode(parse(#"{"\#(longKey)":1}"#), depth: 1) == nil)
    }

    static let keys = ["a", "b", "c", "2", "10", "x", "é"]

    func key(_ g: inout SeededGenerator) -> String { Self.keys[g.below(Self.keys.count)] }

    func json(_ g: inout SeededGenerator, depth: Int = 0) -> String {
        switch g.below(depth >= 3 ? 6 : 9) {
        case 0: return g.below(4) == 0 ? "null" : "\(g.below(5))"
        case 1: return ["1.5", "-0.0", "1e300", "3"][g.below(4)]
        case 2: return [#""s""#, #""""#, #""long \#(String(repeating: "z", count: 700))""#][g.below(3)]
        case 3: return g.below(2) == 0 ? "true" : "false"
        case 4: return g.below(3) == 0 ? "[1,2]" : #"{".sv":"timestamp"}"#
        default:
            var used = Set<String>()
            var members: [String] = []
            for _ in 0..<(g.below(5)) {
                let k = key(&g)
                if used.insert(k).inserted { members.append(#""\#(k)":\#(json(&g, depth: depth + 1))"#) }
            }
            if g.below(8) == 0 { members.append(#"".priority":1"#) }
            return "{" + members.joined(separator: ",") + "}"
        }
    }

    func read(_ engine: StorageEngine, _ path: DatabasePath) throws -> DatabaseNode { try engine.databaseNode(ns, at: path) }

    @Test(arguments: 1...30)
    func childrenWriteStoresWhatTheUpdateStores(seed: Int) throws {
        var g = SeededGenerator(seed: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15)
        let direct = StorageEngine(keepsHistory: { _ in false })
        let general = StorageEngine(keepsHistory: { _ in false })
        var fast = 0
        for step in 0..<60 {
            let base = DatabasePath(keys: (0..<g.below(3)).map { _ in key(&g) })
            var used = Set<String>()
            var members: [JSONMember] = []
            for _ in 0..<(1 + g.below(4)) {
                let k = key(&g)
                if used.insert(k).inserted { members.append(JSONMember(k, parse(json(&g)))) }
            }
            let updates = members.map { (path: DatabasePath(keys: [$0.name]), node: DatabaseNode.build($0.value, existing: .empty, now: 7)) }
            let update = DatabaseWrite.update(base: base, updates)
            let stored = members.map { DatabaseStoredBytes.encode($0.value, depth: base.count + 1) }
            var write = update
            if stored.allSatisfy({ $0 != nil }) {
                write = .children(base: base, keys: members.map(\.name), stored: stored.compactMap { $0 })
                fast += 1
            }
            let a = direct.commit { (txn: inout CommitBuilder) in DatabaseStorageMapping.apply(write, to: &txn, ns) }
            let b = general.commit { (txn: inout CommitBuilder) in DatabaseStorageMapping.apply(update, to: &txn, ns) }
            // The engines' clocks differ: keys and values only.
            func entries(_ changes: [StorageChange]) -> [String] {
                changes.map { "\($0.key) \($0.old?.value ?? []) -> \($0.new?.value ?? [])" }
            }
            #expect(entries(a.changes) == entries(b.changes), "seed \(seed) step \(step): \(members)")
            #expect(a.cleared.map(\.key) == b.cleared.map(\.key), "seed \(seed) step \(step)")
            #expect(
                DatabaseStorageMapping.changedLocations(a.changes, write: write)
                    == DatabaseStorageMapping.changedLocations(b.changes, write: update), "seed \(seed) step \(step)")
            #expect(write.locations == update.locations && write.changes.map(\.1) == update.changes.map(\.1))
            #expect(try read(direct, .root) == read(general, .root), "seed \(seed) step \(step)")
        }
        #expect(fast > 5, "seed \(seed): the direct way was taken \(fast) times")
    }
}
