import Dispatch
import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf
import EmulatorStorage
import Synchronization
import Testing

@testable import FirestoreEmulator

/// Collects what a handler sends; `wait()` blocks until the call finished (a handler waiting for
/// a lock finishes from another thread).
final class CollectingWriter: GRPCCallWriter {
    let state = Mutex<(messages: [[UInt8]], status: GRPCStatus?, cancel: [@Sendable () -> Void])>(([], nil, []))
    let done = DispatchSemaphore(value: 0)
    func send(_ message: [UInt8]) -> Bool { state.withLock { $0.messages.append(message); return $0.status == nil } }
    func finish(_ status: GRPCStatus) {
        let first = state.withLock { s -> Bool in
            guard s.status == nil else { return false }
            s.status = status
            s.cancel = []
            return true
        }
        if first { done.signal() }
    }
    func respond(_ message: [UInt8]) {
        _ = send(message)
        finish(.ok)
    }
    func onCancel(_ handler: @escaping @Sendable () -> Void) { state.withLock { $0.cancel.append(handler) } }
    /// The client goes away: runs the cancel handlers.
    func cancel() {
        for h in state.withLock({ s in defer { s.cancel = [] }; return s.cancel }) { h() }
    }
    var isOpen: Bool { state.withLock { $0.status == nil } }
    var messages: [[UInt8]] { state.withLock { $0.messages } }
    var status: GRPCStatus? { state.withLock { $0.status } }
    func wait() {
        done.wait()
        done.signal()
    }
}

/// Calls the Firestore gRPC methods in process, as grpcio would after HTTP/2 framing.
struct GRPCTestClient {
    let service: FirestoreService
    let router: GRPCRouter
    let database = "projects/demo/databases/(default)"
    var root: String { database + "/documents" }

    /// The bearer token every call sends.
    var token = "owner"

    init(service: FirestoreService = FirestoreService(store: DocumentStore(engine: StorageEngine())), token: String = "owner") {
        self.init(FirestoreGRPC(service: service), token: token)
    }

    /// A client of `grpc`'s methods (a test that looks at its caches keeps it).
    init(_ grpc: FirestoreGRPC, token: String = "owner") {
        self.service = grpc.service
        self.token = token
        router = grpc.router
    }

    var context: GRPCCallContext {
        GRPCCallContext(path: "", metadata: [HeaderField("authorization", "Bearer \(token)")])
    }

    func unary(_ method: String, _ body: (inout ProtoWriter) -> Void) -> Result<[UInt8], GRPCStatus> {
        let writer = start(method, body)
        writer.wait()
        guard let status = writer.status else { return .failure(GRPCStatus(2)) }
        guard status.code == 0 else { return .failure(status) }
        return .success(writer.messages.first ?? [])
    }

    /// Starts a unary call and returns its writer at once (the call may still wait for a lock).
    func start(_ method: String, _ body: (inout ProtoWriter) -> Void) -> CollectingWriter {
        let writer = CollectingWriter()
        var w = ProtoWriter()
        body(&w)
        switch router.method(for: "/google.firestore.v1.Firestore/\(method)") {
        case .unaryLater(let handler)?, .serverStreamingLater(let handler)?: handler(context, w.bytes, writer)
        default: writer.finish(GRPCStatus(12))
        }
        return writer
    }

    func stream(_ method: String, _ body: (inout ProtoWriter) -> Void) -> (messages: [[UInt8]], status: GRPCStatus) {
        let writer = start(method, body)
        writer.wait()
        return (writer.messages, writer.status ?? GRPCStatus(2))
    }

    /// Commits `set` writes of `fields` to each path.
    @discardableResult
    func set(_ docs: [(String, ValueMap)]) -> Result<[UInt8], GRPCStatus> {
        unary("Commit") { w in
            w.string(1, database)
            for (path, fields) in docs {
                w.message(2) { $0.message(1) { ProtoDocument(name: root + "/" + path, fields: fields).write(to: &$0) } }
            }
        }
    }

    /// Fields of a message, as (field, bytes-or-varint) pairs.
    static func fields(_ bytes: [UInt8]) throws -> [(Int, [UInt8])] {
        var r = ProtoReader(bytes)
        var out: [(Int, [UInt8])] = []
        while let (f, w) = try r.next() {
            switch w {
            case .lengthDelimited: out.append((f, try r.bytes()))
            case .varint: out.append((f, [UInt8(truncatingIfNeeded: try r.varint())]))
            default: try r.skip(w); out.append((f, []))
            }
        }
        return out
    }
}

