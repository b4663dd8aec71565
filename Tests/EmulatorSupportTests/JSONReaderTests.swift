import Testing
@testable import EmulatorSupport

@Suite struct JSONReaderTests {
    static let validDocuments: [(String, JSONValue)] = [
        ("null", .null),
        ("true", .bool(true)),
        ("false", .bool(false)),
        (" \t\r\n 42 \n", .int(42)),
        ("\u{FEFF}{}", .object([])),
        ("[]", .array([])),
        ("[ ]", .array([])),
        ("{\"a\":1,\"b\":[true,null]}", .object([JSONMember("a", .int(1)), JSONMember("b", .array([.bool(true), .null]))])),
        ("{\"b\":1,\"a\":2}", .object([JSONMember("b", .int(1)), JSONMember("a", .int(2))])),
        ("{\"a\":1,\"a\":2}", .object([JSONMember("a", .int(1)), JSONMember("a", .int(2))])),
        ("[[[]]]", .array([.array([.array([])])])),
        ("\"\"", .string("")),
        ("\"héllo\"", .string("héllo")),
        ("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"", .string("\" \\ / \u{8} \u{C} \n \r \t")),
        ("\"\\u0041\\u00e9\\u20AC\"", .string("Aé€")),
        ("\"\\ud83d\\ude00\"", .string("😀")),
        ("\"😀 raw\"", .string("😀 raw")),
        ("\"\\u0000\"", .string("\u{0}")),
        ("\"a\\nb\"", .string("a\nb")),
        ("\"\u{7F}\"", .string("\u{7F}")),
    ]

    @Test(arguments: validDocuments)
    func parsesValidDocument(text: String, expected: JSONValue) throws {
        #expect(try JSONReader.parse(text) == expected)
        #expect(try JSONReader.parse(Array(text.utf8)) == expected)
    }

    static let numbers: [(String, JSONValue)] = [
        ("0", .int(0)),
        ("-0", .double(-0.0)),
        ("-0.0", .double(-0.0)),
        ("0.0", .double(0)),
        ("1", .int(1)),
        ("-1", .int(-1)),
        ("9223372036854775807", .int(Int64.max)),
        ("-9223372036854775808", .int(Int64.min)),
        ("9223372036854775808", .double(9_223_372_036_854_775_808)),
        ("-9223372036854775809", .double(-9_223_372_036_854_775_808)),
        ("18446744073709551616", .double(18_446_744_073_709_551_616)),
        ("123456789012345678901234567890", .double(1.2345678901234568e29)),
        ("1.5", .double(1.5)),
        ("1e2", .double(100)),
        ("1E2", .double(100)),
        ("1e+2", .double(100)),
        ("1.0", .double(1)),
        ("2.5e-3", .double(0.0025)),
        ("0.1", .double(0.1)),
        ("0.30000000000000004", .double(0.30000000000000004)),
        ("1.7976931348623157e308", .double(1.7976931348623157e308)),
        ("5e-324", .double(.leastNonzeroMagnitude)),
        ("1e-400", .double(0)),
        ("-1e-400", .double(-0.0)),
        ("3.141592653589793238462643383279", .double(3.141592653589793)),
        ("0.000000000000000000000000000001", .double(1e-30)),
        ("123456789.123456789e5", .double(12_345_678_912_345.6789)),
        ("9007199254740993.0", .double(9_007_199_254_740_992)),
    ]

    @Test(arguments: numbers)
    func parsesNumber(text: String, expected: JSONValue) throws {
        let value = try JSONReader.parse(text)
        #expect(value == expected)
        if case .double(let parsed) = value, case .double(let wanted) = expected {
            #expect(parsed.sign == wanted.sign)
            #expect(parsed.bitPattern == wanted.bitPattern)
        }
    }

    /// Invalid input and where the error is reported (1-based line, byte column).
    static let invalidDocuments: [(String, Int, Int)] = [
        ("", 1, 1),
        ("   ", 1, 4),
        ("nul", 1, 1),
        ("True", 1, 1),
        ("NaN", 1, 1),
        ("Infinity", 1, 1),
        ("-Infinity", 1, 2),
        ("01", 1, 1),
        ("-01", 1, 1),
        ("1.", 1, 3),
        (".5", 1, 1),
        ("1e", 1, 3),
        ("1e+", 1, 4),
        ("+1", 1, 1),
        ("-", 1, 2),
        ("0x10", 1, 2),
        ("1e400", 1, 1),
        ("-1e400", 1, 1),
        ("[1,]", 1, 4),
        ("[1 2]", 1, 4),
        ("{\"a\":1,}", 1, 8),
        ("{\"a\" 1}", 1, 6),
        ("{a:1}", 1, 2),
        ("{\"a\":1", 1, 7),
        ("[", 1, 2),
        ("{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3),
        ("{}x", 1, 3),
        ("{} {}", 1, 4),
        ("\"abc", 1, 1),
        ("\"a\tb\"", 1, 3),
        ("\"a\nb\"", 1, 3),
        ("\"\\x\"", 1, 2),
        ("\"\\u12\"", 1, 2),
        ("\"\\ud800\"", 1, 2),
        ("\"\\udc00\"", 1, 2),
        ("\"\\ud800\\u0041\"", 1, 2),
        ("// c\n1", 1, 1),
        ("'a'", 1, 1),
    ]

    @Test(arguments: invalidDocuments)
    func rejectsInvalidDocument(text: String, line: Int, column: Int) {
        #expect {
            _ = try JSONReader.parse(text)
        } throws: { error in
            guard let error = error as? JSONError else { return false }
            return error.line == line && error.column == column
        }
    }

    static let invalidUTF8: [[UInt8]] = [
        [0x22, 0xFF, 0x22],  // never valid
        [0x22, 0xC0, 0x80, 0x22],  // overlong NUL
        [0x22, 0xC3, 0x22],  // truncated 2-byte sequence
        [0x22, 0xE2, 0x82, 0x22],  // truncated 3-byte sequence
        [0x22, 0xED, 0xA0, 0x80, 0x22],  // encoded surrogate U+D800
        [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
        [0x22, 0x5C, 0x6E, 0x80, 0x22],  // stray continuation after an escape
        [0xEF, 0xBB],  // half a BOM
    ]

    @Test(arguments: invalidUTF8)
    func rejectsInvalidUTF8(bytes: [UInt8]) {
        #expect(throws: JSONError.self) { _ = try JSONReader.parse(bytes) }
    }

    @Test func errorDescriptionNamesLineAndColumn() {
        #expect {
            _ = try JSONReader.parse("{\n  \"a\": 1\n  \"b\": 2\n}")
        } throws: { error in
            (error as? JSONError)?.description == "line 3, column 3: expected ',' or '}' after object member"
        }
    }

    @Test func columnCountsBytes() {
        #expect {
            _ = try JSONReader.parse("[\"é\" x]")
        } throws: { error in
            (error as? JSONError)?.column == 7
        }
    }

    @Test func refusesNestingDeeperThanLimit() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONError.self) { _ = try JSONReader.parse(deep) }
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        _ = try JSONReader.parse(ok)
        let over = String(repeating: "{\"a\":", count: 11) + "1" + String(repeating: "}", count: 11)
        #expect(throws: JSONError.self) { _ = try JSONReader.parse(over, maxDepth: 10) }
    }

    @Test func commentsAllowedOnlyWhenAsked() throws {
        let rules = """
            // RTDB rules
            {
              /* block
                 comment */ "rules": { // trailing
                ".read": true /**/
              }
            }
            """
        let expected: JSONValue = .object([JSONMember("rules", .object([JSONMember(".read", .bool(true))]))])
        #expect(try JSONReader.parse(rules, allowComments: true) == expected)
        #expect(throws: JSONError.self) { _ = try JSONReader.parse(rules) }
        #expect(throws: JSONError.self) { _ = try JSONReader.parse("{} /* open", allowComments: true) }
        #expect(throws: JSONError.self) { _ = try JSONReader.parse("1 / 2", allowComments: true) }
    }

    @Test func stringsWithEscapesAndLongRuns() throws {
        let long = String(repeating: "abcé", count: 1000)
        #expect(try JSONReader.parse("\"\(long)\\n\(long)\"") == .string(long + "\n" + long))
    }

    /// A forbidden raw byte at every offset of a string is reported at its own column, including
    /// offsets the eight-byte scan skips over.
    @Test(arguments: [UInt8(0x01), 0x1F, 0x0A, 0xFF, 0x80, 0xC3])
    func rejectsForbiddenByteAtEveryOffset(byte: UInt8) {
        for position in 0...20 {
            var bytes: [UInt8] = [0x22] + Array(repeating: 0x61, count: position) + [byte]
            bytes += Array(repeating: 0x62, count: 20 - position) + [0x22]
            #expect {
                _ = try JSONReader.parse(bytes)
            } throws: { error in
                (error as? JSONError)?.column == position + 2
            }
        }
    }

    @Test func parsesSliceWithOffsetsFromSliceStart() throws {
        let buffer = Array("xx[1,2]yy".utf8)
        #expect(try JSONReader.parse(buffer[2..<7]) == .array([.int(1), .int(2)]))
        #expect {
            _ = try JSONReader.parse(buffer[2..<8])
        } throws: { error in
            (error as? JSONError)?.offset == 5
        }
    }
}
