import DatabaseEmulator
import EmulatorModel
import EmulatorSupport
import Testing

/// `DatabaseStoredBytes.children(ofBody:depth:)`: reading a bulk PATCH body straight from its
/// bytes gives what parsing it and encoding each member gives, or nil (the general way).
@Suite struct StoredBodyTests {
    /// The way the bytes reader stands in for: parse (duplicate names refused), then encode each
    /// member of a non-empty object whose names are all valid keys.
    func reference(_ body: [UInt8], depth: Int) -> (keys: [String], stored: [[UInt8]])? {
        guard depth <= DatabasePath.maxDepth, case .object(let members)? = try? JSONReader.parse(body, rejectingDuplicateKeys: true),
            !members.isEmpty
        else { return nil }
        var stored: [[UInt8]] = []
        for member in members {
            guard !member.name.isEmpty, member.name.utf8.count <= DatabasePath.maxKeyBytes,
                !member.name.utf8.contains(where: { [0x2E, 0x24, 0x23, 0x5B, 0x5D, 0x2F, 0x7F].contains($0) || $0 < 0x20 }),
                let bytes = DatabaseStoredBytes.encode(member.value, depth: depth)
            else { return nil }
            stored.append(bytes)
        }
        return (members.map(\.name), stored)
    }

    func check(_ text: String, depth: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let body = Array(text.utf8)
        guard let read = DatabaseStoredBytes.children(ofBody: body, depth: depth) else { return false }
        let expected = reference(body, depth: depth)
        #expect(expected != nil, "read a body the general way refuses: \(text)", sourceLocation: sourceLocation)
        #expect(read.keys == expected?.keys, "\(text)", sourceLocation: sourceLocation)
        #expect(read.stored == expected?.stored, "\(text)", sourceLocation: sourceLocation)
        return true
    }

    @Test func bulkBodiesAreReadFromTheirBytes() {
        let children = (0..<500).map { i in #""d\#(i)":{"city":"c\#(i % 10)","score":\#((i * 7919) % 100_000),"name":"user\#(i)","age":\#(i % 90)}"# }
        #expect(check("{" + children.joined(separator: ",") + "}"))
        #expect(check(#" { "a" : 1 , "b":-2.5e3, "c" : "x y", "d": true, "e" : { "z" : false, "10": {"k": 0}, "2": -0.0 } } "#))
        #expect(check(#"{"x":9223372036854775807,"y":-9223372036854775808,"z":9223372036854775808,"w":123456789012345678}"#))
        #expect(check(#"{"s":"héllo €","t":"\#u{1F600}"}"#))
        #expect(check(#"{"a":{"b":1}}"#, depth: DatabasePath.maxDepth - 2))
        #expect(check(#"{"a":1}"#, depth: DatabasePath.maxDepth))
        #expect(check(#"{"a":-0,"b":{"c":{"d":1}}}"#))
    }

    @Test(arguments: [
        "", "{}", "null", "[]", #"{"a":null}"#, #"{"a":[1]}"#, #"{"a":{}}"#, #"{"a":1,"a":2}"#, #"{"a":{"k":1,"k":2}}"#,
        #"{"a":{"b":{"c":{"d":1}}}}"#, #"{"a/b":1}"#, #"{"":1}"#, #"{".priority":1}"#, #"{"a":{".sv":"timestamp"}}"#,
        #"{"a":"x\"y"}"#, #"{"\u0061":1}"#, #"{"é":1}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":tru}"#,
        #"{"a":truex}"#, #"{"a":1}x"#, #"{"a":1"#, #"{"a":1,}"#, "\u{FEFF}{\"a\":1}", #"{"a":1e400}"#, #"{"a":--1}"#,
        #"{"a":+1}"#, "{\"a\":\"\u{1}\"}", "{\"a\":1}\u{0}",
    ])
    func otherBodiesTakeTheGeneralWay(text: String) {
        // Bodies the general way answers (with an error or otherwise) that the reader leaves to it.
        #expect(!check(text))
    }

    @Test func limitsTakeTheGeneralWay() {
        #expect(!check(#"{"a":{"b":1}}"#, depth: DatabasePath.maxDepth - 1))
        #expect(!check(#"{"a":1}"#, depth: DatabasePath.maxDepth + 1))
        let leaves = (0..<DatabasePackedCodec.maxLeaves).map { #""k\#($0)":\#($0)"# }
        #expect(check(#"{"a":{"# + leaves.joined(separator: ",") + "}}"))
        #expect(!check(#"{"a":{"# + (leaves + [#""z":0"#]).joined(separator: ",") + "}}"))
        #expect(!check(#"{"a":{"s":""# + String(repeating: "x", count: DatabasePackedCodec.maxBytes) + #""}}"#))
        #expect(!check(#"{""# + String(repeating: "k", count: DatabasePath.maxKeyBytes + 1) + #"":1}"#))
        #expect(check(#"{""# + String(repeating: "k", count: DatabasePath.maxKeyBytes) + #"":1}"#))
    }

    /// A small deterministic generator (xorshift), so a failure names its seed.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
    }

    static let keys = ["a", "b", "2", "10", "-1", "x y", "é", "a.b", "k\\u0041", "", "[", "01", "z"]
    static let leaves = [
        "0", "-0", "7", "-12", "007", "1.5", "-2.25e-3", "1E2", "99999999999999999999", "1.", "true", "false", "null",
        #""s""#, #""""#, #""a\nb""#, #""ü""#, "[1]", "tru", #"{".sv":"timestamp"}"#,
    ]

    func value(_ g: inout Generator, height: Int) -> String {
        if height < 3 && g.next(3) == 0 { return object(&g, height: height + 1) }
        return Self.leaves[g.next(Self.leaves.count)]
    }

    func space(_ g: inout Generator) -> String { [" ", "", "", "", "\n\t", "\r\n "][g.next(6)] }

    func object(_ g: inout Generator, height: Int) -> String {
        let members = (0..<g.next(5)).map { _ in
            #""\#(Self.keys[g.next(Self.keys.count)])""# + space(&g) + ":" + space(&g) + value(&g, height: height)
        }
        return "{" + space(&g) + members.joined(separator: space(&g) + "," + space(&g)) + space(&g) + "}"
    }

    @Test(arguments: 1...20)
    func readingAgreesWithParsing(seed: Int) {
        var g = Generator(state: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1)
        var read = 0
        for _ in 0..<300 {
            var text = object(&g, height: 0)
            if g.next(10) == 0 { text.removeLast(g.next(min(3, text.utf8.count)) + 1) }
            if check(text, depth: 1 + g.next(DatabasePath.maxDepth + 1)) { read += 1 }
        }
        #expect(read >= 5, "seed \(seed): only \(read) bodies read from their bytes")
    }
}
