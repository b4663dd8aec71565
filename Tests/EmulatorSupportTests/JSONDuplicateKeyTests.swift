import EmulatorSupport
import Testing

@Suite struct JSONDuplicateKeyTests {
    static let duplicates: [(json: String, column: Int, key: String)] = [
        (#"{"a":1,"a":2}"#, 8, "a"),
        (#"{"x":{"b":[],"c":0,"b":null}}"#, 20, "b"),
        (#"[{"k":1},{"k":1,"k":1}]"#, 17, "k"),
        (#"{"\u0061":1,"a":2}"#, 13, "a"),  // the same name, once escaped
        ("{" + (0..<40).map { #""k\#($0)":0,"# }.joined() + #""k7":1}"#, 312, "k7"),  // past the linear scan
    ]

    @Test(arguments: duplicates)
    func repeatedNamesAreErrorsWhenAsked(json: String, column: Int, key: String) {
        #expect(throws: JSONError.self) { try JSONReader.parse(Array(json.utf8), rejectingDuplicateKeys: true) }
        do {
            _ = try JSONReader.parse(Array(json.utf8), rejectingDuplicateKeys: true)
        } catch {
            #expect(error.message == "duplicate key \"\(key)\"")
            #expect(error.column == column)
        }
        // Without the option they are kept, in order.
        #expect((try? JSONReader.parse(Array(json.utf8))) != nil)
    }

    @Test func distinctNamesPass() throws {
        let json = "{" + (0..<100).map { #""k\#($0)":{"a":1,"b":2}"# }.joined(separator: ",") + "}"
        let value = try JSONReader.parse(Array(json.utf8), rejectingDuplicateKeys: true)
        #expect(value[member: "k99"]?[member: "b"] == .int(2))
        #expect(try JSONReader.parse(Array(#"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}"#.utf8), rejectingDuplicateKeys: true) != .null)
    }
}
