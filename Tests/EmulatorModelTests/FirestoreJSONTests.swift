import EmulatorSupport
import EmulatorTestSupport
import Testing

@testable import EmulatorModel

@Suite("Firestore proto3 JSON mapping")
struct FirestoreJSONTests {
    func parse(_ text: String) throws -> Value {
        try Value(firestoreJSON: try JSONReader.parse(text))
    }

    func write(_ value: Value) -> String {
        JSONWriter.encodeToString(value.firestoreJSON)
    }

    static let decodeCases: [(String, Value)] = [
        (#"{"nullValue":null}"#, .null),
        (#"{"nullValue":"NULL_VALUE"}"#, .null),
        (#"{"null_value":0}"#, .null),
        (#"{"booleanValue":false}"#, false),
        (#"{"integerValue":"42"}"#, 42),
        (#"{"integerValue":42}"#, 42),
        (#"{"integer_value":"-9223372036854775808"}"#, .integer(.min)),
        (#"{"doubleValue":3.5}"#, 3.5),
        (#"{"doubleValue":3}"#, .double(3)),
        (#"{"doubleValue":"Infinity"}"#, .double(.infinity)),
        (#"{"doubleValue":"-Infinity"}"#, .double(-.infinity)),
        (#"{"doubleValue":"-0"}"#, .double(-0.0)),
        (#"{"timestampValue":"2024-01-02T03:04:05.123456Z"}"#, .timestamp(Timestamp(seconds: 1_704_164_645, nanos: 123_456_000))),
        (#"{"stringValue":"é"}"#, "\u{E9}"),
        (#"{"bytesValue":"3q2+7w=="}"#, .bytes([0xDE, 0xAD, 0xBE, 0xEF])),
        (#"{"bytes_value":"3q2-7w"}"#, .bytes([0xDE, 0xAD, 0xBE, 0xEF])),
        (#"{"referenceValue":"projects/p/databases/(default)/documents/c/d"}"#, .reference("projects/p/databases/(default)/documents/c/d")),
        (#"{"geoPointValue":{"latitude":45.5,"longitude":-90}}"#, .geoPoint(latitude: 45.5, longitude: -90)),
        (#"{"geoPointValue":{}}"#, .geoPoint(latitude: 0, longitude: 0)),
        (#"{"arrayValue":{}}"#, []),
        (#"{"arrayValue":{"values":[{"integerValue":"1"},{"stringValue":"x"}]}}"#, [1, "x"]),
        (#"{"mapValue":{}}"#, [:]),
        (#"{"map_value":{"fields":{"b":{"integerValue":"2"},"a":{"nullValue":null}}}}"#, ["a": .null, "b": 2]),
    ]

    @Test("decodes every value kind in both spellings", arguments: decodeCases)
    func decode(json: String, expected: Value) throws {
        #expect(try parse(json) == expected)
    }

    @Test("NaN decodes to NaN")
    func nan() throws {
        #expect(try parse(#"{"doubleValue":"NaN"}"#).isNaN)
    }

    static let encodeCases: [(Value, String)] = [
        (.null, #"{"nullValue":null}"#),
        (false, #"{"booleanValue":false}"#),
        (.integer(0), #"{"integerValue":"0"}"#),
        (.integer(.max), #"{"integerValue":"9223372036854775807"}"#),
        (.integer(.min), #"{"integerValue":"-9223372036854775808"}"#),
        (.integer(-7), #"{"integerValue":"-7"}"#),
        (.double(.nan), #"{"doubleValue":"NaN"}"#),
        (.double(-.infinity), #"{"doubleValue":"-Infinity"}"#),
        (.double(2.5), #"{"doubleValue":2.5}"#),
        (.timestamp(Timestamp(seconds: 1_704_164_645, nanos: 120_000_000)), #"{"timestampValue":"2024-01-02T03:04:05.120Z"}"#),
        ("", #"{"stringValue":""}"#),
        (.bytes([0xDE, 0xAD, 0xBE, 0xEF]), #"{"bytesValue":"3q2+7w=="}"#),
        ([], #"{"arrayValue":{}}"#),
        ([:], #"{"mapValue":{}}"#),
        (["b": 1, "a": [true]], #"{"mapValue":{"fields":{"a":{"arrayValue":{"values":[{"booleanValue":true}]}},"b":{"integerValue":"1"}}}}"#),
    ]

    @Test("encodes as proto3 JSON (int64 as strings, specials as strings, keys sorted)", arguments: encodeCases)
    func encode(value: Value, expected: String) {
        #expect(write(value) == expected)
        var writer = JSONWriter()
        value.appendFirestoreJSON(to: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
    }

    @Test("-0.0 keeps its sign through JSON")
    func negativeZero() throws {
        #expect(write(.double(-0.0)) == #"{"doubleValue":"-0"}"#)
        let back = try parse(write(.double(-0.0)))
        #expect(back == .double(-0.0))
    }

    @Test("random values round-trip through JSON text", arguments: [21, 22] as [UInt64])
    func roundTrip(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<300 {
            let v = randomValue(&rng)
            let back = try parse(write(v))
            #expect(back == v, "\(v) came back as \(back)")
            var writer = JSONWriter()
            v.appendFirestoreJSON(to: &writer)
            #expect(writer.bytes == Array(write(v).utf8))
        }
    }

    static let errorCases: [String] = [
        #"{}"#,
        #"{"integerValue":"1","stringValue":"x"}"#,
        #"{"integerValue":"9223372036854775808"}"#,
        #"{"integerValue":"1.5"}"#,
        #"{"integerValue":1.5}"#,
        #"{"booleanValue":"true"}"#,
        #"{"doubleValue":"nan"}"#,
        #"{"timestampValue":"yesterday"}"#,
        #"{"bytesValue":"***"}"#,
        #"{"referenceValue":"c/d"}"#,
        #"{"referenceValue":"projects/p/databases/d/documents/c"}"#,
        #"{"geoPointValue":{"latitude":91,"longitude":0}}"#,
        #"{"arrayValue":{"values":[{"bogus":1}]}}"#,
        #"{"mapValue":{"fields":[]}}"#,
        #"{"stringValue":null}"#,
        #"{"fooValue":1}"#,
        #"[]"#,
    ]

    @Test("malformed values are INVALID_ARGUMENT", arguments: errorCases)
    func errors(json: String) throws {
        let parsed = try JSONReader.parse(json)
        #expect(throws: EmulatorError.self) { try Value(firestoreJSON: parsed) }
        do { _ = try Value(firestoreJSON: parsed) } catch { #expect(error.code == .invalidArgument) }
    }

    @Test("fields objects: map keys come back sorted by UTF-8 bytes")
    func fields() throws {
        let json = try JSONReader.parse(#"{"e\u0301":{"integerValue":"1"},"\u00e9":{"integerValue":"2"},"a":{"integerValue":"3"}}"#)
        let map = try ValueMap(firestoreFields: json)
        #expect(map.count == 3)
        #expect(map.map(\.name).map { Array($0.utf8) } == [[0x61], [0x65, 0xCC, 0x81], [0xC3, 0xA9]])
        #expect(map["\u{E9}"] == 2 && map["e\u{301}"] == 1)
    }
}
