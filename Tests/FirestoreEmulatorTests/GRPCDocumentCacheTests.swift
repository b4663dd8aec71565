import EmulatorModel
import EmulatorProtobuf
import EmulatorStorage
import Testing

@testable import FirestoreEmulator

/// gRPC GetDocument answers from its kept protobuf answer while the document is unchanged, and
/// never after it changed.
@Suite struct GRPCDocumentCacheTests {
    @Test func aKeptAnswerIsReusedAndNeverStale() throws {
        let grpc = FirestoreGRPC(service: FirestoreService(store: DocumentStore(engine: StorageEngine())))
        let client = GRPCTestClient(grpc)
        let name = client.root + "/c/x"
        func get() throws -> ProtoDocument {
            try ProtoDocument(ProtoReader(client.unary("GetDocument") { $0.string(1, name) }.get()))
        }
        #expect(throws: Never.self) { try client.set([("c/x", ["n": .integer(1)])]).get() }
        let first = try client.unary("GetDocument") { $0.string(1, name) }.get()
        #expect(grpc.documentCache.count == 1)
        #expect(try client.unary("GetDocument") { $0.string(1, name) }.get() == first)
        #expect(grpc.documentCache.count == 1)
        #expect(try ProtoDocument(ProtoReader(first)).fields == ["n": .integer(1)])

        #expect(throws: Never.self) { try client.set([("c/x", ["n": .integer(2)])]).get() }
        let second = try get()
        #expect(second.fields == ["n": .integer(2)])
        #expect(second.updateTime != (try ProtoDocument(ProtoReader(first))).updateTime)

        // Deleted, then written again with the first fields: a new document, not the first answer.
        #expect(throws: Never.self) {
            try client.unary("DeleteDocument") { $0.string(1, name) }.get()
        }
        #expect(throws: (any Error).self) { try get() }
        #expect(throws: Never.self) { try client.set([("c/x", ["n": .integer(1)])]).get() }
        let again = try get()
        #expect(again.fields == ["n": .integer(1)])
        #expect(again.createTime != (try ProtoDocument(ProtoReader(first))).createTime)
    }
}
