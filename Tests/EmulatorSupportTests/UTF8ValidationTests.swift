import Testing
@testable import EmulatorSupport

@Suite struct UTF8ValidationTests {
    static let cases: [([UInt8], Int?)] = [
        ([], nil),
        (Array("plain ascii text, longer than eight bytes".utf8), nil),
        (Array("aé€😀".utf8), nil),
        ([0x7F], nil),
        ([0xC2, 0x80], nil),
        ([0xEF, 0xBF, 0xBF], nil),
        ([0xF4, 0x8F, 0xBF, 0xBF], nil),
        ([0x80], 0),
        ([0x61, 0x62, 0xC0, 0x80], 2),
        ([0xC1, 0xBF], 0),
        ([0xE0, 0x80, 0x80], 0),
        ([0xED, 0xA0, 0x80], 0),
        ([0xF0, 0x80, 0x80, 0x80], 0),
        ([0xF4, 0x90, 0x80, 0x80], 0),
        ([0xF5, 0x80, 0x80, 0x80], 0),
        ([0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0xE2, 0x82], 9),
        ([0xFF], 0),
    ]

    @Test(arguments: cases)
    func findsFirstInvalidByte(bytes: [UInt8], expected: Int?) {
        #expect(bytes.withUnsafeBufferPointer { UTF8Validation.firstInvalidOffset($0) } == expected)
        #expect(UTF8Validation.isValid(bytes) == (expected == nil))
        bytes.withUnsafeBufferPointer { buffer in
            #expect(UTF8Validation.isValid(buffer) == (String(validating: buffer, as: UTF8.self) != nil))
            #expect(UTF8Validation.string(buffer) == String(validating: buffer, as: UTF8.self))
        }
    }

    static let comparisons: [(String, String, Int)] = [
        ("", "", 0),
        ("a", "", 1),
        ("", "a", -1),
        ("a", "b", -1),
        ("abc", "abd", -1),
        ("ab", "abc", -1),
        ("Z", "a", -1),
        ("é", "e\u{301}", 1),  // canonically equivalent but different bytes
        ("\u{FFFF}", "😀", -1),  // UTF-8 order is code point order, not UTF-16 order
        ("same", "same", 0),
    ]

    @Test(arguments: comparisons)
    func comparesByUTF8Bytes(a: String, b: String, expected: Int) {
        #expect(utf8Compare(a, b) == expected)
        #expect(utf8Compare(b, a) == -expected)
        #expect(utf8Equal(a, b) == (expected == 0))
    }
}