@Suite("Firestore over gRPC (protobuf in, protobuf out)")
struct GRPCServiceTests {
    @Test func commitFromHandEncodedBytesThenGet() throws {
        let client = GRPCTestClient()
        let db = Array("projects/demo/databases/(default)".utf8)
        let name = Array("projects/demo/databases/(default)/documents/c/x".utf8)
        // Document { name, fields { key "a" value { integer_value: 1 } } }
        let document: [UInt8] = [0x0A, UInt8(name.count)] + name + [0x12, 0x07, 0x0A, 0x01, 0x61, 0x12, 0x02, 0x10, 0x01]
        let write: [UInt8] = [0x0A, UInt8(document.count)] + document
        let request: [UInt8] = [0x0A, UInt8(db.count)] + db + [0x12, UInt8(write.count)] + write
        guard case .unaryLater(let commit)? = client.router.method(for: "/google.firestore.v1.Firestore/Commit") else {
            Issue.record("Commit not registered")
            return
        }
        let writer = CollectingWriter()
        commit(client.context, request, writer)
        writer.wait()
        #expect(writer.status?.code == 0)
        let response = writer.messages.first ?? []
        let fields = try GRPCTestClient.fields(response)
        #expect(fields.map(\.0) == [1, 2])  // one write_result, commit_time

        let got = try client.unary("GetDocument") { $0.string(1, client.root + "/c/x") }.get()
        let doc = try ProtoDocument(ProtoReader(got))
        #expect(doc.name == client.root + "/c/x")
        #expect(doc.fields == ["a": .integer(1)])
        #expect(doc.createTime != nil && doc.createTime == doc.updateTime)
    }

    @Test func errorsCarryTheServiceStatusAndMessage() throws {
        let client = GRPCTestClient()
        let missing = client.unary("GetDocument") { $0.string(1, client.root + "/c/nope") }
        guard case .failure(let status) = missing else {
            Issue.record("expected NOT_FOUND")
            return
        }
        #expect(status.code == 5)
        #expect(status.message.contains("c/nope"))

        let update = client.unary("Commit") { w in
            w.string(1, client.database)
            w.message(2) { wr in
                wr.message(1) { ProtoDocument(name: client.root + "/c/nope", fields: ["a": .integer(1)]).write(to: &$0) }
                wr.message(4) { $0.bool(1, true) }
            }
        }
        guard case .failure(let s2) = update else {
            Issue.record("expected NOT_FOUND for update of a missing document")
            return
        }
        #expect(s2.code == 5)
        #expect(s2.message.hasPrefix("No document to update"))
    }

    @Test func malformedProtobufIsInvalidArgument() {
        let client = GRPCTestClient()
        guard case .failure(let status) = client.unary("Commit", { $0.raw([0x0A, 0x09, 0x61]) }) else {
            Issue.record("accepted a truncated message")
            return
        }
        #expect(status.code == 3)
    }

    @Test func runQueryStreamsDocumentsInOrder() throws {
        let client = GRPCTestClient()
        client.set([("c/b", ["n": .integer(2)]), ("c/a", ["n": .integer(1)]), ("c/z", ["n": .integer(0)])])
        let (messages, status) = client.stream("RunQuery") { w in
            w.string(1, client.root)
            w.message(2) { q in
                q.message(2) { $0.string(2, "c") }
                q.message(3) { f in  // where n > 0
                    f.message(2) { ff in
                        ff.message(1) { $0.string(2, "n") }
                        ff.int32(2, 3)
                        ff.message(3) { ProtoValue.write(.integer(0), to: &$0) }
                    }
                }
                q.message(4) { o in
                    o.message(1) { $0.string(2, "n") }
                    o.int32(2, 2)
                }
            }
        }
        #expect(status == .ok)
        let names = try messages.map { m -> String in
            let doc = try GRPCTestClient.fields(m).first { $0.0 == 1 }?.1 ?? []
            return try ProtoDocument(ProtoReader(doc)).name
        }
        #expect(names == [client.root + "/c/b", client.root + "/c/a"])

        let (empty, _) = client.stream("RunQuery") { w in
            w.string(1, client.root)
            w.message(2) { $0.message(2) { $0.string(2, "none") } }
        }
        #expect(empty.count == 1)
        #expect(try GRPCTestClient.fields(empty[0]).map(\.0) == [3])  // read_time only
    }

