import Testing

@testable import EmulatorModel

@Suite("Document limits")
struct DocumentLimitsTests {
    let name = DocumentName(projectID: "p", databaseID: "(default)", path: ResourcePath(segments: ["tasks", "t1"]))

    @Test("storage sizes follow the documented formula")
    func sizes() {
        // Name: "tasks"(6) + "t1"(3) + 16 = 25.
        #expect(DocumentLimits.nameSize(name.path) == 25)
        #expect(DocumentLimits.size(of: "abc") == 4)
        #expect(DocumentLimits.size(of: .null) == 1 && DocumentLimits.size(of: true) == 1)
        #expect(DocumentLimits.size(of: 5) == 8 && DocumentLimits.size(of: 1.5) == 8)
        #expect(DocumentLimits.size(of: .geoPoint(latitude: 0, longitude: 0)) == 16)
        #expect(DocumentLimits.size(of: .bytes([1, 2, 3])) == 3)
        #expect(DocumentLimits.size(of: ["a", 1]) == 10)
        #expect(DocumentLimits.size(of: .reference("projects/p/databases/d/documents/tasks/t1")) == 25)
        // Example from the storage-size page: {type: "Personal", done: false, priority: 1, description: "Learn Cloud Firestore"}
        let fields: ValueMap = ["type": "Personal", "done": false, "priority": 1, "description": "Learn Cloud Firestore"]
        #expect(DocumentLimits.fieldsSize(fields) == 14 + 6 + 17 + 34)
    }

    @Test("exactly 1 MiB is accepted, one byte more is rejected with the size in the message")
    func oneMiB() throws {
        // name 25 + "s"(2) + string(n+1) + 32 = 1,048,576 → n = 1,048,516.
        let fits: ValueMap = ["s": .string(String(repeating: "x", count: 1_048_516))]
        try DocumentLimits.validate(name, fields: fits)
        let over: ValueMap = ["s": .string(String(repeating: "x", count: 1_048_517))]
        #expect(
            throws: EmulatorError.invalidArgument(
                "Document 'projects/p/databases/(default)/documents/tasks/t1' cannot be written because its size (1,048,577 bytes) exceeds the maximum allowed size of 1,048,576 bytes."
            )
        ) { try DocumentLimits.validate(name, fields: over) }
    }

    func nestedMaps(_ depth: Int) -> ValueMap {
        var v: Value = 1
        for _ in 0..<depth { v = .map(["m": v]) }
        return ["top": v]
    }

    @Test("nesting: 20 levels accepted, 21 rejected")
    func depth() throws {
        try DocumentLimits.validate(name, fields: nestedMaps(20))
        #expect(throws: EmulatorError.self) { try DocumentLimits.validate(name, fields: nestedMaps(21)) }
    }

    static let fieldCases: [(ValueMap, Bool)] = [
        (["": 1], false), (["__x__": 1], false), ([String(repeating: "a", count: 1500): 1], true),
        ([String(repeating: "a", count: 1501): 1], false), (["a": [[1]]], false), (["a": [["b": [1]]]], true),
        (["v": ["__type__": "__vector__", "value": [1.0]]], true),
    ]

    @Test("field names and nested arrays", arguments: fieldCases)
    func fieldNames(fields: ValueMap, valid: Bool) {
        let ok = (try? DocumentLimits.validate(name, fields: fields)) != nil
        #expect(ok == valid)
    }
}
