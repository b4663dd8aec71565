@testable import EmulatorClient
import EmulatorModel
import EmulatorProtobuf
import EmulatorTesting
import Foundation
import Synchronization
import Testing

/// The client side of `Listen`: the request it sends, the state machine fed the server's
/// responses byte by byte, and listeners over the stream of a running suite.
@Suite struct ListenStateTests {
    let db = Firestore(projectID: "p")

    static func targetChange(_ type: Int32, _ ids: [Int32], cause: (Int32, String)? = nil) -> [UInt8] {
        var w = ProtoWriter()
        w.message(2) { t in
            if type != 0 { t.int32(1, type) }
            t.packedInt32(2, ids)
            if let cause { t.message(3) { s in s.int32(1, cause.0); s.string(2, cause.1) } }
        }
        return w.bytes
    }

    static func documentChange(_ name: String, _ n: Int64, targets: [Int32]) -> [UInt8] {
        var w = ProtoWriter()
        w.message(3) { c in
            c.message(1) { ProtoDocument(name: name, fields: ValueMap([("n", .integer(n))]), updateTime: n).write(to: &$0) }
            c.packedInt32(5, targets)
        }
        return w.bytes
    }

    static func documentDelete(_ name: String, removed: [Int32]) -> [UInt8] {
        var w = ProtoWriter()
        w.message(4) { c in
            c.string(1, name)
            c.packedInt32(6, removed)
        }
        return w.bytes
    }

    private func feed(_ state: inout ListenTargetState, _ bytes: [UInt8]) throws -> ListenTargetState.Action? {
        state.apply(try ListenEvent.decode(bytes))
    }

    @Test func aSnapshotIsDueOnlyWhenCurrentAndConsistent() throws {
        var state = ListenTargetState(targetID: 1)
        #expect(try feed(&state, Self.targetChange(1, [1])) == nil)  // ADD
        #expect(try feed(&state, Self.documentChange("p/a", 1, targets: [1])) == nil)
        #expect(try feed(&state, Self.targetChange(0, [])) == nil)  // consistent, but not CURRENT yet
        #expect(try feed(&state, Self.targetChange(3, [1])) == nil)  // CURRENT
        guard case .snapshot(let first, _)? = try feed(&state, Self.targetChange(0, [])) else {
            Issue.record("no snapshot after CURRENT and a global NO_CHANGE")
            return
        }
        #expect(first.map(\.name) == ["p/a"])
        #expect(try feed(&state, Self.documentChange("p/b", 2, targets: [1])) == nil)
        #expect(try feed(&state, Self.documentDelete("p/a", removed: [1])) == nil)
        #expect(try feed(&state, Self.targetChange(0, [])) == .snapshot([ProtoDocument(
            name: "p/b", fields: ValueMap([("n", .integer(2))]), updateTime: 2)], readTime: nil))
    }

    @Test func theResumeTokenAndReadTimeAreKeptAndSentBack() throws {
        var state = ListenTargetState(targetID: 1)
        var w = ProtoWriter()
        w.message(2) { t in
            t.int32(1, 3)
            t.packedInt32(2, [1])
            t.bytes(4, [0, 0, 0, 0, 0, 0, 0, 7])
        }
        _ = try feed(&state, w.bytes)
        #expect(state.resumeToken == [0, 0, 0, 0, 0, 0, 0, 7])
        var global = ProtoWriter()
        global.message(2) { t in
            t.bytes(4, [0, 0, 0, 0, 0, 0, 0, 9])
            t.message(6) { ts in ts.int64(1, 12); ts.int32(2, 345_000) }
        }
        #expect(try feed(&state, global.bytes) == .snapshot([], readTime: 12_000_345))
        #expect(state.resumeToken == [0, 0, 0, 0, 0, 0, 0, 9])
        let request = ListenTargetSpec.document(db.document("a/b")).addRequest(targetID: 1, resumeToken: [9, 9])
        let plain = ListenTargetSpec.document(db.document("a/b")).addRequest(targetID: 1)
        #expect(request.count == plain.count + 4)
        #expect(request.firstRange(of: [0x22, 2, 9, 9]) != nil)  // field 4, length 2
    }

    @Test func otherTargetsAndResetsAreHandled() throws {
        var state = ListenTargetState(targetID: 1)
        _ = try feed(&state, Self.targetChange(3, [1]))
        _ = try feed(&state, Self.documentChange("p/other", 1, targets: [2]))
        _ = try feed(&state, Self.documentChange("p/a", 1, targets: [1]))
        #expect(state.documents.keys.sorted() == ["p/a"])
        _ = try feed(&state, Self.targetChange(4, [1]))  // RESET: the full result follows
        #expect(state.documents.isEmpty && !state.isCurrent)
        #expect(try feed(&state, Self.targetChange(0, [])) == nil)
    }

    static func existenceFilter(_ target: Int32, count: Int32) -> [UInt8] {
        var w = ProtoWriter()
        w.message(5) { f in
            f.int32(1, target)
            f.int32(2, count)
        }
        return w.bytes
    }

    @Test func anExistenceFilterThatDisagreesStartsTheTargetAgainFromNothing() throws {
        var state = ListenTargetState(targetID: 1)
        var current = ProtoWriter()
        current.message(2) { t in
            t.int32(1, 3)
            t.packedInt32(2, [1])
            t.bytes(4, [0, 0, 0, 0, 0, 0, 0, 7])
        }
        _ = try feed(&state, Self.documentChange("p/a", 1, targets: [1]))
        _ = try feed(&state, Self.documentChange("p/b", 1, targets: [1]))
        _ = try feed(&state, current.bytes)
        #expect(try feed(&state, Self.existenceFilter(1, count: 2)) == nil)  // agrees
        #expect(try feed(&state, Self.existenceFilter(2, count: 5)) == nil)  // another target's
        #expect(state.documents.count == 2 && state.resumeToken != nil && state.isCurrent)
        #expect(try feed(&state, Self.existenceFilter(1, count: 3)) == .resync)
        #expect(state.documents.isEmpty && state.resumeToken == nil && !state.isCurrent)
        // The bloom filter of unchanged names (field 3) is skipped, not an error.
        var withBloom = ProtoWriter()
        withBloom.message(5) { f in
            f.int32(1, 1)
            f.message(3) { b in b.bytes(1, [0xFF]) }
        }
        #expect(try ListenEvent.decode(withBloom.bytes) == .existenceFilter(targetID: 1, count: 0))
    }

    @Test func aRemovedTargetFailsWithItsCause() throws {
        var state = ListenTargetState(targetID: 1)
        let action = try feed(&state, Self.targetChange(2, [1], cause: (7, "Permission denied")))
        #expect(action == .failed(code: 7, message: "Permission denied"))
    }

    @Test func truncatedResponsesAreErrors() {
        let bytes = Self.documentChange("p/a", 1, targets: [1])
        #expect(throws: EmulatorError.self) { try ListenEvent.decode(Array(bytes.dropLast(3))) }
    }

    @Test func theQueryTargetCarriesTheStructuredQuery() throws {
        let query = db.collection("books").whereField("pages", isGreaterThan: 100).order(by: "pages", descending: true).limit(to: 3)
        var r = ProtoReader(ListenTargetSpec.query(query).addRequest(targetID: 7))
        var database = ""
        var target: ProtoReader?
        while let (f, w) = try r.next() {
            switch f {
            case 1: database = try r.string()
            case 2: target = try r.message()
            default: try r.skip(w)
            }
        }
        #expect(database == "projects/p/databases/(default)")
        var t = try #require(target)
        var id: Int32 = 0
        var parent = ""
        var structured: [UInt8] = []
        while let (f, w) = try t.next() {
            switch f {
            case 2:
                var q = try t.message()
                while let (qf, qw) = try q.next() {
                    if qf == 1 { parent = try q.string() } else if qf == 2 { structured = try q.bytes() } else { try q.skip(qw) }
                }
            case 5: id = try t.int32()
            default: try t.skip(w)
            }
        }
        #expect(id == 7)
        #expect(parent == "projects/p/databases/(default)/documents")
        var expected = ProtoWriter()
        query.writeStructuredQuery(to: &expected)
        #expect(structured == expected.bytes)
        // from { collection_id "books" }, where { field_filter GREATER_THAN }, order_by DESCENDING, limit 3
        #expect(structured.starts(with: [0x12, 0x07, 0x12, 0x05] + Array("books".utf8)))
        #expect(structured.suffix(4) == [0x2A, 0x02, 0x08, 0x03])
    }
}

