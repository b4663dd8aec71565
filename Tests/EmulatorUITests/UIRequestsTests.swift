import EmulatorHTTP
import EmulatorSupport
import SecurityRules
import Synchronization
import Testing
@testable import EmulatorUI

@Suite("Emulator UI Requests endpoints")
struct UIRequestsTests {
    static func client(_ log: RulesRequestLog?) -> InProcessClient {
        var environment = UIRouterTests.environment()
        environment.requests = log
        return InProcessClient(handler: UIRouter.handler(environment))
    }

    static func record(_ outcome: RulesOutcome, path: String, uid: String?, lines: [RulesLineOutcome] = []) -> RulesRequestRecord {
        RulesRequestRecord(
            time: 1_000, emulator: "firestore", outcome: outcome, lines: lines, message: outcome == .deny ? "false for 'get' @ L3" : "",
            debugOutput: outcome == .allow ? ["\"x\""] : [], rules: RulesSourceText(fileName: "firestore.rules", text: "a\nb\nc"),
            describe: {
                RulesRequestDescription(
                    method: "get", path: path, uid: uid, request: .object([JSONMember("method", .string("get"))]),
                    resource: .object([JSONMember("data", .object([]))]))
            })
    }

    static func requests(_ value: JSONValue) -> [JSONValue] {
        if case .array(let items)? = value[member: "requests"] { return items }
        return []
    }

    @Test func listsDecisionsAfterACursor() throws {
        let log = RulesRequestLog(capacity: 10)
        log.record(Self.record(.allow, path: "/a", uid: "alice"))
        log.record(Self.record(.deny, path: "/b", uid: nil))
        let client = Self.client(log)
        let all = try JSONReader.parse(client.get("/api/requests").bodyBytes)
        #expect(all[member: "recording"] == .bool(true))
        #expect(all[member: "last"] == .int(2))
        let items = Self.requests(all)
        #expect(items.count == 2)
        #expect(items[0][member: "uid"] == .string("alice"))
        #expect(items[1][member: "uid"] == .null)
        #expect(items[1][member: "outcome"] == .string("deny"))
        #expect(items[1][member: "emulator"] == .string("firestore"))
        let newer = try JSONReader.parse(client.get("/api/requests?after=1").bodyBytes)
        #expect(Self.requests(newer).map { $0[member: "path"] } == [.string("/b")])
        // `limit` keeps the newest.
        let last = try JSONReader.parse(client.get("/api/requests?after=0&limit=1").bodyBytes)
        #expect(Self.requests(last).map { $0[member: "seq"] } == [.int(2)])
    }

    @Test func detailCarriesRulesLinesRequestAndDebug() throws {
        let log = RulesRequestLog()
        log.record(Self.record(.deny, path: "/b", uid: "u", lines: [RulesLineOutcome(line: 3, column: 5, outcome: .deny)]))
        let response = Self.client(log).get("/api/requests/1")
        #expect(response.status == .ok)
        let detail = try JSONReader.parse(response.bodyBytes)
        #expect(detail[member: "message"] == .string("false for 'get' @ L3"))
        #expect(detail[member: "lines"] == .array([.object([
            JSONMember("line", .int(3)), JSONMember("column", .int(5)), JSONMember("outcome", .string("deny")),
        ])]))
        #expect(detail[member: "rules"]?[member: "text"] == .string("a\nb\nc"))
        #expect(detail[member: "request"]?[member: "method"] == .string("get"))
        #expect(detail[member: "resource"]?[member: "data"] == .object([]))
        #expect(Self.client(log).get("/api/requests/99").status == .notFound)
        #expect(Self.client(log).get("/api/requests/abc").status == .notFound)
    }

    @Test func theRingKeepsTheNewestAndSaysWhatWasDropped() throws {
        let log = RulesRequestLog(capacity: 3)
        for i in 1...5 { log.record(Self.record(.allow, path: "/\(i)", uid: nil)) }
        let page = try JSONReader.parse(Self.client(log).get("/api/requests?after=1").bodyBytes)
        #expect(Self.requests(page).map { $0[member: "path"] } == [.string("/3"), .string("/4"), .string("/5")])
        #expect(page[member: "skipped"] == .bool(true))
        #expect(log.record(1) == nil)
    }

    @Test func withoutALogNothingIsRecorded() throws {
        let page = try JSONReader.parse(Self.client(nil).get("/api/requests").bodyBytes)
        #expect(page[member: "recording"] == .bool(false))
        #expect(Self.requests(page).isEmpty)
    }

    @Test(arguments: [
        ([(String, String)](), false),
        ([("Origin", "http://evil.example")], false),
        ([("Origin", UIRouterTests.own)], true),
    ])
    func clearingNeedsTheOwnOrigin(headers: [(String, String)], allowed: Bool) throws {
        let log = RulesRequestLog()
        log.record(Self.record(.allow, path: "/a", uid: nil))
        let response = Self.client(log).delete("/api/requests", headers: headers)
        #expect(response.status == (allowed ? .ok : .forbidden))
        #expect(log.records(after: 0).records.isEmpty == allowed)
    }

    @Test func readingMarksTheLogWatched() {
        let now = Mutex(Int64(100_000))
        let log = RulesRequestLog(clock: { now.withLock { $0 } })
        #expect(!log.isWatched)
        _ = Self.client(log).get("/api/requests")
        #expect(log.isWatched)
        now.withLock { $0 += RulesRequestLog.watchWindow }
        #expect(!log.isWatched)
    }

    @Test func theRequestsViewPathServesThePage() {
        #expect(Self.client(nil).get("/requests").status == .ok)
    }

    /// A detail stays small whatever the rules saw: big objects, arrays and strings are cut.
    @Test func detailsCutLargeValues() throws {
        let log = RulesRequestLog(capacity: 10)
        let big = JSONValue.object((0..<5_000).map { JSONMember("k\($0)", .int(Int64($0))) })
        let long = String(repeating: "é", count: 3_000)
        log.record(
            RulesRequestRecord(
                time: 1, emulator: "database", outcome: .allow, rules: nil,
                describe: {
                    RulesRequestDescription(
                        method: "read", path: "/big", uid: nil, request: .object([JSONMember("note", .string(long))]),
                        resource: .object([JSONMember("data", big)]))
                }))
        let detail = try JSONReader.parse(Self.client(log).get("/api/requests/1").bodyBytes)
        guard case .object(let data)? = detail[member: "resource"]?[member: "data"] else {
            Issue.record("no data")
            return
        }
        #expect(data.count < UIRequests.detailValues + 1)
        #expect(data.last?.name == "…")
        guard case .string(let note)? = detail[member: "request"]?[member: "note"] else {
            Issue.record("no note")
            return
        }
        #expect(note.utf8.count < UIRequests.detailStringBytes + 40)
        #expect(note.hasSuffix("… (6000 bytes)"))
        // Small values pass unchanged.
        var budget = 10
        #expect(UIRequests.bounded(.array([.int(1), .string("x")]), budget: &budget) == .array([.int(1), .string("x")]))
    }
}
