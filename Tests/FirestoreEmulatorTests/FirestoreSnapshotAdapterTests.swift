import EmulatorModel
import EmulatorStorage
import Testing

@testable import FirestoreEmulator

/// What an export sees of the documents in storage: every project and database, documents only.
@Suite struct FirestoreSnapshotAdapterTests {
    static let first = DatabaseID(project: "p1", database: "(default)")
    static let second = DatabaseID(project: "p2", database: "other")

    /// Two databases; the first also holds a value that is not `ValueCodec` bytes.
    static func engine() throws -> StorageEngine {
        let engine = StorageEngine()
        let a = try ResourcePath(parsing: "c/a")
        let nested = try ResourcePath(parsing: "c/b/d/e")
        let broken = try ResourcePath(parsing: "c/z")
        try FirestoreSnapshotAdapter.load(
            [
                try FirestoreSnapshotAdapter.entry(database: first, path: a, fields: ["n": .integer(1)]),
                try FirestoreSnapshotAdapter.entry(database: first, path: broken, encodedFields: [0xFF, 0xFF, 0xFF]),
                try FirestoreSnapshotAdapter.entry(database: second, path: nested, fields: ["s": .string("x")]),
            ], into: engine)
        return engine
    }

    @Test func storedExportListsEveryDocumentOfEveryDatabase() throws {
        let snapshot = try Self.engine().snapshot()
        var seen: [String] = []
        var values: [[UInt8]] = []
        FirestoreSnapshotAdapter.exportStoredDocuments(from: snapshot) { database, path, entry in
            seen.append("\(database.project)/\(database.database)/\(path)")
            values.append(entry.value)
        }
        #expect(seen == ["p1/(default)/c/a", "p1/(default)/c/z", "p2/other/c/b/d/e"])
        #expect(values.count == 3 && values[1] == [0xFF, 0xFF, 0xFF])  // handed over undecoded
    }

    @Test func decodedExportSkipsValuesThatDoNotDecode() throws {
        let snapshot = try Self.engine().snapshot()
        var seen: [String] = []
        FirestoreSnapshotAdapter.exportDocuments(from: snapshot) { database, path, fields in
            seen.append("\(database.project)/\(path) \(fields)")
        }
        #expect(seen.count == 2)
        #expect(seen.first?.hasPrefix("p1/c/a ") == true)
        #expect(seen.last?.hasPrefix("p2/c/b/d/e ") == true)
    }

    @Test func anErrorFromTheBodyStopsTheExport() throws {
        struct Stop: Error {}
        let snapshot = try Self.engine().snapshot()
        var calls = 0
        #expect(throws: Stop.self) {
            try FirestoreSnapshotAdapter.exportDocuments(from: snapshot) { (_, _, _) throws(Stop) in
                calls += 1
                throw Stop()
            }
        }
        #expect(calls == 1)
    }
}
