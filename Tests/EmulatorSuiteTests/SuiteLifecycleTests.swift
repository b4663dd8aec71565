#if canImport(Glibc)
import Glibc
#endif
import EmulatorSupport
import EmulatorTestSupport
import Testing
@testable import EmulatorSuite

@Suite("Suite over loopback")
struct SuiteLifecycleTests {
    private func get(_ port: Int, _ path: String) throws -> LoopbackHTTPClient.Reply {
        try LoopbackHTTPClient.send(.init(method: "GET", host: "127.0.0.1", port: port, path: path, timeout: .seconds(5)))
    }

    @Test func everyListenerAcceptsAndTheHubDescribesThem() async throws {
        try await withSuite(.ephemeral(projectId: "demo-loop")) { suite in
            let hub = try #require(suite.port(of: .hub))
            let firestore = try #require(suite.port(of: .firestore))
            let database = try #require(suite.port(of: .database))
            #expect(Set([hub, firestore, database]).count == 3)

            let root = try JSONReader.parse(try get(hub, "/").body)
            #expect(root[member: "port"] == .int(Int64(hub)))
            #expect(root[member: "origins"] == .array([.string("http://127.0.0.1:\(hub)")]))
            #expect(root[member: "pid"] == .int(Int64(getpid())))

            let emulators = try JSONReader.parse(try get(hub, "/emulators").body)
            #expect(emulators[member: "firestore"]?[member: "port"] == .int(Int64(firestore)))
            #expect(emulators[member: "database"]?[member: "port"] == .int(Int64(database)))

            let missing = try get(firestore, "/v1/projects/demo-loop/databases/(default)/documents/a/b")
            #expect(missing.status == 404)
            #expect(try JSONReader.parse(missing.body)[member: "error"]?[member: "status"] == .string("NOT_FOUND"))
            let data = try get(database, "/a.json?ns=demo-loop")
            #expect(data.status == 200)
            #expect(data.body == Array("null".utf8))
        }
    }

