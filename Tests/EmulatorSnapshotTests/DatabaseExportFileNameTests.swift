import EmulatorModel
import EmulatorTestSupport
import Testing

@testable import EmulatorSnapshot

@Suite struct DatabaseExportFileNameTests {
    static let table: [(name: String, file: String)] = [
        ("demo-default-rtdb", "demo-default-rtdb"),
        ("Mixed-Case_9", "Mixed-Case_9"),
        ("a/b", "a%2Fb"),
        (".", "%2E"),
        ("..", "%2E%2E"),
        ("nul\u{0}x", "nul%00x"),
        ("50%", "50%25"),
        ("é", "%C3%A9"),
        ("", "%"),
    ]

    @Test(arguments: table)
    func encodesUnsafeBytesAndDecodesBack(name: String, file: String) {
        #expect(DatabaseExportFileName.encode(name) == file)
        #expect(DatabaseExportFileName.decode(file) == name)
        #expect(SnapshotExporter.isSafeFileName(file))
    }

    /// Production exports named freely keep their names: only `%XX` with two hex digits decodes.
    @Test(arguments: ["my.db", "100%", "a%zzb", "a%2", "x%%41"])
    func fileNamesWithoutEscapesImportAsThemselves(file: String) {
        let decoded = DatabaseExportFileName.decode(file)
        #expect(decoded == (file == "x%%41" ? "x%A" : file))
    }

    /// Before: a namespace such as `a/b` (accepted when written) made every export refuse the
    /// whole suite ("cannot be used as a file name").
    @Test func aNamespaceThatIsNoFileNameStillExportsAndImportsUnderItsName() throws {
        let dir = TemporaryDirectory()
        let namespaces = ["a/b", "..", "ok-ns"].map { DatabaseExportNamespace(name: $0, json: Array(#"{"k":1}"#.utf8)) }
        try SnapshotExporter(version: "0.1.0").export(to: dir.path + "/data", force: false, database: namespaces, firestore: nil)
        #expect(
            try SnapshotFileSystem().list(dir.path + "/data/database_export").sorted() == ["%2E%2E.json", "a%2Fb.json", "ok-ns.json"])
        let snapshot = try SnapshotImporter().read(directory: dir.path + "/data")
        #expect(snapshot.database?.map(\.name).sorted() == ["..", "a/b", "ok-ns"])
    }
}
