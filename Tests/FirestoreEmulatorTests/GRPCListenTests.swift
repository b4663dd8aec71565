import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf
import Testing

@testable import FirestoreEmulator

@Suite("Listen over gRPC")
struct GRPCListenTests {
    /// A ListenResponse reduced to what clients act on.
    enum Response: Hashable {
        case target(type: Int32, ids: [Int32], hasReadTime: Bool)
        case change(name: String, ids: [Int32])
        case delete(name: String)
        case remove(name: String)
        case filter(id: Int32, count: Int32)
    }

    static func decode(_ bytes: [UInt8]) throws -> Response? {
        var r = ProtoReader(bytes)
        guard let (field, _) = try r.next() else { return nil }
        var m = try r.message()
        var type: Int32 = 0
        var ids: [Int32] = []
        var readTime = false
        var name = ""
        var count: Int32 = 0
        while let (f, w) = try m.next() {
            switch (field, f) {
            case (2, 1): type = try m.int32()
            case (2, 2), (3, 5): try m.repeatedInt32(w, into: &ids)
            case (2, 6): readTime = true; try m.skip(w)
            case (3, 1): name = try ProtoDocument(m.message()).name
            case (4, 1), (6, 1): name = try m.string()
            case (5, 1): ids = [try m.int32()]
            case (5, 2): count = try m.int32()
            default: try m.skip(w)
            }
        }
        switch field {
        case 2: return .target(type: type, ids: ids, hasReadTime: readTime)
        case 3: return .change(name: name, ids: ids)
        case 4: return .delete(name: name)
        case 6: return .remove(name: name)
        case 5: return .filter(id: ids.first ?? 0, count: count)
        default: return nil
        }
    }

    /// A Listen call as the owner on a fresh test database, and the writer collecting its responses.
    /// The caller ends it (`defer { call.cancelled() }`).
    static func listen() -> (GRPCTestClient, CollectingWriter, FirestoreListenCall) {
        let client = GRPCTestClient()
        let writer = CollectingWriter()
        return (client, writer, FirestoreListenCall(service: client.service, caller: .owner, writer: writer))
    }

    /// A ListenRequest (database, field 1) adding one target (field 2) whose fields `target` writes.
    static func addTarget(_ client: GRPCTestClient, _ target: (inout ProtoWriter) -> Void) -> [UInt8] {
        var w = ProtoWriter()
        w.string(1, client.database)
        w.message(2, target)
        return w.bytes
    }

    static func addDocuments(_ client: GRPCTestClient, id: Int32, _ paths: [String]) -> [UInt8] {
        addTarget(client) { t in
            t.message(3) { d in for p in paths { d.string(2, client.root + "/" + p) } }
            t.int32(5, id)
        }
    }

    static func addQuery(_ client: GRPCTestClient, id: Int32, collection: String, resumeToken: [UInt8]? = nil) -> [UInt8] {
        addTarget(client) { t in
            t.message(2) { q in
                q.string(1, client.root)
                q.message(2) { $0.message(2) { $0.string(2, collection) } }
            }
            if let resumeToken { t.bytes(4, resumeToken) }
            t.int32(5, id)
        }
    }

    /// Waits until `writer` holds at least `count` messages (the worker runs asynchronously).
    static func responses(_ writer: CollectingWriter, count: Int) async throws -> [Response] {
        for _ in 0..<400 where writer.messages.count < count { try await Task.sleep(for: .milliseconds(5)) }
        return try writer.messages.compactMap(decode)
    }

