import EmulatorHTTP
import EmulatorModel
import EmulatorSupport
import Synchronization
import Testing

@testable import FirestoreEmulator

/// runQuery and batchGet over REST: the JSON array is made as the connection has room (sent
/// chunked), as gRPC paces them (see StreamedQueryTests), so a client that reads nothing holds
/// about one piece; the bytes are those of the whole array.
@Suite struct RESTStreamedQueryTests {
    /// A client that reads only when told: it keeps what was written, and has no room for more
    /// until `read()`.
    final class SlowReader: HTTPStreamWriter {
        struct State {
            var bytes: [UInt8] = []
            var finished = false
            var resume: (@Sendable () -> Void)?
        }

        let state = Mutex(State())

        func write(_ bytes: [UInt8]) -> Bool {
            state.withLock { s in
                s.bytes += bytes
                return !s.finished
            }
        }

        func finish() { state.withLock { $0.finished = true } }
        var isOpen: Bool { state.withLock { !$0.finished } }
        func onClose(_ handler: @escaping @Sendable () -> Void) {}

        func deferUntilRoom(_ resume: @escaping @Sendable () -> Void) -> Bool {
            state.withLock { $0.resume = resume }
            return true
        }

        var written: Int { state.withLock { $0.bytes.count } }

        /// Reads everything; returns the body once finished.
        func readAll() -> [UInt8] {
            while let resume = state.withLock({ s in defer { s.resume = nil }; return s.resume }) { resume() }
            return state.withLock { $0.finished ? $0.bytes : [] }
        }
    }

    static let root = StreamedQueryTests.root

    static func withoutReadTimes(_ body: [UInt8]) -> String {
        String(decoding: body, as: UTF8.self).replacing(/"readTime":"[^"]*"/, with: #""readTime":"""#)
    }

    func post(_ client: FirestoreTestClient, _ method: String, _ body: String) -> HTTPResponse {
        client.emulator.router.respond(to: HTTPRequest(
            method: .post, target: "/v1/projects/demo/databases/(default)/documents\(method)",
            headers: HTTPHeaders([("Authorization", "Bearer owner")]), body: Array(body.utf8)))
    }

    /// Starts `response`'s paced body with a client that reads nothing; returns what it got then
    /// and the whole body once it reads.
    func unreadThenRead(_ response: HTTPResponse) throws -> (whileUnread: Int, body: [UInt8]) {
        guard case .stream(let stream) = response.body else {
            Issue.record("not streamed")
            return (0, [])
        }
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        let reader = SlowReader()
        stream.start(reader)
        let whileUnread = reader.written
        return (whileUnread, reader.readAll())
    }

    @Test func aQueryForAClientThatDoesNotReadHoldsAboutOnePiece() throws {
        let client = FirestoreTestClient(service: try StreamedQueryTests.seeded())
        let query = #"{"structuredQuery":{"from":[{"collectionId":"c"}]}}"#
        let (whileUnread, body) = try unreadThenRead(post(client, ":runQuery", query))
        // Before: the whole 7.5 MiB array was built before the first byte went out.
        #expect(whileUnread < 256 * 1024, "\(whileUnread) bytes made for a client that reads nothing")
        // The bytes are those of the whole answer (an in-process caller takes it at once), but
        // for the read time, which is each query's own.
        let whole = post(client, ":runQuery", query).resolved().bodyBytes
        let same = Self.withoutReadTimes(body) == Self.withoutReadTimes(whole)
        #expect(same, "the paced answer differs from the whole one")
        guard case .array(let items) = try JSONReader.parse(body) else {
            Issue.record("not an array")
            return
        }
        #expect(items.count == StreamedQueryTests.documentCount)
        let names = items.compactMap { item -> String? in
            guard case .string(let name)? = item[member: "document"]?[member: "name"] else { return nil }
            return name
        }
        #expect(names == (0..<StreamedQueryTests.documentCount).map { Self.root + "/c/" + StreamedQueryTests.name($0) })
        #expect(Set(items.compactMap { $0[member: "readTime"] }).count == 1)
    }

    @Test func batchGetIsPacedToo() throws {
        let client = FirestoreTestClient(service: try StreamedQueryTests.seeded())
        let names = (0..<StreamedQueryTests.documentCount).map { "\"\(Self.root)/c/\(StreamedQueryTests.name($0))\"" }
        let request = #"{"documents":[\#(names.joined(separator: ",")),"\#(Self.root)/c/missing"],"newTransaction":{}}"#
        let (whileUnread, body) = try unreadThenRead(post(client, ":batchGet", request))
        #expect(whileUnread < 256 * 1024)
        guard case .array(let items) = try JSONReader.parse(body) else {
            Issue.record("not an array")
            return
        }
        #expect(items.count == StreamedQueryTests.documentCount + 2)
        #expect(items.first?[member: "transaction"] != nil)
        #expect(items.last?[member: "missing"] == .string(Self.root + "/c/missing"))
    }

    @Test func smallAnswersAreTheArraysTheyWere() throws {
        let client = FirestoreTestClient()
        client.set([("c/a", #"{"n":{"integerValue":"1"}}"#)])
        let empty = post(client, ":runQuery", #"{"structuredQuery":{"from":[{"collectionId":"none"}]}}"#).resolved().bodyText
        #expect(empty.hasPrefix(#"[{"readTime":""#) && empty.hasSuffix(#"Z"}]"#))
        let none = post(client, ":batchGet", #"{"documents":[]}"#).resolved().bodyText
        #expect(none == "[]")
        let one = post(client, ":runQuery", #"{"structuredQuery":{"from":[{"collectionId":"c"}]}}"#).resolved().bodyText
        #expect(one.hasPrefix(#"[{"document":{"name":"\#(Self.root)/c/a","fields":{"n":{"integerValue":"1"}},"#))
        #expect(one.hasSuffix(#"Z"}]"#))
    }
}
