#if canImport(Glibc)
import Glibc
#endif
import EmulatorHTTP
import EmulatorHTTP2
import EmulatorPosix
import EmulatorProtobuf
import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import EmulatorTestSupport
import Testing

@testable import EmulatorSuite

/// `--data-dir` over gRPC and RTDB WebSockets: a write is acknowledged once its journal record is
/// durable, and waiting for that never stalls the event loop the connection lives on.
@Suite(.serialized) struct DurableRepliesEndToEndTests {
    static let project = "demo-live"
    static let documentName = "projects/demo-live/databases/(default)/documents/c/d"

    private func configuration(_ directory: TemporaryDirectory) -> SuiteConfiguration {
        var configuration = SuiteConfiguration.ephemeral(projectId: Self.project, kinds: [.database, .firestore])
        configuration.dataDirectory = directory.path + "/live"
        return configuration
    }

    private func get(_ port: Int, _ path: String, timeout: Duration = .seconds(5)) throws -> LoopbackHTTPClient.Reply {
        try LoopbackHTTPClient.send(.init(method: "GET", host: "127.0.0.1", port: port, path: path, timeout: timeout))
    }

    /// A gRPC `Commit` of `c/d` with field `s` = `value`.
    static func commit(_ value: String) -> [UInt8] {
        var request = ProtoWriter()
        request.string(1, "projects/\(project)/databases/(default)")
        request.message(2) { w in
            w.message(1) { ProtoDocument(name: documentName, fields: ["s": .string(value)]).write(to: &$0) }
        }
        return HTTP2Connection.preface + GRPCLoopbackTests.call(path: "/google.firestore.v1.Firestore/Commit", request.bytes)
    }

    static func wirePut(_ r: Int, _ path: String, _ json: String) -> String {
        #"{"t":"d","d":{"r":\#(r),"a":"p","b":{"p":"\#(path)","d":\#(json)}}}"#
    }

    static func ok(_ r: Int, _ data: String = #""""#) -> String {
        #"{"t":"d","d":{"r":\#(r),"b":{"s":"ok","d":\#(data)}}}"#
    }

    // MARK: A real data directory

    @Test func grpcCommitIsJournaledWhenAcknowledgedAndSurvivesARestart() throws {
        let directory = TemporaryDirectory()
        do {
            let suite = try Suite.start(configuration(directory))
            defer { suite.shutdown() }
            let port = try #require(suite.port(of: .firestore))
            let socket = try H2TestSocket(port: port)
            try socket.send(Self.commit("acked-grpc-value"))
            let trailers = try #require(try socket.trailers(of: 1, within: 5_000))
            #expect(trailers.first("grpc-status") == "0")
            #expect(directory.journalBytes().contains(text: "acked-grpc-value"))
        }
        let suite = try Suite.start(configuration(directory))
        defer { suite.shutdown() }
        let port = try #require(suite.port(of: .firestore))
        let read = try get(port, "/v1/\(Self.documentName)")
        #expect(read.status == 200)
        #expect(read.text.contains("acked-grpc-value"))
    }