    @Test func queryTargetGetsInitialSnapshotThenChanges() async throws {
        let (client, writer, call) = Self.listen()
        client.set([("c/a", ["n": .integer(1)])])
        defer { call.cancelled() }
        call.received(Self.addQuery(client, id: 0x5079, collection: "c"))
        let initial = try await Self.responses(writer, count: 4)
        #expect(initial == [
            .target(type: 1, ids: [0x5079], hasReadTime: false),
            .change(name: client.root + "/c/a", ids: [0x5079]),
            .target(type: 3, ids: [0x5079], hasReadTime: false),
            .target(type: 0, ids: [], hasReadTime: true),
        ])

        client.set([("c/b", ["n": .integer(2)])])
        let afterAdd = try await Self.responses(writer, count: 6)
        #expect(Array(afterAdd.dropFirst(4)) == [.change(name: client.root + "/c/b", ids: [0x5079]), .target(type: 0, ids: [], hasReadTime: true)])

        _ = client.unary("Commit") { w in
            w.string(1, client.database)
            w.message(2) { $0.string(2, client.root + "/c/a") }
        }
        let afterDelete = try await Self.responses(writer, count: 8)
        #expect(Array(afterDelete.dropFirst(6)) == [.delete(name: client.root + "/c/a"), .target(type: 0, ids: [], hasReadTime: true)])
    }

    @Test func documentTargetForMissingDocumentThenDelete() async throws {
        let (client, writer, call) = Self.listen()
        defer { call.cancelled() }
        call.received(Self.addDocuments(client, id: 2, ["c/d"]))
        #expect(try await Self.responses(writer, count: 3) == [
            .target(type: 1, ids: [2], hasReadTime: false),
            .target(type: 3, ids: [2], hasReadTime: false),
            .target(type: 0, ids: [], hasReadTime: true),
        ])
        client.set([("c/d", [:])])
        #expect(Array(try await Self.responses(writer, count: 5).dropFirst(3)).first == .change(name: client.root + "/c/d", ids: [2]))
        _ = client.unary("Commit") { w in
            w.string(1, client.database)
            w.message(2) { $0.string(2, client.root + "/c/d") }
        }
        #expect(Array(try await Self.responses(writer, count: 7).dropFirst(5)).first == .delete(name: client.root + "/c/d"))
    }

    @Test func removeTargetAnswersRemoveAndStopsChanges() async throws {
        let (client, writer, call) = Self.listen()
        defer { call.cancelled() }
        call.received(Self.addQuery(client, id: 4, collection: "c"))
        _ = try await Self.responses(writer, count: 3)
        var w = ProtoWriter()
        w.string(1, client.database)
        w.int32(3, 4)
        call.received(w.bytes)
        #expect(try await Self.responses(writer, count: 4).last == .target(type: 2, ids: [4], hasReadTime: false))
        client.set([("c/x", [:])])
        try await Task.sleep(for: .milliseconds(50))
        #expect(writer.messages.count == 4)
    }

    @Test func resumedTargetIsResetFirst() async throws {
        let (client, writer, call) = Self.listen()
        defer { call.cancelled() }
        call.received(
            Self.addTarget(client) { t in
                t.message(3) { $0.string(2, client.root + "/c/a") }
                t.bytes(4, [0, 0, 0, 0, 0, 0, 0, 1])
                t.int32(5, 6)
            })
        let responses = try await Self.responses(writer, count: 2)
        #expect(Array(responses.prefix(2)) == [.target(type: 1, ids: [6], hasReadTime: false), .target(type: 4, ids: [6], hasReadTime: false)])
    }

    /// The resume token of the last CURRENT among `writer`'s messages.
    static func lastResumeToken(_ writer: CollectingWriter) throws -> [UInt8] {
        var token: [UInt8] = []
        for message in writer.messages {
            var r = ProtoReader(message)
            guard let (field, _) = try r.next(), field == 2 else { continue }
            var m = try r.message()
            var type: Int32 = 0
            var found: [UInt8] = []
            while let (f, w) = try m.next() {
                switch f {
                case 1: type = try m.int32()
                case 4: found = try m.bytes()
                default: try m.skip(w)
                }
            }
            if type == 3 { token = found }
        }
        return token
    }

    /// The cause code of each target REMOVE among `writer`'s messages.
    static func removeCauses(_ writer: CollectingWriter) throws -> [Int32] {
        var codes: [Int32] = []
        for message in writer.messages {
            var r = ProtoReader(message)
            guard let (field, _) = try r.next(), field == 2 else { continue }
            var m = try r.message()
            var type: Int32 = 0
            var code: Int32 = 0
            while let (f, w) = try m.next() {
                switch f {
                case 1: type = try m.int32()
                case 3:
                    var c = try m.message()
                    while let (cf, cw) = try c.next() { if cf == 1 { code = try c.int32() } else { try c.skip(cw) } }
                default: try m.skip(w)
                }
            }
            if type == 2 { codes.append(code) }
        }
        return codes
    }

    /// Listens to collection `c` (target 1) until CURRENT, then closes: the resume token.
    static func tokenAfterFirstListen(_ client: GRPCTestClient, documents: [String]? = nil) async throws -> [UInt8] {
        let writer = CollectingWriter()
        let call = FirestoreListenCall(service: client.service, caller: .owner, writer: writer)
        defer { call.cancelled() }
        call.received(documents.map { Self.addDocuments(client, id: 1, $0) } ?? Self.addQuery(client, id: 1, collection: "c"))
        for _ in 0..<400 where try lastResumeToken(writer).isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        return try lastResumeToken(writer)
    }

    static func delete(_ client: GRPCTestClient, _ path: String) {
        _ = client.unary("Commit") { w in
            w.string(1, client.database)
            w.message(2) { $0.string(2, client.root + "/" + path) }
        }
    }

    @Test func resumeWithinHistoryGetsOnlyTheChangesSince() async throws {
        let client = GRPCTestClient()
        client.set([("c/a", ["n": 1]), ("c/b", ["n": 2]), ("c/keep", ["n": 3])])
        let token = try await Self.tokenAfterFirstListen(client)
        #expect(token.count == 16)
        client.set([("c/a", ["n": 10])])
        Self.delete(client, "c/b")
        client.set([("c/new", ["n": 4])])

        let writer = CollectingWriter()
        let resumed = FirestoreListenCall(service: client.service, caller: .owner, writer: writer)
        defer { resumed.cancelled() }
        resumed.received(Self.addQuery(client, id: 1, collection: "c", resumeToken: token))
        let responses = try await Self.responses(writer, count: 7)
        #expect(responses.first == .target(type: 1, ids: [1], hasReadTime: false))
        #expect(!responses.contains(.target(type: 4, ids: [1], hasReadTime: false)))
        #expect(Set(responses.dropFirst().prefix(3)) == [
            .change(name: client.root + "/c/a", ids: [1]), .change(name: client.root + "/c/new", ids: [1]),
            .delete(name: client.root + "/c/b"),  // deleted since the token: DocumentDelete, not DocumentRemove
        ])
        // The existence filter counts what the target matches now: a, keep and new.
        #expect(Array(responses.dropFirst(4)) == [
            .filter(id: 1, count: 3), .target(type: 3, ids: [1], hasReadTime: false), .target(type: 0, ids: [], hasReadTime: true),
        ])
    }

    @Test func resumedDocumentsTargetHearsTheDeleteAndReadTimeResumesToo() async throws {
        let client = GRPCTestClient()
        client.set([("c/a", ["n": 1]), ("c/b", ["n": 2])])
        let token = try await Self.tokenAfterFirstListen(client, documents: ["c/a", "c/b"])
        guard case .time(let time) = ListenEvent.resumePoint(token, DatabaseID(project: "demo", database: "(default)"), epoch: client.service.listenHub.epoch)
        else {
            Issue.record("not a token of this run: \(token)")
            return
        }
        Self.delete(client, "c/a")

        for resume in [{ (t: inout ProtoWriter) in t.bytes(4, token) }, { (t: inout ProtoWriter) in ProtoValue.writeTimestamp(11, microseconds: time, to: &t) }] {
            let writer = CollectingWriter()
            let call = FirestoreListenCall(service: client.service, caller: .owner, writer: writer)
            defer { call.cancelled() }
            call.received(Self.addTarget(client) { t in
                t.message(3) { d in for p in ["c/a", "c/b"] { d.string(2, client.root + "/" + p) } }
                resume(&t)
                t.int32(5, 2)
            })
            #expect(try await Self.responses(writer, count: 5) == [
                .target(type: 1, ids: [2], hasReadTime: false), .delete(name: client.root + "/c/a"), .filter(id: 2, count: 1),
                .target(type: 3, ids: [2], hasReadTime: false), .target(type: 0, ids: [], hasReadTime: true),
            ])
        }
    }

    @Test func aTokenOfAnEarlierRunGetsResetAndTheWholeResult() async throws {
        let client = GRPCTestClient()
        client.set([("c/a", ["n": 1])])
        let token = try await Self.tokenAfterFirstListen(client)
        // The same token as a restarted emulator (another service, another epoch) sees it.
        let restarted = GRPCTestClient()
        restarted.set([("c/b", ["n": 2])])
        let writer = CollectingWriter()
        let call = FirestoreListenCall(service: restarted.service, caller: .owner, writer: writer)
        defer { call.cancelled() }
        call.received(Self.addQuery(restarted, id: 1, collection: "c", resumeToken: token))
        #expect(try await Self.responses(writer, count: 5) == [
            .target(type: 1, ids: [1], hasReadTime: false), .target(type: 4, ids: [1], hasReadTime: false),
            .change(name: restarted.root + "/c/b", ids: [1]), .target(type: 3, ids: [1], hasReadTime: false),
            .target(type: 0, ids: [], hasReadTime: true),
        ])
    }

    @Test(arguments: ["garbled", "another database", "future"])
    func badResumeTokenRemovesTheTargetWithInvalidArgument(kind: String) async throws {
        let (client, writer, call) = Self.listen()
        defer { call.cancelled() }
        client.set([("c/a", ["n": 1])])
        let token: [UInt8] = switch kind {
        case "garbled": [1, 2, 3]
        case "another database":
            ListenEvent.resumeToken(
                client.service.store.currentTime(), DatabaseID(project: "other", database: "(default)"), epoch: client.service.listenHub.epoch)
        default:
            ListenEvent.resumeToken(
                client.service.store.currentTime() + 3_600_000_000, DatabaseID(project: "demo", database: "(default)"),
                epoch: client.service.listenHub.epoch)
        }
        call.received(Self.addTarget(client) { t in
            t.message(3) { $0.string(2, client.root + "/c/a") }
            t.bytes(4, token)
            t.int32(5, 3)
        })
        #expect(try await Self.responses(writer, count: 2) == [
            .target(type: 1, ids: [3], hasReadTime: false), .target(type: 2, ids: [3], hasReadTime: false),
        ])
        #expect(try Self.removeCauses(writer) == [3])
        // The stream goes on: another target still works.
        call.received(Self.addDocuments(client, id: 4, ["c/a"]))
        #expect(try await Self.responses(writer, count: 6).dropFirst(2).first == .target(type: 1, ids: [4], hasReadTime: false))
        #expect(writer.status == nil)
    }

    @Test func badRequestEndsTheStreamWithInvalidArgument() {
        let (_, writer, call) = Self.listen()
        defer { call.cancelled() }
        call.received([0x0A, 0x03, 0x78])
        #expect(writer.status?.code == 3)
    }

    /// A resumed `limit` query: the existence filter counts the window as it is now, which is
    /// what a client holds once it applied the changes since its token.
    @Test func aResumedLimitQueryCountsItsWindow() async throws {
        let client = GRPCTestClient()
        client.set([("c/a", ["n": 1]), ("c/b", ["n": 2]), ("c/c", ["n": 3])])
        func limited(_ token: [UInt8]?) -> [UInt8] {
            Self.addTarget(client) { t in
                t.message(2) { q in
                    q.string(1, client.root)
                    q.message(2) { sq in
                        sq.message(2) { $0.string(2, "c") }
                        sq.message(5) { $0.int32(1, 2) }
                    }
                }
                if let token { t.bytes(4, token) }
                t.int32(5, 1)
            }
        }
        let first = CollectingWriter()
        let call = FirestoreListenCall(service: client.service, caller: .owner, writer: first)
        call.received(limited(nil))
        for _ in 0..<400 where try Self.lastResumeToken(first).isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        let token = try Self.lastResumeToken(first)
        call.cancelled()
        #expect(try first.messages.compactMap(Self.decode).contains { if case .filter = $0 { true } else { false } } == false)
        Self.delete(client, "c/a")

        let writer = CollectingWriter()
        let resumed = FirestoreListenCall(service: client.service, caller: .owner, writer: writer)
        defer { resumed.cancelled() }
        resumed.received(limited(token))
        #expect(try await Self.responses(writer, count: 6) == [
            .target(type: 1, ids: [1], hasReadTime: false), .change(name: client.root + "/c/c", ids: [1]),
            .delete(name: client.root + "/c/a"), .filter(id: 1, count: 2),
            .target(type: 3, ids: [1], hasReadTime: false), .target(type: 0, ids: [], hasReadTime: true),
        ])
    }

    /// The filter on both wires: proto field 5 and ProtoJSON `filter`, zero values left out.
    @Test func existenceFilterEncodings() throws {
        #expect(try Self.decode(ListenResponse.encode(.existenceFilter(target: 7, count: 300))) == .filter(id: 7, count: 300))
        #expect(ListenResponse.encode(.existenceFilter(target: 7, count: 0)) == [0x2A, 0x02, 0x08, 0x07])
        #expect(String(decoding: ListenJSON.encode(.existenceFilter(target: 7, count: 300)), as: UTF8.self) == #"{"filter":{"targetId":7,"count":300}}"#)
        #expect(String(decoding: ListenJSON.encode(.existenceFilter(target: 7, count: 0)), as: UTF8.self) == #"{"filter":{"targetId":7}}"#)
    }

    @Test func targetIdZeroGetsAServerAssignedId() async throws {
        let (client, writer, call) = Self.listen()
        defer { call.cancelled() }
        call.received(Self.addQuery(client, id: 0, collection: "c"))
        call.received(Self.addQuery(client, id: 0, collection: "d"))
        let responses = try await Self.responses(writer, count: 6)
        let added = responses.compactMap { r -> [Int32]? in if case .target(1, let ids, _) = r { ids } else { nil } }
        #expect(added == [[1], [2]])
    }

    @Test func collectionGroupTargetSeesNestedDocumentsButNotOtherCollections() async throws {
        let (client, writer, call) = Self.listen()
        defer { call.cancelled() }
        call.received(
            Self.addTarget(client) { t in
                t.message(2) { q in
                    q.string(1, client.root)
                    q.message(2) { $0.message(2) { s in s.string(2, "g"); s.bool(3, true) } }
                }
                t.int32(5, 8)
            })
        _ = try await Self.responses(writer, count: 3)
        client.set([("other/1", [:])])
        client.set([("a/1/g/x", ["v": .integer(1)])])
        let responses = try await Self.responses(writer, count: 5)
        #expect(Array(responses.dropFirst(3)) == [.change(name: client.root + "/a/1/g/x", ids: [8]), .target(type: 0, ids: [], hasReadTime: true)])
    }
}
