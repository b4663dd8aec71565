import EmulatorModel
import EmulatorStorage
import Testing

@testable import FirestoreEmulator

/// A commit that cuts a whole collection out of the engine (one cleared subtree in the change
/// feed, no per-document changes) reaches Listen targets as a DocumentDelete of every document
/// they held.
@Suite struct SubtreeCutListenTests {
    @Test func aCutCollectionRemovesEveryDocumentTheQueryHeld() async throws {
        let client = GRPCTestClient()
        client.set((0..<100).map { ("c/d\($0)", ["n": .integer(Int64($0))]) } + [("other/x", ["n": .integer(1)])])
        let writer = CollectingWriter()
        let call = FirestoreListenCall(service: client.service, caller: .owner, writer: writer)
        defer { call.cancelled() }
        call.received(GRPCListenTests.addQuery(client, id: 7, collection: "c"))
        let initial = try await GRPCListenTests.responses(writer, count: 103)
        #expect(initial.count == 103)

        let namespace = DocumentStore.namespace(DatabaseID(project: "demo", database: "(default)"))
        let result = client.service.store.engine.commit { (txn: inout CommitBuilder) in
            txn.deleteSubtree(namespace, StorageKey(segments: ["c"]))
        }
        #expect(result.value == 100)
        #expect(result.cleared == [ClearedSubtree(namespace: namespace, key: StorageKey(segments: ["c"]))])
        #expect(result.changes.isEmpty)

        let after = Array(try await GRPCListenTests.responses(writer, count: 204).dropFirst(103))
        let removed = Set(after.compactMap { response -> String? in
            if case .delete(let name) = response { return name }
            return nil
        })
        #expect(removed == Set((0..<100).map { client.root + "/c/d\($0)" }))
        #expect(after.last == .target(type: 0, ids: [], hasReadTime: true))
    }
}
