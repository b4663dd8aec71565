import Testing
@testable import EmulatorSupport

@Suite struct JSONWriterTests {
    static let compact: [(JSONValue, String)] = [
        (.null, "null"),
        (.bool(true), "true"),
        (.bool(false), "false"),
        (.int(0), "0"),
        (.int(Int64.min), "-9223372036854775808"),
        (.int(Int64.max), "9223372036854775807"),
        (.double(1.0), "1"),
        (.double(-0.0), "0"),
        (.double(2.5), "2.5"),
        (.double(.nan), "null"),
        (.double(.infinity), "null"),
        (.double(-.infinity), "null"),
        (.string(""), "\"\""),
        (.string("a\"b\\c/d"), "\"a\\\"b\\\\c/d\""),
        (.string("\u{8}\u{C}\n\r\t\u{0}\u{1F}\u{7F}"), "\"\\b\\f\\n\\r\\t\\u0000\\u001f\u{7F}\""),
        (.string("é😀\u{2028}"), "\"é😀\u{2028}\""),
        (.array([]), "[]"),
        (.object([]), "{}"),
        (.array([.int(1), .null, .array([])]), "[1,null,[]]"),
        (.object([JSONMember("b", .int(1)), JSONMember("a", .object([JSONMember("x", .string("y"))]))]), "{\"b\":1,\"a\":{\"x\":\"y\"}}"),
    ]

    @Test(arguments: compact)
    func writesCompact(value: JSONValue, expected: String) {
        #expect(JSONWriter.encodeToString(value) == expected)
    }

    @Test func prettyMatchesJSONStringifyWithTwoSpaces() {
        let value: JSONValue = .object([
            JSONMember("a", .int(1)),
            JSONMember("b", .array([.int(1), .string("x"), .object([])])),
            JSONMember("c", .object([JSONMember("d", .null), JSONMember("e", .array([]))])),
            JSONMember("f", .string("é\n\"\u{1}")),
        ])
        let expected = """
            {
              "a": 1,
              "b": [
                1,
                "x",
                {}
              ],
              "c": {
                "d": null,
                "e": []
              },
              "f": "é\\n\\"\\u0001"
            }
            """
        #expect(JSONWriter.encodeToString(value, pretty: true) == expected)
        let nested: JSONValue = .array([.array([.int(1), .array([.int(2)])]), .object([])])
        #expect(JSONWriter.encodeToString(nested, pretty: true) == "[\n  [\n    1,\n    [\n      2\n    ]\n  ],\n  {}\n]")
        #expect(JSONWriter.encodeToString(.int(3), pretty: true) == "3")
    }

    @Test("a plain key writes what appendKey writes", arguments: [false, true])
    func plainKeyAgreesWithAppendKey(_ pretty: Bool) {
        var general = JSONWriter(pretty: pretty)
        var plain = JSONWriter(pretty: pretty)
        general.beginObject()
        plain.beginObject()
        general.appendKey("stringValue")
        plain.appendPlainKey("stringValue")
        general.appendInt(1)
        plain.appendInt(1)
        general.appendKey("fields")
        plain.appendPlainKey("fields")
        general.beginObject()
        plain.beginObject()
        general.appendKey("a")
        plain.appendPlainKey("a")
        general.appendNull()
        plain.appendNull()
        general.endObject()
        plain.endObject()
        general.endObject()
        plain.endObject()
        #expect(plain.bytes == general.bytes)
        #expect(String(decoding: plain.bytes, as: UTF8.self) == (pretty ? "{\n  \"stringValue\": 1,\n  \"fields\": {\n    \"a\": null\n  }\n}" : #"{"stringValue":1,"fields":{"a":null}}"#))
    }

    @Test func streamingAppendersInsertSeparators() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.appendKey("name")
        writer.appendString("Ada")
        writer.appendKey("tags")
        writer.beginArray()
        writer.appendInt(1)
        writer.appendDouble(0.5)
        writer.appendBool(false)
        writer.appendNull()
        writer.appendRawJSON(Array("{\"k\":[]}".utf8))
        writer.endArray()
        writer.appendKey("empty")
        writer.beginObject()
        writer.endObject()
        writer.endObject()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "{\"name\":\"Ada\",\"tags\":[1,0.5,false,null,{\"k\":[]}],\"empty\":{}}")
    }

    static let roundTrips: [String] = [
        "{\"a\":[1,-2,3.25,\"x\\ny\",true,false,null],\"b\":{\"c\":{}},\"é\":\"😀\"}",
        "[9223372036854775807,-9223372036854775808,1e+21,1e-7,0.1]",
        "\"\\u0000\\u001f\\\\\\\"\"",
    ]

    @Test(arguments: roundTrips)
    func roundTripsThroughReader(text: String) throws {
        let value = try JSONReader.parse(text)
        let written = JSONWriter.encode(value)
        #expect(try JSONReader.parse(written) == value)
        #expect(try JSONReader.parse(JSONWriter.encode(value, pretty: true)) == value)
        #expect(String(decoding: written, as: UTF8.self) == text)
    }

    /// Expected strings are what node's `String(x)` prints.
    static let doubles: [(Double, String)] = [
        (1.0, "1"),
        (-0.0, "0"),
        (0.0, "0"),
        (-1.0, "-1"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1.2345678901234568e20, "123456789012345680000"),
        (1e-7, "1e-7"),
        (0.000001, "0.000001"),
        (0.00001234, "0.00001234"),
        (0.1 + 0.2, "0.30000000000000004"),
        (123.456, "123.456"),
        (100, "100"),
        (-1.5e-10, "-1.5e-10"),
        (1.5e300, "1.5e+300"),
        (Double.leastNonzeroMagnitude, "5e-324"),
        (Double.greatestFiniteMagnitude, "1.7976931348623157e+308"),
        (9_007_199_254_740_992, "9007199254740992"),
        (9_007_199_254_740_994, "9007199254740994"),
        (4.35, "4.35"),
        (0.5, "0.5"),
        (-2.5e-7, "-2.5e-7"),
        (1.2345e21, "1.2345e+21"),
        (.nan, "NaN"),
        (.infinity, "Infinity"),
        (-.infinity, "-Infinity"),
    ]

    @Test(arguments: doubles)
    func formatsDoubleLikeJavaScript(value: Double, expected: String) {
        #expect(JSONWriter.formatDouble(value) == expected)
    }

    /// Special characters at every offset of strings up to 20 bytes long, across the
    /// eight-byte scanning boundaries of reader and writer.
    @Test(arguments: ["\"", "\\", "\n", "\u{1}", "\u{1F}", "é", "😀", " "])
    func escapesAtEveryOffsetRoundTrip(special: String) throws {
        for length in 0...20 {
            for position in 0...length {
                let text = String(repeating: "a", count: position) + special + String(repeating: "b", count: length - position)
                let written = JSONWriter.encodeToString(.string(text))
                var expected = "\""
                for scalar in text.unicodeScalars {
                    switch scalar {
                    case "\"": expected += "\\\""
                    case "\\": expected += "\\\\"
                    case "\n": expected += "\\n"
                    case "\u{1}": expected += "\\u0001"
                    case "\u{1F}": expected += "\\u001f"
                    default: expected.unicodeScalars.append(scalar)
                    }
                }
                expected += "\""
                #expect(written == expected)
                #expect(try JSONReader.parse(written) == .string(text))
            }
        }
    }
}
