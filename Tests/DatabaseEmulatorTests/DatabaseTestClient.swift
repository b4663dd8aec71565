import DatabaseEmulator
import EmulatorHTTP
import EmulatorStorage
import EmulatorSupport
import SecurityRules
import Synchronization

/// An emulator plus an in-process client, with JSON helpers. Every request goes through the router.
struct DatabaseTestClient {
    let emulator: DatabaseEmulator
    let client: InProcessClient
    let clock: TestClock
    let storage: StorageEngine

    init(
        now: Int64 = 1_700_000_000_000, storage: StorageEngine = StorageEngine(keepsHistory: { _ in false }),
        replyGate: ReplyGate? = nil, requestLog: RulesRequestLog? = nil
    ) {
        let clock = TestClock(now)
        self.clock = clock
        self.storage = storage
        var configuration = DatabaseEmulatorConfiguration(
            defaultNamespace: "demo-default-rtdb", now: { clock.now }, keepAliveSeconds: nil, replyGate: replyGate)
        configuration.requestLog = requestLog
        emulator = DatabaseEmulator(storage: storage, configuration: configuration)
        client = InProcessClient(router: emulator.router)
    }

    static let owner: [(String, String)] = [("Authorization", "Bearer owner")]

    @discardableResult
    func send(_ method: HTTPMethod, _ target: String, _ body: String? = nil, headers: [(String, String)] = [])
        -> HTTPResponse
    {
        client.send(HTTPRequest(method: method, target: target, headers: HTTPHeaders(headers), body: Array((body ?? "").utf8)))
    }

    @discardableResult
    func put(_ target: String, _ body: String, headers: [(String, String)] = []) -> HTTPResponse {
        send(.put, target, body, headers: headers)
    }

    @discardableResult
    func patch(_ target: String, _ body: String, headers: [(String, String)] = []) -> HTTPResponse {
        send(.patch, target, body, headers: headers)
    }

    @discardableResult
    func post(_ target: String, _ body: String, headers: [(String, String)] = []) -> HTTPResponse {
        send(.post, target, body, headers: headers)
    }

    @discardableResult
    func delete(_ target: String, headers: [(String, String)] = []) -> HTTPResponse {
        send(.delete, target, headers: headers)
    }

    func get(_ target: String, headers: [(String, String)] = []) -> HTTPResponse {
        send(.get, target, headers: headers)
    }

    /// The JSON value of a GET.
    func value(_ target: String) -> JSONValue? {
        json(get(target))
    }

    func stream(_ target: String, headers: [(String, String)] = []) -> InProcessClient.StreamedResponse {
        client.stream(HTTPRequest(method: .get, target: target, headers: HTTPHeaders([("Accept", "text/event-stream")] + headers)))
    }
}

/// Parses a response body (nil when it is not JSON).
func json(_ response: HTTPResponse) -> JSONValue? {
    try? JSONReader.parse(response.bodyBytes)
}

/// Parses JSON text written in a test.
func j(_ text: String) -> JSONValue? {
    try? JSONReader.parse(text)
}

/// The `error` member of an error body.
func errorText(_ response: HTTPResponse) -> String? {
    if case .string(let s)? = json(response)?[member: "error"] { return s }
    return nil
}

/// A settable clock for server time.
final class TestClock: Sendable {
    private let value: Mutex<Int64>
    init(_ start: Int64) { value = Mutex(start) }
    var now: Int64 { value.withLock { $0 } }
    func set(_ ms: Int64) { value.withLock { $0 = ms } }
}

/// Events parsed from an SSE transcript: (event name, data JSON).
func events(_ text: String) -> [(name: String, data: JSONValue?)] {
    text.split(separator: "\n\n", omittingEmptySubsequences: true).compactMap { block in
        var name = ""
        var data = ""
        for line in block.split(separator: "\n") {
            if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
        }
        return name.isEmpty ? nil : (name, j(data))
    }
}
