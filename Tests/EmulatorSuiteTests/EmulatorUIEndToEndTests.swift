import EmulatorSupport
import Testing
@testable import EmulatorSuite

@Suite("Emulator UI over loopback")
struct EmulatorUIEndToEndTests {
    private func send(
        _ method: String, _ port: Int, _ path: String, headers: [(String, String)] = []
    ) throws -> LoopbackHTTPClient.Reply {
        try LoopbackHTTPClient.send(
            .init(method: method, host: "127.0.0.1", port: port, path: path, headers: headers, timeout: .seconds(5)))
    }

    private static var withUI: SuiteConfiguration {
        .ephemeral(projectId: "demo-ui", kinds: [.firestore, .database, .ui])
    }

    @Test func servesThePageAndTheHubListsIt() async throws {
        try await withSuite(Self.withUI) { suite in
            let ui = try #require(suite.port(of: .ui))
            let page = try send("GET", ui, "/firestore")
            #expect(page.status == 200)
            #expect(String(decoding: page.body, as: UTF8.self).contains("<title>Emulator UI</title>"))
            let script = try send("GET", ui, "/assets/app.js")
            #expect(script.headers.first { $0.name.lowercased() == "content-type" }?.value == "text/javascript; charset=utf-8")

            let hub = try #require(suite.port(of: .hub))
            let emulators = try JSONReader.parse(try send("GET", hub, "/emulators").body)
            #expect(emulators[member: "ui"]?[member: "port"] == .int(Int64(ui)))
            #expect(emulators[member: "ui"]?[member: "name"] == .string("ui"))

            let config = try JSONReader.parse(try send("GET", ui, "/api/config").body)
            #expect(config[member: "projectId"] == .string("demo-ui"))
            #expect(config[member: "firestore"]?[member: "port"] == .int(Int64(try #require(suite.port(of: .firestore)))))
            #expect(config[member: "ui"]?[member: "port"] == .int(Int64(ui)))
        }
    }

    @Test func theBannerLinksEveryEmulator() async throws {
        try await withSuite(Self.withUI) { suite in
            let ui = try #require(suite.port(of: .ui))
            let text = suite.banner.rendered
            #expect(text.contains("│ i  View Emulator UI at http://127.0.0.1:\(ui)/"))
            #expect(text.contains("│ Emulator  │ Host:Port "))
            #expect(text.contains("│ View in Emulator UI "))
            let lines = text.split(separator: "\n").map(String.init)
            let firestore = try #require(lines.first { $0.hasPrefix("│ Firestore ") })
            let database = try #require(lines.first { $0.hasPrefix("│ Database ") })
            #expect(firestore.hasSuffix("│ http://127.0.0.1:\(ui)/firestore │"))
            #expect(database.hasSuffix("│ http://127.0.0.1:\(ui)/database  │"))
            // Starting emulators: lists data emulators only, as the official CLI.
            #expect(suite.configuration.emulators == [.firestore, .database])
        }
    }

    @Test func theLogsViewSeesTheSuiteLines() async throws {
        let output = CapturedOutput()
        var configuration = Self.withUI
        configuration.verbosity = .info
        let suite = try Suite.start(configuration, console: output.console)
        defer { suite.shutdown() }
        let ui = try #require(suite.port(of: .ui))
        let logs = try JSONReader.parse(try send("GET", ui, "/api/logs").body)
        let text = JSONWriter.encodeToString(logs)
        #expect(text.contains("Starting emulators: firestore, database"))
        #expect(text.contains(#""scope":"firestore""#))
    }

    @Test func clearingLogsFromAnotherOriginIsRefused() async throws {
        try await withSuite(Self.withUI) { suite in
            let ui = try #require(suite.port(of: .ui))
            #expect(try send("DELETE", ui, "/api/logs", headers: [("Origin", "http://evil.example")]).status == 403)
            #expect(try send("DELETE", ui, "/api/logs").status == 403)
            #expect(try send("DELETE", ui, "/api/logs", headers: [("Origin", "http://127.0.0.1:\(ui)")]).status == 200)
        }
    }

    @Test func theUIMovesToTheNextFreePortWhenItsDefaultIsTaken() throws {
        let holder = try Suite.start(.ephemeral(kinds: []))
        defer { holder.shutdown() }
        let taken = try #require(holder.port(of: .hub))
        var configuration = SuiteConfiguration.ephemeral(kinds: [.firestore])
        configuration.listeners[.ui] = ListenAddress(port: taken, isFixed: false)
        let output = CapturedOutput()
        let suite = try Suite.start(configuration, console: output.console)
        defer { suite.shutdown() }
        #expect(try #require(suite.port(of: .ui)) > taken)
        #expect(output.standardOutput.contains("Emulator UI unable to start on port \(taken), starting on"))
    }
}
