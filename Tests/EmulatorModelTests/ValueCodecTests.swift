import EmulatorTestSupport
import Testing

@testable import EmulatorModel

@Suite("Binary value codec")
struct ValueCodecTests {
    static let person: ValueMap = [
        "name": "Alice Smith", "age": 30, "city": "Paris", "score": 87.5, "tags": ["admin", "beta"],
    ]

    @Test("a 5-field document is compact and round-trips")
    func compact() throws {
        let bytes = ValueCodec.encode(Self.person)
        #expect(bytes.count == 72, "encoded size \(bytes.count)")  // compact JSON of the same document: 83 bytes
        #expect(try ValueCodec.decode(bytes) == Self.person)
    }

    @Test("random documents round-trip exactly", arguments: [11, 12, 13] as [UInt64])
    func roundTrip(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            var map = ValueMap()
            for name in ["a", "\u{E9}", "e\u{301}", "z"] where Bool.random(using: &rng) {
                map[name] = randomValue(&rng)
            }
            map["t"] = .timestamp(Timestamp(seconds: -62_135_596_800, nanos: 999_999_999))
            map["g"] = .geoPoint(latitude: -0.0, longitude: .nan)
            #expect(try ValueCodec.decode(ValueCodec.encode(map)) == map)
        }
    }

    @Test("every truncation of a valid encoding is rejected")
    func truncated() {
        let bytes = ValueCodec.encode(Self.person)
        for n in 0..<bytes.count {
            #expect(throws: EmulatorError.self) { try ValueCodec.decode(Array(bytes.prefix(n))) }
        }
    }

    @Test(
        "corrupted encodings are rejected with DATA_LOSS",
        arguments: [
            [1, 1, 0x61, 99],  // unknown tag
            [1, 1, 0xFF, 0],  // invalid UTF-8 name
            [2, 1, 0x62, 0, 1, 0x61, 0],  // keys out of order
            [2, 1, 0x61, 0, 1, 0x61, 0],  // duplicate keys
            [1, 1, 0x61, 6, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F],  // string length beyond input
            [1, 1, 0x61, 3, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],  // varint overflow
            [1, 1, 0x61, 5, 0, 0x80, 0x94, 0xEB, 0xDC, 0x03],  // nanos = 1e9
            [0, 0],  // trailing byte
            [0xFF, 0xFF, 0xFF, 0xFF, 0x0F],  // count beyond input
        ] as [[UInt8]])
    func corrupted(bytes: [UInt8]) {
        #expect(throws: EmulatorError.self) { try ValueCodec.decode(bytes) }
        do {
            _ = try ValueCodec.decode(bytes)
        } catch {
            #expect(error.code == .dataLoss)
        }
    }

    @Test("deep nesting in hostile input is rejected, not a stack overflow")
    func deep() {
        var bytes: [UInt8] = [1, 1, 0x61]
        for _ in 0..<10_000 { bytes += [10, 1] }  // arrays of one array…
        bytes.append(0)
        #expect(throws: EmulatorError.self) { try ValueCodec.decode(bytes) }
    }
}