@Suite(.serialized) struct ListenStreamTests {
    @Test func aListenerSeesAnotherClientsAddModifyAndRemove() async throws {
        try await withEmulators(services: .firestore) { env in
            let reader = env.firestore()
            let writer = env.firestore()
            let seen = Mutex<[[DocumentChange.ChangeType]]>([])
            let registration = reader.collection("colors").order(by: "name").addSnapshotListener { snapshot, _ in
                if let snapshot { seen.withLock { $0.append(snapshot.documentChanges.map(\.type)) } }
            }
            defer { registration.remove() }
            #expect(registration is StreamingListener)
            try await waitUntil { seen.withLock { $0.count == 1 } }
            try await writer.document("colors/red").setData(["name": "Red"])
            try await waitUntil { seen.withLock { $0.count == 2 } }
            try await writer.document("colors/red").updateData(["hex": "#FF0000"])
            try await waitUntil { seen.withLock { $0.count == 3 } }
            try await writer.document("colors/red").delete()
            try await waitUntil { seen.withLock { $0.count == 4 } }
            #expect(seen.withLock { $0 } == [[], [.added], [.modified], [.removed]])
        }
    }

    @Test func aDocumentListenerReconnectsAfterTheConnectionDrops() async throws {
        try await withEmulators(services: .firestore) { env in
            let db = env.firestore()
            let values = Mutex<[Int?]>([])
            let registration = db.document("counters/c").addSnapshotListener { snapshot, _ in
                values.withLock { $0.append(snapshot?.get("n") as? Int) }
            }
            defer { registration.remove() }
            try await waitUntil { values.withLock { $0 == [nil] } }
            let listener = try #require(registration as? StreamingListener)
            listener.simulateConnectionLoss()
            try await env.firestore().document("counters/c").setData(["n": 1])
            try await waitUntil { values.withLock { $0.last == 1 } }
            #expect(values.withLock { $0 } == [nil, 1])
        }
    }

    @Test func aRefusedReadEndsTheListenerWithPermissionDenied() async throws {
        try await withEmulators(services: .firestore, firestoreRules: lockedFirestoreRules) { env in
            let db = env.firestore(authToken: aliceIDToken)
            let error = Mutex<FirestoreErrorCode?>(nil)
            let registration = db.collection("locked").addSnapshotListener { _, e in
                if let e = e as? FirestoreError { error.withLock { $0 = e.code } }
            }
            defer { registration.remove() }
            try await waitUntil { error.withLock { $0 != nil } }
            #expect(error.withLock { $0 } == .permissionDenied)
        }
    }
}