    @Test func webSocketPutIsJournaledWhenAcknowledgedAndSurvivesARestart() throws {
        let directory = TemporaryDirectory()
        let ns = "\(Self.project)-default-rtdb"
        do {
            let suite = try Suite.start(configuration(directory))
            defer { suite.shutdown() }
            let port = try #require(suite.port(of: .database))
            let client = try #require(WireSocketClient(port: port, target: "/.ws?v=5&ns=\(ns)"))
            _ = client.nextMessage()  // hello
            client.send(Self.wirePut(1, "/rooms/a", #""acked-ws-value""#))
            client.send(Self.wirePut(2, "/rooms/b", #""second-ws-value""#))
            #expect(client.nextMessage() == Self.ok(1))
            #expect(directory.journalBytes().contains(text: "acked-ws-value"))
            #expect(client.nextMessage() == Self.ok(2))
            #expect(directory.journalBytes().contains(text: "second-ws-value"))
        }
        let suite = try Suite.start(configuration(directory))
        defer { suite.shutdown() }
        let port = try #require(suite.port(of: .database))
        #expect(try get(port, "/rooms.json?ns=\(ns)").text == #"{"a":"acked-ws-value","b":"second-ws-value"}"#)
    }

    // MARK: A sync held open

    /// One event loop for every connection of these tests (loop threads live for the process).
    static let oneLoop: EventLoopGroup? = try? EventLoopGroup(loopCount: 1)

    /// Firestore and the Realtime Database served as the suite serves them with a data directory,
    /// on one loop, over an engine whose log is `log`.
    static func serve(_ log: HeldCommitLog) throws -> (firestore: RunningServer, database: RunningServer) {
        let group = try #require(oneLoop)
        var context = EmulatorContext(projectId: project, console: Console(verbosity: .silent))
        context.replyGate = DurableAcknowledgement.replyGate
        context.storage.setCommitLog(log)
        let firestore = EmulatorRegistry.firestoreEndpoint(context)
        let database = EmulatorRegistry.databaseRouter(context)
        let f = try HTTPServer.start(
            ServerConfiguration(port: 0, http2Handler: firestore.http2Handler), group: group,
            handler: DurableAcknowledgement.deferring(firestore.router.respond(to:)))
        let d = try HTTPServer.start(
            ServerConfiguration(port: 0), group: group, handler: DurableAcknowledgement.deferring(database.respond(to:)))
        return (f, d)
    }

    /// Waits up to 2 s for `log` to hold `n` records.
    static func waitForAppends(_ log: HeldCommitLog, _ n: UInt64) -> Bool {
        log.waitUntilAppended(n, seconds: 2)
    }

    @Test func aGRPCCommitWaitingForItsSyncDoesNotStallItsLoop() throws {
        // A commit that blocked its thread would hold the loop for 8 s.
        let log = HeldCommitLog(blockLimitMicroseconds: 8_000_000)
        let (firestore, database) = try Self.serve(log)
        defer {
            firestore.shutdown(gracePeriod: .zero)
            database.shutdown(gracePeriod: .zero)
        }
        let writer = try H2TestSocket(port: firestore.port)
        try writer.send(Self.commit("held-grpc-value"))
        #expect(Self.waitForAppends(log, 1))

        // Other connections on the same loop are served meanwhile, and see the write.
        let read = try get(firestore.port, "/v1/\(Self.documentName)", timeout: .seconds(3))
        #expect(read.text.contains("held-grpc-value"))
        let reader = try H2TestSocket(port: firestore.port)
        var request = ProtoWriter()
        request.string(1, Self.documentName)
        try reader.send(HTTP2Connection.preface + GRPCLoopbackTests.call(path: "/google.firestore.v1.Firestore/GetDocument", request.bytes))
        #expect(try reader.trailers(of: 1, within: 3_000)?.first("grpc-status") == "0")
        #expect(log.blockingWaits == 0)

        // The writer's answer waits for the sync.
        #expect(try writer.trailers(of: 1, within: 200) == nil)
        log.release()
        #expect(try writer.trailers(of: 1, within: 5_000)?.first("grpc-status") == "0")
    }

    @Test func writeStreamResponsesWaitForTheSyncAndKeepTheirOrder() throws {
        let log = HeldCommitLog(blockLimitMicroseconds: 8_000_000)
        let (firestore, database) = try Self.serve(log)
        defer {
            firestore.shutdown(gracePeriod: .zero)
            database.shutdown(gracePeriod: .zero)
        }
        let socket = try H2TestSocket(port: firestore.port)
        var encoder = HPACKEncoder(huffman: true)
        let block = encoder.encode([
            HeaderField(":method", "POST"), HeaderField(":scheme", "http"), HeaderField(":path", "/google.firestore.v1.Firestore/Write"),
            HeaderField(":authority", "127.0.0.1"), HeaderField("content-type", "application/grpc"), HeaderField("te", "trailers"),
            HeaderField("authorization", "Bearer owner"),
        ])
        func data(_ message: [UInt8]) -> [UInt8] {
            let framed = GRPCMessageDeframer.frame(message)
            return HTTP2FrameEncoder.encode(.data(stream: 1, payload: framed, endStream: false, flowControlledLength: framed.count))
        }
        var handshake = ProtoWriter()
        handshake.string(1, "projects/\(Self.project)/databases/(default)")
        try socket.send(
            HTTP2Connection.preface + HTTP2FrameEncoder.encode(.settings(ack: false, []))
                + HTTP2FrameEncoder.encode(.headers(stream: 1, block: block, endStream: false, endHeaders: true)) + data(handshake.bytes))
        #expect(try socket.messages(of: 1, count: 1, within: 3_000).count == 1)

        // A write (held), then an empty request (a token refresh, committing nothing).
        var write = ProtoWriter()
        write.string(1, "projects/\(Self.project)/databases/(default)")
        write.message(3) { w in
            w.message(1) { ProtoDocument(name: Self.documentName, fields: ["s": .string("write-stream")]).write(to: &$0) }
        }
        write.bytes(4, [0, 0, 0, 0, 0, 0, 0, 1])
        var refresh = ProtoWriter()
        refresh.bytes(4, [0, 0, 0, 0, 0, 0, 0, 2])
        try socket.send(data(write.bytes) + data(refresh.bytes))
        #expect(Self.waitForAppends(log, 1))
        #expect(try socket.messages(of: 1, count: 2, within: 300).count == 1)
        #expect(log.blockingWaits == 0)

        log.release()
        let responses = try socket.messages(of: 1, count: 3, within: 3_000)
        try #require(responses.count == 3)
        // The write's response (with its write result, field 3) comes before the refresh's.
        var reader = ProtoReader(responses[1])
        var hasResult = false
        while let (field, wire) = try reader.next() {
            if field == 3 { hasResult = true }
            try reader.skip(wire)
        }
        #expect(hasResult)
        #expect(responses[2].count < responses[1].count)
    }

    @Test func aWebSocketPutWaitingForItsSyncDoesNotStallItsLoop() throws {
        let log = HeldCommitLog(blockLimitMicroseconds: 8_000_000)
        let (firestore, database) = try Self.serve(log)
        defer {
            firestore.shutdown(gracePeriod: .zero)
            database.shutdown(gracePeriod: .zero)
        }
        let ns = "\(Self.project)-default-rtdb"
        let writer = try #require(WireSocketClient(port: database.port, target: "/.ws?v=5&ns=\(ns)"))
        _ = writer.nextMessage()
        writer.send(Self.wirePut(1, "/held", #""ws-value""#))
        #expect(Self.waitForAppends(log, 1))
        // A read on the same socket waits behind the held put's ok.
        writer.send(#"{"t":"d","d":{"r":2,"a":"g","b":{"p":"/held","q":{}}}}"#)

        // Another socket on the same loop connects and is answered meanwhile.
        let reader = try #require(WireSocketClient(port: database.port, target: "/.ws?v=5&ns=\(ns)"))
        #expect(reader.nextMessage()?.contains(#""t":"h""#) == true)
        reader.send(#"{"t":"d","d":{"r":1,"a":"g","b":{"p":"/held","q":{}}}}"#)
        #expect(reader.nextMessage() == Self.ok(1, #""ws-value""#))
        #expect(log.blockingWaits == 0)

        #expect(writer.isQuiet(milliseconds: 200))
        log.release()
        #expect(writer.messages(2) == [Self.ok(1), Self.ok(2, #""ws-value""#)])
    }

    @Test func aSocketClosedWithAHeldAckDropsItAndTheLoopGoesOn() throws {
        let log = HeldCommitLog(blockLimitMicroseconds: 8_000_000)
        let (firestore, database) = try Self.serve(log)
        defer {
            firestore.shutdown(gracePeriod: .zero)
            database.shutdown(gracePeriod: .zero)
        }
        let ns = "\(Self.project)-default-rtdb"
        do {
            let writer = try #require(WireSocketClient(port: database.port, target: "/.ws?v=5&ns=\(ns)"))
            _ = writer.nextMessage()
            writer.send(Self.wirePut(1, "/gone", "1"))
            #expect(Self.waitForAppends(log, 1))
            writer.drop()
        }
        let grpc = try H2TestSocket(port: firestore.port)
        try grpc.send(Self.commit("closed-case"))
        #expect(Self.waitForAppends(log, 2))
        grpc.abort()
        // Give the loop time to see both closes, then complete the syncs: nothing to answer.
        usleep(100_000)
        log.release()
        let reader = try #require(WireSocketClient(port: database.port, target: "/.ws?v=5&ns=\(ns)"))
        _ = reader.nextMessage()
        reader.send(#"{"t":"d","d":{"r":1,"a":"g","b":{"p":"/gone","q":{}}}}"#)
        #expect(reader.nextMessage() == Self.ok(1, "1"))
        #expect(log.blockingWaits == 0)
    }
}
