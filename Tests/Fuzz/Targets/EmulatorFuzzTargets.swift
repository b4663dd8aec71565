import DatabaseEmulator
import EmulatorHTTP
import EmulatorHTTP2
import EmulatorStorage
import FirestoreEmulator
import Glibc
import Synchronization

extension FuzzTargets {
    static let emulatorTargets: [FuzzTarget] = [
        FuzzTarget(
            "firestore-grpc", "Firestore gRPC methods: first byte picks the method, the rest is the message",
            reusing: FirestoreGRPCHarness.shared, fresh: FirestoreGRPCHarness.init),
        FuzzTarget(
            "http-emulators", "HTTP/1.1 requests parsed and sent to the Firestore and RTDB routers",
            reusing: HTTPEmulatorsHarness.shared, fresh: HTTPEmulatorsHarness.init),
        FuzzTarget(
            "rtdb-websocket", "RTDB wire protocol over a WebSocket: each line is one text frame",
            reusing: DatabaseWebSocketHarness.shared, fresh: DatabaseWebSocketHarness.init),
        FuzzTarget(
            "rtdb-long-poll",
            "RTDB long-polling: a start, then each line is the query of one /.lp request ({id} and {pw} name the connection)",
            reusing: DatabaseLongPollHarness.shared, fresh: DatabaseLongPollHarness.init),
    ]

    static let firestoreMethods = [
        "GetDocument", "ListDocuments", "CreateDocument", "UpdateDocument", "DeleteDocument", "BeginTransaction",
        "Commit", "Rollback", "ListCollectionIds", "BatchWrite", "PartitionQuery", "BatchGetDocuments", "RunQuery",
        "RunAggregationQuery", "Listen", "Write",
    ]

    /// A stream's messages: the body cut at each `FF 00` pair.
    static func messages(_ body: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var current: [UInt8] = []
        var i = 0
        while i < body.count {
            if body[i] == 0xFF, i + 1 < body.count, body[i + 1] == 0x00 {
                out.append(current)
                current = []
                i += 2
                continue
            }
            current.append(body[i])
            i += 1
        }
        out.append(current)
        return Array(out.prefix(32))
    }
}

/// An emulator a target builds once per process and reuses for every input: `run` sends it one
/// input and then resets it to a new emulator's state (no data, sessions or rules left), so that
/// an input does what it would do first in a new process and a reproducer replays alone. Building
/// an emulator per input cost more than most inputs, and freeing it on other threads made
/// libFuzzer run a leak check after nearly every input (see docs/FUZZING.md).
///
/// `run` returns what the input got back, coarsely (status codes, wire statuses), for
/// `FuzzTargetTests`, which checks that the reused emulator answers as a new one would.
protocol ReusedEmulator: Sendable {
    func run(_ input: [UInt8]) -> [String]
}

extension FuzzTarget {
    init<Harness: ReusedEmulator>(
        _ name: String, _ summary: String, reusing shared: @autoclosure @escaping @Sendable () -> Harness,
        fresh: @escaping @Sendable () -> Harness
    ) {
        // One input at a time on the shared emulator: its reset after one input must not land in
        // the middle of another (the unit tests run targets on several threads at once).
        let turn = Turn()
        self.init(
            name, summary, run: { input in _ = turn.take { shared().run(input) } },
            outcomes: { input, reused in reused ? turn.take { shared().run(input) } : fresh().run(input) })
    }
}

/// A lock that lets one caller at a time run on a shared emulator.
final class Turn: Sendable {
    private let lock = Mutex(())

    func take<T>(_ body: () -> T) -> T { lock.withLock { _ in body() } }
}

/// Firestore gRPC: one service, its router built once.
final class FirestoreGRPCHarness: ReusedEmulator {
    static let shared = FirestoreGRPCHarness()
    let service = FirestoreService(store: DocumentStore(engine: StorageEngine()))
    let router: GRPCRouter

    init() { router = FirestoreGRPC(service: service).router }

