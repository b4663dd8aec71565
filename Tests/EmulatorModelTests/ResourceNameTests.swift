import Testing

@testable import EmulatorModel

@Suite("Resource names and paths")
struct ResourceNameTests {
    @Test("parses a document name into its parts")
    func parts() throws {
        let n = try DocumentName(parsing: "projects/p/databases/(default)/documents/users/ada/posts/p1")
        #expect(n.projectID == "p" && n.databaseID == "(default)")
        #expect(n.path.segments == ["users", "ada", "posts", "p1"])
        #expect(n.path.isDocument)
        #expect(n.documentID == "p1")
        #expect(n.collectionID == "posts")
        #expect(n.parentName == "projects/p/databases/(default)/documents/users/ada/posts")
        #expect(n.name == "projects/p/databases/(default)/documents/users/ada/posts/p1")
        #expect(try DocumentName(parsing: "projects/p/databases/d/documents").path.isEmpty)
        #expect(try DocumentName.parent("projects/p/databases/d/documents/a/b").path.count == 2)
        let long = String(repeating: "x", count: 40)
        let named = try DocumentName(parsing: "projects/p/databases/d/documents/Zoë/\(long)")
        #expect(named.path.segments == ["Zoë", long])
        #expect(throws: EmulatorError.self) { try DocumentName(parsing: "/projects/p/databases/d/documents") }
        #expect(throws: EmulatorError.self) { try DocumentName(parsing: "projects//databases/d/documents") }
    }

    static let invalidNames: [(String, String)] = [
        ("projects/p/databases/d", "Invalid resource name: \"projects/p/databases/d\"; must match projects/{project_id}/databases/{database_id}/documents/{document_path}."),
        ("projects/p/databases/d/documents/c//d", "Resource id must not be empty."),
        ("projects/p/databases/d/documents/c/", "Resource id must not be empty."),
        ("projects/p/databases/d/documents/c/..", "Resource id \"..\" is invalid because it is \".\" or \"..\"."),
        ("projects/p/databases/d/documents/c/.", "Resource id \".\" is invalid because it is \".\" or \"..\"."),
        ("projects/p/databases/d/documents/c/__x__", "Resource id \"__x__\" is invalid because it is reserved."),
        ("projects/p/databases/d/documents/c", "Document name \"projects/p/databases/d/documents/c\" has odd number of segments."),
    ]

    @Test("invalid document names give INVALID_ARGUMENT with a message", arguments: invalidNames)
    func invalid(name: String, message: String) {
        #expect(throws: EmulatorError.invalidArgument(message)) { try DocumentName.document(name) }
    }

    @Test("id limits: 1,500 bytes accepted, 1,501 rejected; numeric ids allowed")
    func idLimits() throws {
        try ResourcePath.validateSegment(String(repeating: "é", count: 750))
        #expect(throws: EmulatorError.self) { try ResourcePath.validateSegment(String(repeating: "a", count: 1501)) }
        try ResourcePath.validateSegment("__id42__")
        try ResourcePath.validateSegment("__id-9223372036854775808__")
        #expect(throws: EmulatorError.self) { try ResourcePath.validateSegment("__id99999999999999999999__") }
        #expect(throws: EmulatorError.self) { try ResourcePath.validateSegment("__name__") }
        try ResourcePath.validateSegment("_x_")
    }

    @Test("canonically equivalent ids are different documents")
    func distinctIDs() throws {
        let a = try ResourcePath(parsing: "c/\u{E9}")
        let b = try ResourcePath(parsing: "c/e\u{301}")
        #expect(a != b)
        #expect(Set([a, b]).count == 2)
        #expect(try ResourcePath(parsing: "c").isPrefix(of: a))
    }
}