    /// Whether a socket can bind ::1 here (checked apart from the suite).
    private static func machineHasIPv6Loopback() -> Bool {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        inet_pton(AF_INET6, "::1", &address.sin6_addr)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        } == 0
    }

    @Test func aLocalhostHostServesBothLoopbacksAndTheHubListsThem() async throws {
        var configuration = SuiteConfiguration.ephemeral(projectId: "demo-loop", kinds: [.database])
        for kind in configuration.listeners.keys { configuration.listeners[kind]?.host = "localhost" }
        try await withSuite(configuration) { suite in
            let hub = try #require(suite.port(of: .hub))
            let database = try #require(suite.port(of: .database))
            let v6 = try? LoopbackHTTPClient.send(
                .init(method: "GET", host: "::1", port: database, path: "/a.json?ns=demo-loop", timeout: .seconds(5)))
            let emulators = try JSONReader.parse(try get(hub, "/emulators").body)
            let listen = emulators[member: "database"]?[member: "listen"]
            #expect(emulators[member: "database"]?[member: "host"] == .string("127.0.0.1"))
            #expect(try get(database, "/a.json?ns=demo-loop").status == 200)
            if Self.machineHasIPv6Loopback() {
                // Both addresses answer and both are listed.
                #expect(v6?.status == 200)
                #expect(listen == .array([
                    .object([JSONMember("address", .string("127.0.0.1")), JSONMember("family", .string("IPv4")), JSONMember("port", .int(Int64(database)))]),
                    .object([JSONMember("address", .string("::1")), JSONMember("family", .string("IPv6")), JSONMember("port", .int(Int64(database)))]),
                ]))
                let root = try JSONReader.parse(try get(hub, "/").body)
                #expect(root[member: "origins"] == .array([.string("http://127.0.0.1:\(hub)"), .string("http://[::1]:\(hub)")]))
            } else {
                #expect(listen == .array([
                    .object([JSONMember("address", .string("127.0.0.1")), JSONMember("family", .string("IPv4")), JSONMember("port", .int(Int64(database)))]),
                ]))
            }
        }
    }

    @Test func shutdownClosesEveryPort() async throws {
        let suite = try Suite.start(.ephemeral())
        let ports = suite.ports
        suite.shutdown()
        suite.shutdown()  // idempotent
        for port in ports.values {
            #expect(throws: LoopbackHTTPClient.Failure.self) { try get(port, "/") }
        }
    }

    @Test func aTakenFixedPortFailsNamingThePortAndTheFix() throws {
        let holder = try Suite.start(.ephemeral(kinds: [.firestore]))
        defer { holder.shutdown() }
        let taken = try #require(holder.port(of: .firestore))
        var configuration = SuiteConfiguration.ephemeral(kinds: [.firestore])
        configuration.listeners[.firestore] = ListenAddress(port: taken, isFixed: true)
        #expect {
            try Suite.start(configuration)
        } throws: { error in
            guard let error = error as? SuiteStartError else { return false }
            return error.code == .portTaken && error.port == taken
                && error.message.hasPrefix("Could not start Firestore Emulator, port taken.\nPort \(taken) on 127.0.0.1 is already in use.")
                && error.message.contains("emulators.firestore.port")
        }
    }

    @Test func theHubMovesToTheNextFreePortWhenItsDefaultIsTaken() throws {
        let holder = try Suite.start(.ephemeral(kinds: []))
        defer { holder.shutdown() }
        let taken = try #require(holder.port(of: .hub))
        var configuration = SuiteConfiguration.ephemeral(kinds: [])
        configuration.listeners[.hub] = ListenAddress(port: taken, isFixed: false)
        let output = CapturedOutput()
        let suite = try Suite.start(configuration, console: output.console)
        defer { suite.shutdown() }
        #expect(try #require(suite.port(of: .hub)) > taken)
        #expect(output.standardOutput.contains("emulator hub unable to start on port \(taken), starting on"))
    }

    @Test func theLocatorFileLivesAsLongAsTheSuite() throws {
        let directory = TemporaryDirectory()
        var configuration = SuiteConfiguration.ephemeral(projectId: "demo-locator")
        configuration.locatorDirectory = directory.path
        let suite = try Suite.start(configuration)
        let path = directory.path + "/hub-demo-locator.json"
        let locator = try #require(HubLocator.read(path))
        #expect(locator[member: "origins"] == .array([.string("http://127.0.0.1:\(suite.port(of: .hub) ?? 0)")]))
        suite.shutdown()
        #expect(LocalFiles.kind(path) == .missing)
    }

    @Test func environmentForExecScripts() throws {
        let suite = try Suite.start(.ephemeral(projectId: "demo-env"))
        defer { suite.shutdown() }
        let environment = suite.environment
        #expect(environment["FIRESTORE_EMULATOR_HOST"] == "127.0.0.1:\(suite.port(of: .firestore) ?? 0)")
        #expect(environment["FIREBASE_DATABASE_EMULATOR_HOST"] == "127.0.0.1:\(suite.port(of: .database) ?? 0)")
        #expect(environment["FIREBASE_EMULATOR_HUB"] == "127.0.0.1:\(suite.port(of: .hub) ?? 0)")
        #expect(environment["GCLOUD_PROJECT"] == "demo-env")
    }

    @Test func bannerListsTheBoundPorts() throws {
        let suite = try Suite.start(.ephemeral())
        defer { suite.shutdown() }
        let banner = suite.banner
        #expect(banner.rows.map(\.name) == ["Firestore", "Database"])
        #expect(banner.rows.first?.hostPort == "127.0.0.1:\(suite.port(of: .firestore) ?? 0)")
        #expect(banner.hubPort == suite.port(of: .hub))
    }

    @Test func aRegisteredRouterServesItsEmulatorsPort() async throws {
        var registry = EmulatorRegistry.standard
        registry.routers[.database] = { context in
            var router = EmulatorHTTP.Router()
            router.add(.get, "/project") { _ in .text(context.projectId) }
            return router
        }
        try await withSuite(.ephemeral(projectId: "demo-wired"), registry: registry) { suite in
            let reply = try get(try #require(suite.port(of: .database)), "/project")
            #expect(reply.status == 200)
            #expect(reply.text == "demo-wired")
        }
    }

    @Test func exportOnExitCallsTheHookWithExitAsInitiator() throws {
        let seen = CapturedExports()
        var configuration = SuiteConfiguration.ephemeral()
        configuration.exportOnExit = "/tmp/never-written"
        let hooks = SnapshotHooks(importData: { _, _ throws(SnapshotFailure) in }, exportData: { request, _ throws(SnapshotFailure) in seen.append(request) })
        let suite = try Suite.start(configuration, hooks: hooks)
        suite.shutdown()
        #expect(seen.all == [ExportRequest(path: "/tmp/never-written", initiatedBy: "exit", targets: [.firestore, .database])])
    }
}

import EmulatorHTTP