    func run(_ input: [UInt8]) -> [String] {
        defer { service.reset(rules: .allowAll) }
        guard let selector = input.first else { return [] }
        let method = FuzzTargets.firestoreMethods[Int(selector) % FuzzTargets.firestoreMethods.count]
        let path = "/\(FirestoreGRPC.serviceName)/\(method)"
        let context = GRPCCallContext(path: path, metadata: [HeaderField("authorization", "Bearer owner")])
        let body = Array(input.dropFirst())
        // Listen answers from its worker task, after the call returns: not recorded.
        let writer = RecordingMessageWriter(recording: method != "Listen")
        switch router.method(for: path) {
        case .unary(let call):
            switch call(context, body) {
            case .success: writer.record("ok")
            case .failure(let status): writer.record("status \(status.code)")
            }
        case .serverStreaming(let call): writer.record("status \(call(context, body, writer).code)")
        case .unaryLater(let call), .serverStreamingLater(let call):
            // No other call holds a lock: the call answers before it returns.
            call(context, body, writer)
        case .bidirectional(let open):
            // Streams: the input is several messages, cut at 0xFF 0x00 pairs.
            let call = open(context, writer)
            for message in FuzzTargets.messages(body) { call.received(message) }
            call.halfClosed()
            call.cancelled()
        case nil: return []
        }
        return writer.outcomes
    }
}

/// The Firestore and RTDB emulators over one engine, as the suite has them.
final class HTTPEmulatorsHarness: ReusedEmulator {
    static let shared = HTTPEmulatorsHarness()
    let firestore: FirestoreEmulator
    let database: DatabaseEmulator
    let firestoreRouter: Router
    let databaseRouter: Router

    init() {
        let engine = StorageEngine()
        firestore = FirestoreEmulator(storage: engine, configuration: .init(projectID: "fuzz"))
        database = DatabaseEmulator(storage: engine, configuration: .init(defaultNamespace: "fuzz", keepAliveSeconds: nil))
        firestoreRouter = firestore.router
        databaseRouter = database.router
    }

    func run(_ input: [UInt8]) -> [String] {
        defer {
            firestore.reset()
            database.reset()
        }
        var outcomes: [String] = []
        var parser = HTTP1RequestParser(limits: HTTP1Limits())
        parser.append(input)
        while let event = parser.next(), outcomes.count < 16 {
            guard case .request(let parsed) = event else { break }
            // The target's length decides which emulator gets it, as two ports would.
            let router = parsed.request.target.utf8.count % 2 == 0 ? firestoreRouter : databaseRouter
            let response = router.respond(to: parsed.request)
            outcomes.append("\(response.status.code)")
            if case .upgrade(let upgrade) = response.body {
                let handler = upgrade.makeHandler(RecordingConnectionWriter())
                handler.closed()
            }
        }
        return outcomes
    }
}

/// The RTDB behind a WebSocket upgrade.
final class DatabaseWebSocketHarness: ReusedEmulator {
    static let shared = DatabaseWebSocketHarness()
    let database = DatabaseEmulator(storage: StorageEngine(), configuration: .init(defaultNamespace: "fuzz", keepAliveSeconds: nil))
    let router: Router

    init() { router = database.router }

    static let upgrade = HTTPRequest(
        method: .get, target: "/.ws?v=5&ns=fuzz",
        headers: HTTPHeaders([
            ("Host", "127.0.0.1:9000"), ("Connection", "Upgrade"), ("Upgrade", "websocket"),
            ("Sec-WebSocket-Version", "13"), ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ]))

    func run(_ input: [UInt8]) -> [String] {
        defer { database.reset() }
        guard case .upgrade(let upgrade) = router.respond(to: Self.upgrade).body else { return ["no upgrade"] }
        let writer = RecordingConnectionWriter()
        let handler = upgrade.makeHandler(writer)
        for line in FuzzPieces.records(input, limit: 64) {
            handler.received(WebSocketFrame(opcode: .text, payload: line).encoded(maskingKey: (1, 2, 3, 4)))
        }
        handler.closed()
        return writer.outcomes
    }
}

/// The RTDB's long-polling endpoint.
final class DatabaseLongPollHarness: ReusedEmulator {
    static let shared = DatabaseLongPollHarness()
    let database = DatabaseEmulator(storage: StorageEngine(), configuration: DatabaseLongPollHarness.configuration)
    let router: Router

    /// No sweep during a run: the reset ends every connection anyway, and a sweep timer armed by
    /// each input (its block freed when it fires a second later, inside another input) made
    /// libFuzzer count every input as a possible leak and scan the heap. The one timer armed by
    /// the first input never fires. An input's answers never depended on the sweep: it runs a
    /// second after the connection opens, and an input takes milliseconds.
    static var configuration: DatabaseEmulatorConfiguration {
        var configuration = DatabaseEmulatorConfiguration(defaultNamespace: "fuzz", keepAliveSeconds: nil)
        configuration.longPoll.sweepInterval = .seconds(366 * 86_400)
        return configuration
    }

    init() { router = database.router }

