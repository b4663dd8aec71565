import DatabaseEmulator
import EmulatorHTTP
import EmulatorHTTP2
import EmulatorStorage
import FirestoreEmulator

extension FuzzTargets {
    static let emulatorTargets: [FuzzTarget] = [
        FuzzTarget("firestore-grpc", "Firestore gRPC methods: first byte picks the method, the rest is the message") { input in
            guard let selector = input.first else { return }
            let method = firestoreMethods[Int(selector) % firestoreMethods.count]
            let service = FirestoreService(store: DocumentStore(engine: StorageEngine()))
            let grpc = FirestoreGRPC(service: service)
            let path = "/\(FirestoreGRPC.serviceName)/\(method)"
            let context = GRPCCallContext(path: path, metadata: [HeaderField("authorization", "Bearer owner")])
            let body = Array(input.dropFirst())
            switch grpc.router.method(for: path) {
            case .unary(let call): _ = call(context, body)
            case .serverStreaming(let call): _ = call(context, body, DiscardingMessageWriter())
            case .unaryLater(let call), .serverStreamingLater(let call):
                // A fresh service holds no locks: the call answers before it returns.
                call(context, body, DiscardingMessageWriter())
            case .bidirectional(let open):
                // Streams: the input is several messages, cut at 0xFF 0x00 pairs.
                let call = open(context, DiscardingMessageWriter())
                for message in messages(body) { call.received(message) }
                call.halfClosed()
                call.cancelled()
            case nil: return
            }
        },
        FuzzTarget("http-emulators", "HTTP/1.1 requests parsed and sent to the Firestore and RTDB routers") { input in
            let engine = StorageEngine()
            let firestore = FirestoreEmulator(storage: engine, configuration: .init(projectID: "fuzz"))
            let database = DatabaseEmulator(storage: engine, configuration: .init(defaultNamespace: "fuzz"))
            var parser = HTTP1RequestParser(limits: HTTP1Limits())
            parser.append(input)
            var sent = 0
            while let event = parser.next(), sent < 16 {
                guard case .request(let parsed) = event else { break }
                sent += 1
                // The target's length decides which emulator gets it, as two ports would.
                let router = parsed.request.target.utf8.count % 2 == 0 ? firestore.router : database.router
                if case .upgrade(let upgrade) = router.respond(to: parsed.request).body {
                    let handler = upgrade.makeHandler(DiscardingConnectionWriter())
                    handler.closed()
                }
            }
        },
        FuzzTarget("rtdb-websocket", "RTDB wire protocol over a WebSocket: each line is one text frame") { input in
            let database = DatabaseEmulator(storage: StorageEngine(), configuration: .init(defaultNamespace: "fuzz"))
            let request = HTTPRequest(
                method: .get, target: "/.ws?v=5&ns=fuzz",
                headers: HTTPHeaders([
                    ("Host", "127.0.0.1:9000"), ("Connection", "Upgrade"), ("Upgrade", "websocket"),
                    ("Sec-WebSocket-Version", "13"), ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
                ]))
            guard case .upgrade(let upgrade) = database.router.respond(to: request).body else { return }
            let handler = upgrade.makeHandler(DiscardingConnectionWriter())
            for line in FuzzPieces.records(input).prefix(64) {
                handler.received(WebSocketFrame(opcode: .text, payload: line).encoded(maskingKey: (1, 2, 3, 4)))
            }
            handler.closed()
        },
        FuzzTarget(
            "rtdb-long-poll",
            "RTDB long-polling: a start, then each line is the query of one /.lp request ({id} and {pw} name the connection)"
        ) { input in
            let database = DatabaseEmulator(storage: StorageEngine(), configuration: .init(defaultNamespace: "fuzz", keepAliveSeconds: nil))
            let start = database.router.respond(to: HTTPRequest(method: .get, target: "/.lp?start=t&ser=1&cb=1&v=5&ns=fuzz"))
            // (function(){…f("start","<id>","<pw>");})();
            let quoted = String(decoding: start.bodyBytes, as: UTF8.self).split(separator: "\"", omittingEmptySubsequences: false)
            let id = quoted.count > 5 ? String(quoted[5]) : "", password = quoted.count > 7 ? String(quoted[7]) : ""
            for line in FuzzPieces.records(input).prefix(64) {
                var query = String(decoding: line, as: UTF8.self)
                query = query.split(separator: "{id}", omittingEmptySubsequences: false).joined(separator: id)
                query = query.split(separator: "{pw}", omittingEmptySubsequences: false).joined(separator: password)
                let response = database.router.respond(to: HTTPRequest(method: line.first == 0x50 ? .post : .get, target: "/.lp?" + query))
                if case .stream(let body) = response.body {
                    let writer = CollectingStreamWriter()
                    body.start(writer)
                    writer.close()  // the client goes away mid-poll
                }
            }
        },
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

/// A gRPC writer that accepts and drops every message.
final class DiscardingMessageWriter: GRPCCallWriter {
    func send(_ message: [UInt8]) -> Bool { true }
    func finish(_ status: GRPCStatus) {}
    func respond(_ message: [UInt8]) {}
    func onCancel(_ handler: @escaping @Sendable () -> Void) {}
    var isOpen: Bool { true }
}

/// An upgraded connection whose peer reads and drops everything.
final class DiscardingConnectionWriter: UpgradedConnectionWriter {
    func write(_ bytes: [UInt8]) -> Bool { true }
    func close() {}
    var isOpen: Bool { true }
}
