import EmulatorSupport
import Testing

@testable import EmulatorModel

@Suite("BSON value types")
struct BSONTests {
    static let name = DocumentName(projectID: "p", databaseID: "enterprise-db-native", path: ResourcePath(segments: ["c", "d"]))

    @Test("each BSON map has its kind; near-misses stay maps")
    func kinds() {
        let cases: [(Value, Value.Kind)] = [
            (.minKey, .minKey), (.maxKey, .maxKey), (.objectId("507f191e810c19729de860ea"), .objectId),
            (.int32(1), .number), (.decimal128("1.5"), .number), (.regex("a", options: "i"), .regex),
            (.bsonTimestamp(seconds: 1, increment: 2), .bsonTimestamp), (.bsonBinary(subtype: 1, [9]), .bsonBinary),
            (.map(["__min__": .null, "x": 1]), .map), (.map(["__mini__": .null]), .map), (.map(["__MIN__": .null]), .map),
        ]
        for (value, kind) in cases { #expect(value.kind == kind, "\(value)") }
    }

    @Test("the wire maps are what google-cloud-firestore's bson.py writes")
    func wireMaps() {
        #expect(Value.minKey == .map(["__min__": .null]))
        #expect(Value.maxKey == .map(["__max__": .null]))
        #expect(Value.int32(42) == .map(["__int__": .integer(42)]))
        #expect(Value.decimal128("123.45") == .map(["__decimal128__": "123.45"]))
        #expect(Value.objectId("507f191e810c19729de860ea") == .map(["__oid__": "507f191e810c19729de860ea"]))
        #expect(Value.regex("^hello.*$", options: "i") == .map(["__regex__": .map(["pattern": "^hello.*$", "options": "i"])]))
        #expect(Value.bsonTimestamp(seconds: 1_700_000_000, increment: 1)
            == .map(["__request_timestamp__": .map(["seconds": .integer(1_700_000_000), "increment": 1])]))
        #expect(Value.bsonBinary(subtype: 128, Array("world".utf8)) == .map(["__binary__": .bytes([128] + Array("world".utf8))]))
    }

    @Test("Firestore JSON: BSON values are plain mapValue objects")
    func json() throws {
        let text = JSONWriter.encodeToString(Value.map(["i": .int32(7), "b": .bsonBinary(subtype: 1, [0xFF])]).firestoreJSON)
        #expect(text == #"{"mapValue":{"fields":{"b":{"mapValue":{"fields":{"__binary__":{"bytesValue":"Af8="}}}},"i":{"mapValue":{"fields":{"__int__":{"integerValue":"7"}}}}}}}"#)
        #expect(try Value(firestoreJSON: JSONReader.parse(text)) == .map(["i": .int32(7), "b": .bsonBinary(subtype: 1, [0xFF])]))
    }

    static let decimalCases: [(String, String?)] = [
        ("123.45", "123.45"), ("inf", "Infinity"), ("-inf", "-Infinity"), ("+Infinity", "Infinity"), ("INF", "Infinity"),
        ("NaN", "NaN"), ("nan", "NaN"), ("-NaN", "NaN"), ("sNaN", "NaN"), ("NaN123", "NaN"), ("-0", "-0"), ("1E+6144", "1E+6144"),
        (".5", ".5"), ("5.", "5."), ("1e-6176", "1e-6176"), (String(repeating: "9", count: 34), String(repeating: "9", count: 34)),
        ("", nil), ("abc", nil), ("1e", nil), ("1.2.3", nil), ("--1", nil), ("NaNx", nil), ("1e-6177", nil), ("1e6200", nil),
        (String(repeating: "9", count: 35), nil), (".", nil), ("0x10", nil), (" 1", nil),
    ]

    @Test("Decimal128 text: Python Decimal syntax, canonical special values, Decimal128's range", arguments: decimalCases)
    func decimalText(text: String, canonical: String?) {
        #expect(Decimal128(text)?.canonicalText == canonical)
    }