    func run(_ input: [UInt8]) -> [String] {
        defer { database.reset() }
        let start = router.respond(to: HTTPRequest(method: .get, target: "/.lp?start=t&ser=1&cb=1&v=5&ns=fuzz"))
        // (function(){…f("start","<id>","<pw>");})();
        let quoted = FuzzPieces.records(start.bodyBytes, separator: UInt8(ascii: "\""), limit: 8)
        let id = quoted.count > 5 ? quoted[5] : [], password = quoted.count > 7 ? quoted[7] : []
        var outcomes: [String] = []
        for line in FuzzPieces.records(input, limit: 64) {
            let query = String(decoding: Self.naming(line, id: id, password: password), as: UTF8.self)
            let response = router.respond(to: HTTPRequest(method: line.first == 0x50 ? .post : .get, target: "/.lp?" + query))
            outcomes.append("\(response.status.code)")
            outcomes += wireStatuses(response.bodyBytes)
            if case .stream(let body) = response.body {
                let writer = CollectingStreamWriter()
                body.start(writer)
                writer.close()  // the client goes away mid-poll
            }
        }
        return outcomes
    }

    /// `line` with every `{id}` and `{pw}` replaced by the connection's id and password. Byte by
    /// byte, and the braces found by `memchr`: the harness's own loops are compiled with
    /// libFuzzer's comparison tracing too (splitting the query as a `String` was a seventh of
    /// the target's time).
    static func naming(_ line: [UInt8], id: [UInt8], password: [UInt8]) -> [UInt8] {
        let idMark = Array("{id}".utf8), passwordMark = Array("{pw}".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(line.count)
        line.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var copied = 0, from = 0
            while from < buffer.count, let found = memchr(base + from, Int32(UInt8(ascii: "{")), buffer.count - from) {
                let at = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
                let mark = buffer[at..<min(at + 4, buffer.count)]
                let replacement = mark.elementsEqual(idMark) ? id : mark.elementsEqual(passwordMark) ? password : nil
                guard let replacement else {
                    from = at + 1
                    continue
                }
                out.append(contentsOf: buffer[copied..<at])
                out.append(contentsOf: replacement)
                copied = at + 4
                from = copied
            }
            out.append(contentsOf: buffer[copied...])
        }
        return out
    }
}

/// The request statuses (`"s":"ok"`, `"s":"permission_denied"`…) in wire-protocol text, in order;
/// session ids (`"s":"emulator-…"`) are left out. The quotes are found by `memchr` (see
/// `DatabaseLongPollHarness.naming`).
func wireStatuses(_ bytes: [UInt8]) -> [String] {
    let marker = Array(#""s":""#.utf8)
    var out: [String] = []
    bytes.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return }
        var i = 0
        while i + marker.count <= buffer.count, let found = memchr(base + i, Int32(UInt8(ascii: "\"")), buffer.count - i) {
            i = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
            guard i + marker.count <= buffer.count, buffer[i..<i + marker.count].elementsEqual(marker) else {
                i += 1
                continue
            }
            i += marker.count
            let start = i
            i = memchr(base + i, Int32(UInt8(ascii: "\"")), buffer.count - i).map {
                UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0))
            } ?? buffer.count
            let value = buffer[start..<i]
            if value.allSatisfy({ (0x61...0x7A).contains($0) || $0 == UInt8(ascii: "_") }) {
                out.append(String(decoding: value, as: UTF8.self))
            }
        }
    }
    return out
}

/// A gRPC writer that drops the messages and keeps what kind of answer each was.
final class RecordingMessageWriter: GRPCCallWriter {
    private let recorded = Mutex<[String]>([])
    let recording: Bool

    init(recording: Bool) { self.recording = recording }

    func record(_ outcome: String) {
        guard recording else { return }
        recorded.withLock { $0.append(outcome) }
    }

    var outcomes: [String] { recorded.withLock { $0 } }

    func send(_ message: [UInt8]) -> Bool {
        record("message")
        return true
    }
    func finish(_ status: GRPCStatus) { record("status \(status.code)") }
    func respond(_ message: [UInt8]) { record("ok") }
    func onCancel(_ handler: @escaping @Sendable () -> Void) {}
    var isOpen: Bool { true }
}

/// An upgraded connection whose peer reads everything, keeping the wire statuses it got.
final class RecordingConnectionWriter: UpgradedConnectionWriter {
    private let recorded = Mutex<[String]>([])

    var outcomes: [String] { recorded.withLock { $0 } }

    func write(_ bytes: [UInt8]) -> Bool {
        let statuses = wireStatuses(bytes)
        if !statuses.isEmpty { recorded.withLock { $0 += statuses } }
        return true
    }
    func close() {}
    var isOpen: Bool { true }
}