    @Test func batchGetReportsFoundAndMissingWithReadTime() throws {
        let client = GRPCTestClient()
        client.set([("c/a", ["v": .boolean(true)])])
        let (messages, status) = client.stream("BatchGetDocuments") { w in
            w.string(1, client.database)
            w.string(2, client.root + "/c/a")
            w.string(2, client.root + "/c/b")
        }
        #expect(status == .ok)
        #expect(try messages.map { try GRPCTestClient.fields($0).map(\.0) } == [[1, 4], [2, 4]])
    }

    @Test func transactionBeginCommitAndRollback() throws {
        let client = GRPCTestClient()
        let begun = try client.unary("BeginTransaction") { $0.string(1, client.database) }.get()
        let id = try GRPCTestClient.fields(begun).first { $0.0 == 1 }?.1 ?? []
        #expect(!id.isEmpty)
        let committed = client.unary("Commit") { w in
            w.string(1, client.database)
            w.message(2) { $0.message(1) { ProtoDocument(name: client.root + "/t/1", fields: [:]).write(to: &$0) } }
            w.bytes(3, id)
        }
        #expect((try? committed.get()) != nil)
        // The transaction has ended: rolling it back answers OK (as production does), committing
        // it again is INVALID_ARGUMENT, and so is rolling back an id never issued.
        #expect((try? client.unary("Rollback", { w in w.string(1, client.database); w.bytes(2, id) }).get()) != nil)
        guard case .failure(let again) = client.unary("Commit", { w in w.string(1, client.database); w.bytes(3, id) }) else {
            Issue.record("a committed transaction committed again")
            return
        }
        #expect(again.code == 3)
        guard case .failure(let unknown) = client.unary("Rollback", { w in w.string(1, client.database); w.bytes(2, [1, 2, 3]) }) else {
            Issue.record("rollback of an unknown transaction succeeded")
            return
        }
        #expect(unknown.code == 3)
    }

    @Test func aggregationCountsAndSums() throws {
        let client = GRPCTestClient()
        client.set([("c/a", ["n": .integer(2)]), ("c/b", ["n": .integer(3)])])
        let (messages, status) = client.stream("RunAggregationQuery") { w in
            w.string(1, client.root)
            w.message(2) { a in
                a.message(1) { $0.message(2) { $0.string(2, "c") } }
                a.message(3) { c in c.message(1) { _ in }; c.string(7, "total") }
                a.message(3) { s in s.message(2) { $0.message(1) { $0.string(2, "n") } } }
            }
        }
        #expect(status == .ok)
        let result = try GRPCTestClient.fields(messages[0]).first { $0.0 == 1 }?.1 ?? []
        var r = ProtoReader(result)
        #expect(try ProtoValue.readFields(&r, field: 2) == ["total": .integer(2), "field_1": .integer(5)])
    }

    @Test func unsupportedMethodsAnswerUnimplemented() {
        let client = GRPCTestClient()
        #expect(client.router.method(for: "/google.firestore.v1.Firestore/ExecutePipeline") == nil)
    }

    @Test func writeStreamHandshakeThenCommits() throws {
        let client = GRPCTestClient()
        let writer = CollectingWriter()
        let call = FirestoreWriteCall(service: client.service, caller: .owner, writer: writer)
        var hello = ProtoWriter()
        hello.string(1, client.database)
        call.received(hello.bytes)
        let handshake = try GRPCTestClient.fields(writer.messages[0])
        #expect(handshake.map(\.0) == [1, 2])  // stream_id, stream_token
        let token = handshake[1].1

        var commit = ProtoWriter()
        commit.bytes(4, token)
        commit.message(3) { $0.message(1) { ProtoDocument(name: client.root + "/w/1", fields: ["a": .integer(1)]).write(to: &$0) } }
        call.received(commit.bytes)
        let answer = try GRPCTestClient.fields(writer.messages[1])
        #expect(answer.map(\.0) == [2, 3, 4])  // new token, one write result, commit time
        #expect(answer[0].1 != token)
        #expect((try? client.unary("GetDocument") { $0.string(1, client.root + "/w/1") }.get()) != nil)

        call.halfClosed()
        #expect(writer.status == .ok)
    }

    @Test func writeStreamWithoutTokenFails() {
        let client = GRPCTestClient()
        let writer = CollectingWriter()
        let call = FirestoreWriteCall(service: client.service, caller: .owner, writer: writer)
        var hello = ProtoWriter()
        hello.string(1, client.database)
        call.received(hello.bytes)
        call.received(hello.bytes)
        #expect(writer.status?.code == 3)
    }
}
