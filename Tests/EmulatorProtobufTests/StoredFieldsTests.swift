import EmulatorModel
import EmulatorTestSupport
import Testing

@testable import EmulatorProtobuf

/// ``ProtoStoredFields`` writes stored fields as the bytes ``ProtoValue`` writes for the decoded
/// map (every value type, random nesting), and refuses what ``ValueCodec/decode(_:)`` refuses.
@Suite struct StoredFieldsTests {
    static func value(_ g: inout SeededGenerator, depth: Int) -> Value {
        switch g.below(depth > 2 ? 10 : 12) {
        case 0: return .null
        case 1: return .boolean(g.below(2) == 0)
        case 2: return .integer(Int64(bitPattern: g.next()) >> Int64(g.below(64)))
        case 3: return .double(Double(bitPattern: g.next()))
        case 4: return .timestamp(Timestamp(seconds: Int64(g.below(2_000_000_000)) - 1_000_000_000, nanos: Int32(g.below(3)) * 400_000_001))
        case 5: return .string(["", "a", "héllo", "😀 x", String(repeating: "z", count: 200)][g.below(5)])
        case 6: return .bytes((0..<g.below(300)).map { UInt8(truncatingIfNeeded: $0) })
        case 7: return .reference("projects/p/databases/(default)/documents/c/\(g.below(100))")
        case 8: return .geoPoint(latitude: Double(g.below(180)) - 90, longitude: Double(g.below(360)) - 180)
        case 9: return .integer(0)
        case 10: return .array((0..<g.below(4)).map { _ in value(&g, depth: depth + 1) })
        default: return .map(map(&g, depth: depth + 1))
        }
    }

    static func map(_ g: inout SeededGenerator, depth: Int) -> ValueMap {
        var fields: [ValueMap.Field] = []
        for i in 0..<g.below(6) { fields.append(ValueMap.Field("f\(i)\(["", "é", "_long_name_"][g.below(3)])", value(&g, depth: depth))) }
        return ValueMap(unsortedFields: fields)
    }

    @Test(arguments: 1...200) func sameBytesAsTheDecodedMap(seed: Int) throws {
        var g = SeededGenerator(seed: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15)
        let fields = Self.map(&g, depth: 0)
        var expected = ProtoWriter()
        expected.string(1, "before")
        ProtoValue.writeFields(fields, field: 2, to: &expected)
        var written = ProtoWriter()
        written.string(1, "before")
        try ProtoStoredFields.write(ValueCodec.encode(fields), field: 2, to: &written)
        #expect(written.bytes == expected.bytes)
    }

    @Test(arguments: [
        [UInt8]([0x01]),  // one field, then nothing
        [0x01, 0x01, 0x61, 0x0C],  // unknown tag
        [0x01, 0x01, 0xFF, 0x00],  // a name that is not UTF-8
        [0x01, 0x01, 0x61, 0x06, 0x05, 0x61],  // a string longer than the input
        [0x01, 0x01, 0x61, 0x05, 0x00, 0x80, 0x94, 0xEB, 0xDC, 0x03],  // nanos of 10^9
        [0x00, 0x00],  // trailing bytes
    ]) func refusesCorruptBytes(bytes: [UInt8]) {
        #expect(throws: (any Error).self) { _ = try ValueCodec.decode(bytes) }
        var w = ProtoWriter()
        w.string(1, "kept")
        let before = w.bytes
        #expect(throws: EmulatorError.self) { try ProtoStoredFields.write(bytes, field: 2, to: &w) }
        #expect(w.bytes == before)
    }

    @Test func refusesNestingDeeperThanDecodeAllows() {
        var value = Value.null
        for _ in 0...ValueCodec.maxDecodeDepth { value = .array([value]) }
        let bytes = ValueCodec.encode(ValueMap(unsortedFields: [ValueMap.Field("a", value)]))
        var w = ProtoWriter()
        #expect(throws: EmulatorError.self) { try ProtoStoredFields.write(bytes, field: 2, to: &w) }
    }
}
