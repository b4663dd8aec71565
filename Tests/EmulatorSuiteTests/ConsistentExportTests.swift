#if canImport(Glibc)
import Glibc
#endif
import EmulatorModel
import EmulatorPosix
import EmulatorSnapshot
import EmulatorSupport
import EmulatorTestSupport
import Synchronization
import Testing
@testable import EmulatorSuite

/// An export taken while writes go on is one point-in-time cut across both emulators. A writer
/// sets Firestore `counters/c` to n, then the Realtime Database's `/counter` to n, over and over
/// (separate commits, over HTTP). In any cut the RTDB value is the Firestore one or one behind:
/// exports that read each emulator at its own moment would show RTDB ahead, or far behind.
@Suite("Consistent export under writes")
struct ConsistentExportTests {
    private final class Writer: Sendable {
        private struct State {
            var stop = false
            var done = false
            var written = 0
            var failure: String?
        }
        private let state = Watched(State())

        func run(firestore: Int, database: Int) {
            var n = 0
            while !state.current.stop {
                n += 1
                do {
                    let patch = try LoopbackHTTPClient.send(.init(
                        method: "PATCH", host: "127.0.0.1", port: firestore,
                        path: "/v1/projects/demo-cut/databases/(default)/documents/counters/c",
                        body: Array(#"{"fields":{"n":{"integerValue":"\#(n)"}}}"#.utf8)))
                    let put = try LoopbackHTTPClient.send(.init(
                        method: "PUT", host: "127.0.0.1", port: database, path: "/counter.json?ns=demo-cut-default-rtdb",
                        body: Array("\(n)".utf8)))
                    guard patch.status == 200, put.status == 200 else {
                        state.update { $0.failure = "write \(n): \(patch.status) / \(put.status)" }
                        break
                    }
                    state.update { $0.written = n }
                } catch {
                    state.update { $0.failure = "write \(n): \(error)" }
                    break
                }
            }
            state.update { $0.done = true }
        }

        func stop() { state.update { $0.stop = true } }
        var written: Int { state.current.written }
        var done: Bool { state.current.done }
        var failure: String? { state.current.failure }

        /// Waits up to `seconds` for `satisfied` to hold.
        func wait(seconds: Double, until satisfied: (_ written: Int, _ done: Bool, _ failure: String?) -> Bool) {
            state.wait(seconds: seconds) { satisfied($0.written, $0.done, $0.failure) }
        }
    }

    @Test func exportsTakenDuringWritesAreOneCutAcrossBothEmulators() throws {
        let directory = TemporaryDirectory()
        let hooks = SnapshotHooks.live(version: "test")
        let suite = try Suite.start(.ephemeral(projectId: "demo-cut", kinds: [.database, .firestore]), hooks: hooks)
        defer { suite.shutdown() }
        let firestore = try #require(suite.port(of: .firestore))
        let database = try #require(suite.port(of: .database))

        let writer = Writer()
        #expect(PosixThread.spawn { writer.run(firestore: firestore, database: database) })
        defer {
            writer.stop()
            writer.wait(seconds: 10) { _, done, _ in done }
        }
        var cuts: [(firestore: Int64, database: Int64)] = []
        for round in 0..<6 {
            writer.wait(seconds: 5) { written, _, failure in written >= (round + 1) * 5 || failure != nil }
            let path = directory.path + "/export-\(round)"
            try hooks.exportData(ExportRequest(path: path, initiatedBy: "test", targets: [.database, .firestore]), suite.context)

            let documents = try FirestoreExportReader(fileSystem: SnapshotFileSystem())
                .read(metadataFile: path + "/firestore_export/firestore_export.overall_export_metadata")
            guard case .integer(let f)? = documents.first(where: { $0.path.description == "counters/c" })?.fields["n"] else {
                Issue.record("export \(round) has no counters/c")
                continue
            }
            let json = try JSONReader.parse(LocalFiles.read(path + "/database_export/demo-cut-default-rtdb.json") ?? [])
            guard case .int(let r)? = json[member: "counter"] else {
                Issue.record("export \(round) has no /counter: \(json)")
                continue
            }
            cuts.append((f, r))
        }
        #expect(writer.failure == nil)
        #expect(cuts.count == 6)
        for cut in cuts {
            #expect(cut.database == cut.firestore || cut.database == cut.firestore - 1, "Firestore \(cut.firestore), RTDB \(cut.database)")
        }
        #expect(Set(cuts.map(\.firestore)).count > 1, "the writes went on between the exports")
    }
}