    @Test("Decimal128 against doubles is exact, not through the nearest double")
    func decimalExact() throws {
        let tenth = try #require(Decimal128("0.1"))
        #expect(Decimal128.compare(tenth, 0.1) < 0)
        // 34 digits each side of the double nearest 0.1 (0.1000000000000000055511151231257827021…).
        #expect(Decimal128.compare(try #require(Decimal128("0.1000000000000000055511151231257827")), 0.1) < 0)
        #expect(Decimal128.compare(try #require(Decimal128("0.1000000000000000055511151231257828")), 0.1) > 0)
        #expect(Decimal128.compare(try #require(Decimal128("0.1250")), 0.125) == 0)
        #expect(Decimal128.compare(try #require(Decimal128("9007199254740993")), 9_007_199_254_740_992.0) > 0)
        #expect(Decimal128.compare(try #require(Decimal128("4.9406564584124654E-324")), Double.leastNonzeroMagnitude) < 0)
        #expect(Decimal128.compare(try #require(Decimal128("4.9406564584124655E-324")), Double.leastNonzeroMagnitude) > 0)
        #expect(Decimal128.compare(try #require(Decimal128("-0")), 0.0) == 0)
        #expect(Decimal128.compare(try #require(Decimal128("NaN")), Double.nan) == 0)
        #expect(Decimal128.compare(try #require(Decimal128("1E+400")), Double.infinity) < 0)
        #expect(try #require(Decimal128("-9223372036854775808")).exactInteger == .min)
        #expect(try #require(Decimal128("9223372036854775808")).exactInteger == nil)
        #expect(try #require(Decimal128("1.50E+1")).exactInteger == 15)
    }

    @Test("a well-formed BSON map passes; decimal special values ask for a rewrite")
    func validates() throws {
        let fields: ValueMap = [
            "min": .minKey, "max": .maxKey, "oid": .objectId("507F191E810C19729DE860EA"), "i": .int32(.min),
            "d": .decimal128("1.5"), "r": .regex("^x", options: "imsux"), "t": .bsonTimestamp(seconds: .max, increment: 0),
            "b": .bsonBinary(subtype: 0, []), "nested": .map(["list": .array([.int32(3)])]),
        ]
        #expect(try DocumentLimits.validate(Self.name, fields: fields) == false)
        let special: ValueMap = ["x": .array([.decimal128("inf")]), "y": .map(["z": .decimal128("nan")])]
        #expect(try DocumentLimits.validate(Self.name, fields: special) == true)
        #expect(BSONValidation.canonicalized(special) == ["x": .array([.decimal128("Infinity")]), "y": .map(["z": .decimal128("NaN")])])
    }

    static let invalid: [(Value, String)] = [
        (.regex("hello", options: "l"), "Invalid regex option 'l' in field \"f\": supported options are 'i', 'm', 's', 'u' and 'x'."),
        (.map(["__regex__": .map(["pattern": "a"])]), "Invalid regex value"),
        (.map(["__regex__": .map(["pattern": "a", "options": "", "x": 1])]), "Invalid regex value"),
        (.map(["__min__": 1]), "Invalid MinKey value"),
        (.map(["__max__": "x"]), "Invalid MaxKey value"),
        (.objectId("507f191e810c19729de860e"), "Invalid ObjectId value"),
        (.objectId("507f191e810c19729de860eg"), "Invalid ObjectId value"),
        (.map(["__oid__": .bytes(Array(repeating: 1, count: 12))]), "Invalid ObjectId value"),
        (.map(["__int__": .integer(Int64(Int32.max) + 1)]), "Invalid Int32 value"),
        (.map(["__int__": .double(1)]), "Invalid Int32 value"),
        (.decimal128("1.2.3"), "Invalid Decimal128 value"),
        (.map(["__decimal128__": .integer(1)]), "Invalid Decimal128 value"),
        (.map(["__request_timestamp__": .map(["seconds": -1, "increment": 0])]), "Invalid BSON timestamp"),
        (.map(["__request_timestamp__": .map(["seconds": 1])]), "Invalid BSON timestamp"),
        (.map(["__request_timestamp__": .map(["seconds": 1, "increment": .integer(1 << 32)])]), "Invalid BSON timestamp"),
        (.map(["__binary__": .bytes([])]), "Invalid BSON binary data"),
        (.map(["__binary__": "AQ=="]), "Invalid BSON binary data"),
    ]

    @Test("malformed BSON maps fail with INVALID_ARGUMENT naming the type and field", arguments: invalid)
    func rejects(value: Value, message: String) {
        do {
            try DocumentLimits.validate(Self.name, fields: ["f": value])
            Issue.record("accepted \(value)")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
    }

    @Test("a BSON key is reserved anywhere but as the only key of a map value")
    func reservedElsewhere() {
        #expect(throws: EmulatorError.self) { try DocumentLimits.validate(Self.name, fields: ["__min__": .null]) }
        #expect(throws: EmulatorError.self) {
            try DocumentLimits.validate(Self.name, fields: ["f": .map(["__int__": 1, "other": 2])])
        }
    }
}
