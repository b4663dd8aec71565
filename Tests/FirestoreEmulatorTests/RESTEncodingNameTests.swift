import EmulatorModel
import EmulatorSupport
import Testing

@testable import FirestoreEmulator

/// A document's name is written into its JSON part by part (`RESTEncoding.writeName`); it must
/// read exactly as the whole name escaped at once, whatever its ids hold.
@Suite struct RESTEncodingNameTests {
    static let ids: [String] = [
        "d", "d25", "a\"b", "back\\slash", "tab\there", "nul\u{0}", "\u{1F}", "\u{7F}", "\u{E9}t\u{E9}", "😀",
        "..x", String(repeating: "x", count: 1500), String(repeating: "y", count: 40) + "\"" + String(repeating: "z", count: 40),
    ]

    @Test(arguments: ids)
    func partsAgreeWithTheWholeName(_ id: String) {
        for database in [DatabaseID(project: "p", database: "(default)"), DatabaseID(project: "q\"\u{1}", database: "d\\b")] {
            for path in [ResourcePath(segments: ["c", id]), ResourcePath(segments: [id, "d", "sub", id]), ResourcePath()] {
                var parts = JSONWriter()
                RESTEncoding.writeName(path, database: database, to: &parts)
                var whole = JSONWriter()
                whole.appendString(database.documentName(path))
                #expect(parts.bytes == whole.bytes, "\(database) \(path)")
            }
        }
    }

    /// A PATCH answer copies the name as the request spelt it when its path was read plainly; the
    /// answer must read exactly as one whose name is assembled from the document's path.
    @Test(arguments: RESTPathPlainTests.plain + [
        "/v1/projects/p/databases/(default)/documents/c/a\"b", "/v1/projects/q\\r/databases/d\"/documents/c/back\\slash",
    ])
    func spelledNameAgreesWithTheAssembledOne(_ raw: String) throws {
        let path = try RESTPath.parse(raw[...], allowMethod: false)
        #expect(path.isPlain, "\(raw) is read plainly")
        let spelled = RESTPath.spelledName(raw[...])
        let document = StoredDocument(path: path.path, fields: ValueMap(), createTime: 1, updateTime: 2)
        #expect(
            RESTEncoding.document(document, database: path.database, spelledName: spelled)
                == RESTEncoding.document(document, database: path.database))
    }

    @Test func pathsReadGenerallyHaveNoSpelledName() throws {
        for raw in ["/v1/projects/p/databases/(default)/documents/c/%64", "/v1/projects/p/databases/(default)/documents/c/d/"] {
            #expect(try !RESTPath.parse(raw[...], allowMethod: false).isPlain)
        }
    }
}
