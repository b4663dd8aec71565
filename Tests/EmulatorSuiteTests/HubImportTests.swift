import EmulatorHTTP
import EmulatorSupport
import Foundation
import Synchronization
import Testing
@testable import EmulatorSuite

/// `POST /_admin/import` (the Emulator UI's import) and the checks it shares with `--import`.
private final class SeenPaths: Sendable {
    let paths = Mutex<[String]>([])
}

@Suite("Hub import")
struct HubImportTests {
    private func router(_ seen: SeenPaths, failing: SnapshotFailure? = nil) -> Router {
        let directory = HubDirectory(version: "0.1.0", pid: 42)
        directory.register(.hub, host: "127.0.0.1", port: 4400)
        return HubRouter.make(
            directory: directory, export: { _ throws(SnapshotFailure) in },
            import: { path throws(SnapshotFailure) in
                if let failing { throw failing }
                seen.paths.withLock { $0.append(path) }
                return "Imported \(path)"
            })
    }

    private func post(_ router: Router, _ body: String, origin: String? = nil) -> HTTPResponse {
        var request = HTTPRequest(method: .post, target: "/_admin/import", body: Array(body.utf8))
        if let origin { request.headers.add("Origin", origin) }
        return router.respond(to: request)
    }

    @Test func importCallsTheHookForOwnOriginsOnly() {
        let seen = SeenPaths()
        let router = router(seen)
        #expect(post(router, #"{"path":"/tmp/in"}"#).status == .ok)
        #expect(post(router, #"{"path":"/tmp/in"}"#, origin: "http://127.0.0.1:4000").status == .ok)
        let refused = post(router, #"{"path":"/tmp/in"}"#, origin: "http://evil.example")
        #expect(refused.status == .forbidden)
        #expect(seen.paths.withLock { $0 } == ["/tmp/in", "/tmp/in"])
    }

    @Test(arguments: ["", "{}", "not json", #"{"path":"relative/dir"}"#, #"{"path":42}"#])
    func badBodiesAre400AndImportNothing(body: String) {
        let seen = SeenPaths()
        #expect(post(router(seen), body).status == .badRequest)
        #expect(seen.paths.withLock { $0 }.isEmpty)
    }

    @Test func failuresKeepTheirStatus() {
        let seen = SeenPaths()
        #expect(post(router(seen, failing: SnapshotFailure(.invalid, "no export")), #"{"path":"/x"}"#).status == .badRequest)
        #expect(post(router(seen, failing: SnapshotFailure(.failed, "broken")), #"{"path":"/x"}"#).status == .internalServerError)
    }

    @Test func withoutAnImporterTheRouteIsUnknown() {
        let router = HubRouter.make(directory: HubDirectory(version: "0.1.0", pid: 1)) { _ throws(SnapshotFailure) in }
        #expect(post(router, #"{"path":"/x"}"#).status == .notFound)
    }

    /// The running import checks the directory as `--import` does; nothing is loaded otherwise.
    @Test func importWhileRunningRefusesMissingDirectoriesAndNonExports() throws {
        let context = EmulatorContext(projectId: "demo", console: Console(verbosity: .silent))
        let loaded = Mutex(0)
        let hook: SnapshotHooks.Import = { _, _ throws(SnapshotFailure) in loaded.withLock { $0 += 1 } }
        let missing = "/tmp/emulators-no-such-dir-\(UUID().uuidString)"
        #expect(throws: SnapshotFailure.self) { try Suite.importWhileRunning(missing, hook: hook, context) }
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("emulators-empty-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        do {
            _ = try Suite.importWhileRunning(empty, hook: hook, context)
            Issue.record("an empty directory was imported")
        } catch {
            #expect(error.code == .invalid)
        }
        #expect(loaded.withLock { $0 } == 0)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: empty + "/ns.json"))
        #expect(try Suite.importWhileRunning(empty, hook: hook, context) == "Imported \(empty)")
        #expect(loaded.withLock { $0 } == 1)
    }
}

extension HubImportTests {
    /// A deferred answer replaces the response the CORS wrapper saw: it carries its own fields,
    /// or a page (the Emulator UI) could not read it.
    @Test(arguments: ["/_admin/export", "/_admin/import"])
    func deferredAnswersCarryCORSFields(path: String) {
        let directory = HubDirectory(version: "0.1.0", pid: 42)
        let router = HubRouter.make(
            directory: directory, deferExports: true, export: { _ throws(SnapshotFailure) in },
            import: { path throws(SnapshotFailure) in "Imported \(path)" })
        let handler = HubRouter.handler(router)
        let response = handler(HTTPRequest(
            method: .post, target: path, headers: HTTPHeaders([("Origin", "http://127.0.0.1:4000")]), body: Array(#"{"path":"/x"}"#.utf8)))
        let completed = response.resolved()
        #expect(completed.status == .ok)
        #expect(completed.headers["Access-Control-Allow-Origin"] == "http://127.0.0.1:4000")
    }
}
