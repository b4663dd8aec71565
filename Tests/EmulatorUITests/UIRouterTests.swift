import EmulatorHTTP
import EmulatorSupport
import Foundation
import Testing
@testable import EmulatorUI

@Suite("Emulator UI router")
struct UIRouterTests {
    static let own = "http://127.0.0.1:4000"

    static func environment(logs: UILogBook = UILogBook()) -> UIEnvironment {
        UIEnvironment(
            projectId: "demo-ui",
            emulators: {
                .object([
                    JSONMember("firestore", .object([
                        JSONMember("name", .string("firestore")), JSONMember("host", .string("127.0.0.1")),
                        JSONMember("port", .int(8080)),
                    ]))
                ])
            },
            ownOrigins: { [own] }, logs: logs)
    }

    static func client(_ logs: UILogBook = UILogBook()) -> InProcessClient {
        InProcessClient(handler: UIRouter.handler(environment(logs: logs)))
    }

    @Test(arguments: [
        ("/assets/app.js", "text/javascript; charset=utf-8"),
        ("/assets/app.css", "text/css; charset=utf-8"),
        ("/assets/icon.svg", "image/svg+xml"),
        ("/", "text/html; charset=utf-8"),
    ])
    func servesAssetsWithTheirTypes(path: String, type: String) {
        let response = Self.client().get(path)
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"] == type)
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        #expect(!response.bodyBytes.isEmpty)
    }

    /// The banner's links (`/firestore`, `/database`) and deeper paths open the page itself.
    @Test(arguments: ["/firestore", "/firestore/default/data/users/ada", "/database", "/database/ns/data/a/b", "/logs"])
    func everyViewPathServesThePage(path: String) {
        let response = Self.client().get(path)
        #expect(response.status == .ok)
        #expect(String(decoding: response.bodyBytes, as: UTF8.self).contains(#"<script src="/assets/app.js" defer>"#))
        #expect(response.headers["Content-Security-Policy"]?.contains("default-src 'self'") == true)
    }

    @Test func unknownPathsAre404() {
        #expect(Self.client().get("/nothing-here").status == .notFound)
        #expect(Self.client().get("/assets/missing.js").status == .notFound)
    }

    @Test func configListsProjectAndEmulators() throws {
        let response = Self.client().get("/api/config")
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        let value = try JSONReader.parse(response.bodyBytes)
        #expect(value[member: "projectId"] == .string("demo-ui"))
        #expect(value[member: "firestore"]?[member: "port"] == .int(8080))
        #expect(value[member: "experiments"] == .array([]))
    }

    @Test func logsArePagedByCursor() throws {
        let logs = UILogBook()
        logs.append(level: "info", scope: "firestore", text: "one")
        logs.append(level: "warning", scope: "database", text: "two")
        let client = Self.client(logs)
        let all = try JSONReader.parse(client.get("/api/logs").bodyBytes)
        guard case .array(let lines)? = all[member: "lines"] else { Issue.record("no lines"); return }
        #expect(lines.count == 2)
        #expect(lines[1][member: "text"] == .string("two"))
        #expect(lines[1][member: "level"] == .string("warning"))
        #expect(all[member: "last"] == .int(2))
        let newer = try JSONReader.parse(client.get("/api/logs?after=1").bodyBytes)
        #expect(newer[member: "lines"].map { if case .array(let a) = $0 { a.count } else { -1 } } == 1)
    }

    // Only the UI's own pages may change anything through its port.
    @Test(arguments: [
        ([(String, String)](), false),
        ([("Origin", "http://evil.example")], false),
        ([("Origin", "http://127.0.0.1:4000")], true),
        // DNS rebinding: a name that resolves here, sent to itself, is still another origin.
        ([("Origin", "http://rebind.example:4000"), ("Host", "rebind.example:4000")], false),
        // The UI bound to 0.0.0.0 and opened through a LAN address.
        ([("Origin", "http://192.168.1.20:4000"), ("Host", "192.168.1.20:4000")], true),
        ([("Origin", "http://localhost:4000"), ("Host", "localhost:4000")], true),
        ([("Origin", "http://192.168.1.20:4000"), ("Host", "127.0.0.1:4000")], false),
    ])
    func clearingLogsNeedsTheOwnOrigin(headers: [(String, String)], allowed: Bool) {
        let logs = UILogBook()
        logs.append(level: "info", scope: "", text: "kept unless allowed")
        let response = Self.client(logs).delete("/api/logs", headers: headers)
        #expect(response.status == (allowed ? .ok : .forbidden))
        #expect(logs.lines(after: 0).lines.isEmpty == allowed)
    }

    @Test func postsFromOtherOriginsAreRefusedEvenOnUnknownPaths() {
        let response = Self.client().send(
            HTTPRequest(method: .post, target: "/api/anything", headers: HTTPHeaders([("Origin", "http://evil.example")])))
        #expect(response.status == .forbidden)
        #expect(String(decoding: response.bodyBytes, as: UTF8.self).contains(UIRouter.forbiddenMessage))
    }

    /// The script is one file joined from parts; node (when installed) must parse it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/node"), "node is not installed"))
    func scriptParses() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("emulator-ui-\(UUID().uuidString).js")
        defer { try? FileManager.default.removeItem(at: file) }
        guard let script = UIAsset.all.first(where: { $0.path == "/assets/app.js" }) else {
            Issue.record("no app.js")
            return
        }
        try Data(script.bytes).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/node")
        process.arguments = ["--check", file.path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
