#if canImport(Glibc)
import Glibc
#endif
import EmulatorHTTP
import EmulatorSupport
import EmulatorTestSupport
import Testing
@testable import EmulatorSuite

@Suite("Hub")
struct HubTests {
    private func directory() -> HubDirectory {
        let directory = HubDirectory(version: "0.1.0", pid: 42)
        directory.register(.firestore, host: "127.0.0.1", port: 8080)
        directory.register(.hub, host: "127.0.0.1", port: 4400)
        return directory
    }

    private func get(_ router: Router, _ target: String) -> HTTPResponse {
        router.respond(to: HTTPRequest(method: .get, target: target))
    }

    @Test func rootAnswersTheLocatorPlusHostAndPortPrettyPrinted() {
        let router = HubRouter.make(directory: directory()) { _ throws(SnapshotFailure) in }
        let response = get(router, "/")
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(String(decoding: response.bodyBytes, as: UTF8.self) == """
            {
              "version": "0.1.0",
              "origins": [
                "http://127.0.0.1:4400"
              ],
              "pid": 42,
              "host": "127.0.0.1",
              "port": 4400
            }
            """)
    }

    @Test func emulatorsListsEveryListenerWithItsAddress() throws {
        let router = HubRouter.make(directory: directory()) { _ throws(SnapshotFailure) in }
        let value = try JSONReader.parse(get(router, "/emulators").bodyBytes)
        guard case .object(let members) = value else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.name) == ["firestore", "hub"])
        #expect(value[member: "firestore"] == .object([
            JSONMember("listen", .array([.object([
                JSONMember("address", .string("127.0.0.1")), JSONMember("family", .string("IPv4")),
                JSONMember("port", .int(8080)),
            ])])),
            JSONMember("name", .string("firestore")), JSONMember("host", .string("127.0.0.1")),
            JSONMember("port", .int(8080)), JSONMember("pid", .int(42)),
        ]))
    }

    @Test func aLocalhostListenerListsBothLoopbacksAndTheHubBothOrigins() throws {
        let directory = HubDirectory(version: "0.1.0", pid: 42)
        directory.register(.database, host: "127.0.0.1", port: 9000, addresses: ["127.0.0.1", "::1"])
        directory.register(.hub, host: "127.0.0.1", port: 4400, addresses: ["127.0.0.1", "::1"])
        #expect(directory.origins == ["http://127.0.0.1:4400", "http://[::1]:4400"])
        let router = HubRouter.make(directory: directory) { _ throws(SnapshotFailure) in }
        let value = try JSONReader.parse(get(router, "/emulators").bodyBytes)
        #expect(value[member: "database"]?[member: "listen"] == .array([
            .object([
                JSONMember("address", .string("127.0.0.1")), JSONMember("family", .string("IPv4")),
                JSONMember("port", .int(9000)),
            ]),
            .object([
                JSONMember("address", .string("::1")), JSONMember("family", .string("IPv6")),
                JSONMember("port", .int(9000)),
            ]),
        ]))
        #expect(value[member: "database"]?[member: "host"] == .string("127.0.0.1"))
    }

    @Test func exportCallsTheHookWithTheRunningTargets() {
        let seen = CapturedExports()
        let router = HubRouter.make(directory: directory()) { request throws(SnapshotFailure) in seen.append(request) }
        var request = HTTPRequest(method: .post, target: "/_admin/export", body: Array(#"{"path":"/tmp/out","initiatedBy":"emulators:export","targets":["firestore","database"]}"#.utf8))
        var response = router.respond(to: request)
        #expect(response.status == .ok)
        #expect(String(decoding: response.bodyBytes, as: UTF8.self) == "{\n  \"message\": \"OK\"\n}")
        #expect(seen.all == [ExportRequest(path: "/tmp/out", initiatedBy: "emulators:export", targets: [.firestore])])

        request.headers.add("Origin", "http://evil.example")
        response = router.respond(to: request)
        #expect(response.status == .forbidden)
        #expect(seen.all.count == 1)

        // A page on the user's own machine (the Emulator UI, a dev server) may.
        request.headers = HTTPHeaders([("Origin", "http://127.0.0.1:4000")])
        #expect(router.respond(to: request).status == .ok)
        #expect(seen.all.count == 2)
    }

    @Test func exportAnswers501UntilSnapshotsLandAnd400ForBadBodies() {
        let router = HubRouter.make(directory: directory()) { _ throws(SnapshotFailure) in
            throw SnapshotFailure(.notImplemented, "Exporting data is not implemented yet")
        }
        let good = router.respond(to: HTTPRequest(method: .post, target: "/_admin/export", body: Array(#"{"path":"/x"}"#.utf8)))
        #expect(good.status == .notImplemented)
        let bad = router.respond(to: HTTPRequest(method: .post, target: "/_admin/export", body: Array("{}".utf8)))
        #expect(bad.status == .badRequest)
        let relative = router.respond(to: HTTPRequest(method: .post, target: "/_admin/export", body: Array(#"{"path":"out"}"#.utf8)))
        #expect(relative.status == .badRequest)
    }
}

extension HubTests {
    @Test func preflightsFromBrowsersAreAnsweredIncludingPrivateNetworkAccess() {
        let handler = HubRouter.handler(HubRouter.make(directory: directory()) { _ throws(SnapshotFailure) in })
        var request = HTTPRequest(method: .options, target: "/emulators")
        request.headers.add("Origin", "https://app.example")
        request.headers.add("Access-Control-Request-Method", "GET")
        request.headers.add("Access-Control-Request-Private-Network", "true")
        let response = handler(request)
        #expect(response.status.code < 300)
        #expect(response.headers["Access-Control-Allow-Origin"] == "https://app.example")
        #expect(response.headers["Access-Control-Allow-Private-Network"] == "true")
    }
}

extension HubTests {
    /// A deferred export runs off the caller's thread: the hub answers other requests while it
    /// runs, the answer arrives when it ends, and two exports never overlap.
    @Test func deferredExportsRunOneAtATimeWhileTheHubKeepsAnswering() {
        let gate = ExportGate()
        let router = HubRouter.make(directory: directory(), deferExports: true) { request throws(SnapshotFailure) in
            gate.run(request.path)
        }
        let post = { (path: String) in
            router.respond(to: HTTPRequest(method: .post, target: "/_admin/export", body: Array(#"{"path":"\#(path)"}"#.utf8)))
        }
        let first = post("/tmp/one")
        let second = post("/tmp/two")
        guard case .deferred = first.body, case .deferred = second.body else {
            Issue.record("the export was answered before it ran")
            return
        }
        // The first export is running (and holds its turn) until the gate opens.
        #expect(gate.waitUntilStarted(1))
        #expect(get(router, "/emulators").status == .ok)
        usleep(20_000)
        #expect(gate.started == 1, "the second export must wait for the first")
        gate.open()
        let answers = [first.resolved(), second.resolved()]
        #expect(answers.map(\.status) == [.ok, .ok])
        #expect(String(decoding: answers[0].bodyBytes, as: UTF8.self) == "{\n  \"message\": \"OK\"\n}")
        #expect(gate.started == 2)
        #expect(gate.mostAtOnce == 1)
    }

    @Test func aDeferredExportThatFailsAnswers500WithItsMessage() {
        let router = HubRouter.make(directory: directory(), deferExports: true) { _ throws(SnapshotFailure) in
            throw SnapshotFailure(.failed, "disk full")
        }
        let response = router.respond(to: HTTPRequest(method: .post, target: "/_admin/export", body: Array(#"{"path":"/x"}"#.utf8)))
        guard case .deferred = response.body else {
            Issue.record("the export was not deferred")
            return
        }
        let answer = response.resolved()
        #expect(answer.status == .internalServerError)
        #expect(String(decoding: answer.bodyBytes, as: UTF8.self).contains("disk full"))
    }
}

/// An export hook that blocks until the test opens it, counting how many run at once.
final class ExportGate: Sendable {
    private struct State {
        var open = false
        var running = 0
        var started = 0
        var mostAtOnce = 0
        var finished = 0
    }
    private let state = Watched(State())

    func run(_ path: String) {
        state.update { s in
            s.running += 1
            s.started += 1
            s.mostAtOnce = max(s.mostAtOnce, s.running)
        }
        // Bounded, so a broken hub fails the test instead of hanging it.
        state.wait { $0.open }
        state.update { s in
            s.running -= 1
            s.finished += 1
        }
    }

    func open() { state.update { $0.open = true } }
    func close() { state.update { $0.open = false } }
    var finished: Int { state.current.finished }
    var started: Int { state.current.started }
    var mostAtOnce: Int { state.current.mostAtOnce }

    func waitUntilStarted(_ count: Int) -> Bool {
        state.wait(seconds: 5) { $0.started >= count }
    }
}

final class CapturedExports: Sendable {
    private let requests = Synchronization.Mutex<[ExportRequest]>([])
    func append(_ request: ExportRequest) { requests.withLock { $0.append(request) } }
    var all: [ExportRequest] { requests.withLock { $0 } }
}

import Synchronization

@Suite("Hub locator file")
struct HubLocatorTests {
    private let document: JSONValue = .object([JSONMember("version", .string("0.1.0")), JSONMember("origins", .array([])), JSONMember("pid", .int(1))])

    @Test func writtenThenRemovedByItsOwner() {
        let directory = TemporaryDirectory()
        let locator = HubLocator(directory: directory.path, projectId: "demo-a", pid: Int(getpid()))
        #expect(locator.path == directory.path + "/hub-demo-a.json")
        let ours: JSONValue = .object([JSONMember("pid", .int(Int64(getpid())))])
        #expect(locator.claim(ours) == .written)
        #expect(HubLocator.read(locator.path) == ours)
        locator.release()
        #expect(LocalFiles.kind(locator.path) == .missing)
    }

    @Test func aLiveOwnerKeepsTheFile() {
        let directory = TemporaryDirectory()
        // pid 1 is always alive.
        let other = HubLocator(directory: directory.path, projectId: "demo-b", pid: 1)
        #expect(other.claim(document) == .written)
        let ours = HubLocator(directory: directory.path, projectId: "demo-b", pid: Int(getpid()))
        #expect(ours.claim(.object([JSONMember("pid", .int(Int64(getpid())))])) == .ownedByLiveProcess(1))
        ours.release()
        #expect(HubLocator.read(ours.path) == document)
    }

    @Test func aStaleFileIsReplaced() {
        let directory = TemporaryDirectory()
        let stale: JSONValue = .object([JSONMember("pid", .int(Int64(Int32.max - 7)))])
        LocalFiles.write(JSONWriter.encode(stale), to: directory.path + "/hub-demo-c.json")
        let ours = HubLocator(directory: directory.path, projectId: "demo-c", pid: Int(getpid()))
        #expect(ours.claim(.object([JSONMember("pid", .int(Int64(getpid())))])) == .written)
    }
}

extension HubTests {
    /// `withFunctionTriggersDisabled` calls these; with no Functions emulator the official hub
    /// answers 400 (JSON for disable, text for enable), and so does ours.
    @Test func functionTriggerSwitchesAnswerThatNoFunctionsEmulatorRuns() {
        let router = HubRouter.make(directory: directory()) { _ throws(SnapshotFailure) in }
        let disable = router.respond(to: HTTPRequest(method: .put, target: "/functions/disableBackgroundTriggers"))
        #expect(disable.status == .badRequest)
        #expect(String(decoding: disable.bodyBytes, as: UTF8.self).contains(#""error": "The Cloud Functions emulator is not running.""#))
        let enable = router.respond(to: HTTPRequest(method: .put, target: "/functions/enableBackgroundTriggers"))
        #expect(enable.status == .badRequest)
        #expect(String(decoding: enable.bodyBytes, as: UTF8.self) == "The Cloud Functions emulator is not running.")
        let get = router.respond(to: HTTPRequest(method: .get, target: "/functions/disableBackgroundTriggers"))
        #expect(get.status.code == 405)
    }
}
