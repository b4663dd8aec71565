import Testing

@testable import EmulatorModel

@Suite("Field paths and nested fields")
struct FieldPathTests {
    static let parseCases: [(String, [String], String)] = [
        ("a", ["a"], "a"),
        ("a.b.c", ["a", "b", "c"], "a.b.c"),
        ("`a.b`.c", ["a.b", "c"], "`a.b`.c"),
        ("`1a`.ab", ["1a", "ab"], "`1a`.ab"),
        ("1a.ab", ["1a", "ab"], "`1a`.ab"),
        ("`*`.`\\``", ["*", "`"], "`*`.`\\``"),
        ("`bak\\\\slash`", ["bak\\slash"], "`bak\\\\slash`"),
        ("__name__", ["__name__"], "__name__"),
        ("b7992822-eacb", ["b7992822-eacb"], "`b7992822-eacb`"),
        ("_x9", ["_x9"], "_x9"),
    ]

    @Test("parses the server format and prints the canonical form", arguments: parseCases)
    func parse(text: String, segments: [String], canonical: String) throws {
        let p = try FieldPath(parsing: text)
        #expect(p.segments == segments)
        #expect(p.canonicalString == canonical)
        #expect(try FieldPath(parsing: canonical) == p)
    }

    @Test("malformed paths are rejected", arguments: ["", ".a", "a.", "a..b", "`a", "a\\", "``", String(repeating: "a", count: 1501)])
    func malformed(text: String) {
        #expect(throws: EmulatorError.self) { try FieldPath(parsing: text) }
    }

    @Test("get, set and delete nested fields")
    func nested() throws {
        var doc: ValueMap = ["a": ["b": 1], "s": "scalar"]
        doc.setValue(2, at: try FieldPath(parsing: "a.c"))
        doc.setValue(3, at: try FieldPath(parsing: "s.x"))  // non-map parent is replaced
        doc.setValue(4, at: try FieldPath(parsing: "n.m.o"))  // intermediate maps created
        #expect(doc == ["a": ["b": 1, "c": 2], "s": ["x": 3], "n": ["m": ["o": 4]]])
        #expect(doc.value(at: try FieldPath(parsing: "a.b")) == 1)
        #expect(doc.value(at: try FieldPath(parsing: "a.b.c")) == nil)
        #expect(doc.removeValue(at: try FieldPath(parsing: "n.m.o")) == 4)
        #expect(doc.removeValue(at: try FieldPath(parsing: "zz.y")) == nil)
        #expect(doc["n"] == ["m": [:]])
        #expect(doc.leafPaths.map(\.canonicalString) == ["a.b", "a.c", "n.m", "s.x"])
    }

    @Test("ValueMap keeps keys unique and sorted by bytes")
    func sortedKeys() {
        var m = ValueMap()
        for k in ["b", "a", "e\u{301}", "\u{E9}", "a", ""] { m[k] = .string(k) }
        #expect(m.map { Array($0.name.utf8) } == [[], [0x61], [0x62], [0x65, 0xCC, 0x81], [0xC3, 0xA9]])
        m["b"] = nil
        #expect(m.count == 4 && m["b"] == nil)
        #expect(ValueMap(sortedFields: [.init("b", 1), .init("a", 2)]) == nil)
    }
}
