import EmulatorStorage
import EmulatorSupport
import Testing
@testable import DatabaseEmulator

/// The streamed RTDB export writes exactly the bytes of the whole-tree export, in pieces.
@Suite struct ExportStreamTests {
    static let documents: [String] = [
        #"{"users":{"u1":{"name":"Ada","age":36},"u2":{"name":"Grace",".priority":2}},"n":{"1":"a","2":"b","10":"c","x":true}}"#,
        #"{"a":{".value":5,".priority":"p"},"b":{"c":{"d":{"e":[1,2,{"f":null,"g":"h"}]}}},".priority":1.5}"#,
        #""just a root leaf""#,
        #"{"list":["x","y","z"],"unicode":{"ключ":"значение","emoji 🎉":1}}"#,
        "null",
    ]

    @Test(arguments: documents, [1, 64, 1 << 20])
    func streamEqualsWholeTree(json: String, chunkBytes: Int) throws {
        let engine = StorageEngine()
        let value = try JSONReader.parse(Array(json.utf8), maxDepth: 64)
        try DatabaseSnapshotAdapter.importNamespace("demo", json: value, into: engine)
        let snapshot = try engine.snapshot()
        let whole = DatabaseSnapshotAdapter.exportNamespaces(from: snapshot, alsoInclude: ["demo"]).first { $0.name == "demo" }?.json
        var pieces: [[UInt8]] = []
        DatabaseSnapshotAdapter.streamExport("demo", from: snapshot, chunkBytes: chunkBytes) { pieces.append($0) }
        #expect(pieces.flatMap { $0 } == whole)
        if chunkBytes == 1 && json.count > 40 { #expect(pieces.count > 1) }
    }

    @Test func namesAreTheNamespacesWithDataPlusTheImportedOnes() throws {
        let engine = StorageEngine()
        try DatabaseSnapshotAdapter.importNamespace("b", json: .object([JSONMember("x", .int(1))]), into: engine)
        try DatabaseSnapshotAdapter.importNamespace("a", json: .null, into: engine)
        #expect(DatabaseSnapshotAdapter.exportNamespaceNames(from: try engine.snapshot(), alsoInclude: ["c"]) == ["b", "c"])
    }
}
