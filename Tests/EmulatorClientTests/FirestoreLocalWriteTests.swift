@testable import EmulatorClient
import EmulatorSuite
import EmulatorTesting
import Foundation
import Synchronization
import Testing

/// What a listener reported: document ids, change types and the metadata.
struct Reported: Sendable, Equatable {
    var ids: [String]
    var changes: [DocumentChange.ChangeType]
    var pending: Bool
    var fromCache: Bool
}

/// Firestore snapshot listeners with local writes: shown at once, `hasPendingWrites`,
/// `isFromCache`, `includeMetadataChanges`, the offline queue across a restart.
@Suite(.serialized) struct FirestoreLocalWriteTests {
    @Test func aLocalWriteShowsAtOnceAndItsAcknowledgementIsAMetadataChange() async throws {
        try await withEmulators(services: .firestore) { env in
            let db = env.firestore()
            let seen = Seen<Reported>()
            let registration = db.collection("books").whereField("pages", isGreaterThan: 10)
                .addSnapshotListener(includeMetadataChanges: true) { snapshot, _ in
                    guard let snapshot else { return }
                    seen.add(Reported(
                        ids: snapshot.documents.map(\.documentID), changes: snapshot.documentChanges.map(\.type),
                        pending: snapshot.metadata.hasPendingWrites, fromCache: snapshot.metadata.isFromCache))
                }
            defer { registration.remove() }
            try await waitUntil { seen.last?.fromCache == false }
            let acknowledged = Seen<Bool>()
            db.document("books/long").setData(["pages": 300]) { error in acknowledged.add(error == nil) }
            db.document("books/short").setData(["pages": 3], merge: false, completion: nil)  // does not match: never shown
            try await waitUntil { acknowledged.all == [true] && seen.last?.pending == false }
            let reports = seen.all.filter { !$0.fromCache }
            let local = try #require(reports.first { $0.pending })
            #expect(local.ids == ["long"] && local.changes == [.added])
            #expect(reports.last == Reported(ids: ["long"], changes: [], pending: false, fromCache: false))
        }
    }

    @Test func withoutMetadataChangesTheAcknowledgementIsSilent() async throws {
        try await withEmulators(services: .firestore) { env in
            let db = env.firestore()
            let seen = Seen<Reported>()
            let registration = db.document("notes/n").addSnapshotListener { snapshot, _ in
                guard let snapshot else { return }
                seen.add(Reported(
                    ids: snapshot.exists ? [snapshot.documentID] : [], changes: [], pending: snapshot.metadata.hasPendingWrites,
                    fromCache: snapshot.metadata.isFromCache))
            }
            defer { registration.remove() }
            try await waitUntil { seen.all.count == 1 }
            try await db.document("notes/n").setData(["text": "hi"])
            try await Task.sleep(for: .milliseconds(300))
            #expect(seen.all.map(\.ids) == [[], ["n"]])
            #expect(seen.all.last?.pending == true)
            // A write by another client is a document change.
            try await env.firestore().document("notes/n").setData(["text": "other"])
            try await waitUntil { seen.all.count == 3 }
            #expect(seen.last?.pending == false)
        }
    }

    @Test func aRefusedWriteLeavesTheView() async throws {
        try await withEmulators(services: .firestore, firestoreRules: readableLockedRules) { env in
            let db = env.firestore(authToken: aliceIDToken)
            let counts = Seen<Int>()
            let registration = db.collection("locked").addSnapshotListener { snapshot, _ in
                if let snapshot { counts.add(snapshot.count) }
            }
            defer { registration.remove() }
            try await waitUntil { counts.all == [0] }
            let refused: FirestoreErrorCode? = await completion { done in
                db.document("locked/a").setData(["x": 1]) { done(($0 as? FirestoreError)?.code) }
            }
            #expect(refused == .permissionDenied)
            try await waitUntil { counts.all == [0, 1, 0] }
        }
    }

    @Test func aLimitToLastListenerStreamsTheLastDocumentsInQueryOrder() async throws {
        try await withEmulators(services: .firestore) { env in
            let db = env.firestore()
            for (id, score) in [("a", 10), ("b", 20), ("c", 30), ("d", 40)] {
                try await db.document("scores/\(id)").setData(["score": score])
            }
            let seen = Seen<Reported>()
            let registration = db.collection("scores").order(by: "score").limit(toLast: 2)
                .addSnapshotListener { snapshot, _ in
                    guard let snapshot else { return }
                    seen.add(Reported(
                        ids: snapshot.documents.map(\.documentID), changes: snapshot.documentChanges.map(\.type),
                        pending: snapshot.metadata.hasPendingWrites, fromCache: snapshot.metadata.isFromCache))
                }
            defer { registration.remove() }
            try await waitUntil { seen.last?.ids == ["c", "d"] }
            // Another client's write enters at the end and pushes "c" out.
            try await env.firestore().document("scores/e").setData(["score": 50])
            try await waitUntil { seen.last?.ids == ["d", "e"] }
            #expect(Set(seen.last?.changes ?? []) == [.added, .removed])
            // This instance's own write shows at once, in order, before the server confirms it.
            db.document("scores/f").setData(["score": 45], merge: false, completion: nil)
            try await waitUntil { seen.all.contains { $0.ids == ["f", "e"] && $0.pending } }
            // A document below the window changes nothing; one above it enters.
            try await env.firestore().document("scores/a").setData(["score": 11])
            try await env.firestore().document("scores/g").setData(["score": 60])
            try await waitUntil { seen.last?.ids == ["e", "g"] }
            #expect(!seen.all.contains { $0.ids.contains("a") })
        }
    }

    @Test func incrementsAreCommittedWithAPreconditionAndApplyOnce() async throws {
        try await withEmulators(services: .firestore) { env in
            let db = env.firestore()
            try await db.document("counters/c").setData(["n": 1])
            try await db.document("counters/c").updateData(["n": FieldValue.increment(Int64(2))])
            try await db.document("counters/new").setData(["n": FieldValue.increment(Int64(5))], merge: true)
            #expect(try await db.document("counters/c").getDocument().get("n") as? Int == 3)
            #expect(try await db.document("counters/new").getDocument().get("n") as? Int == 5)
            let write = try WriteOperation.update(db.document("counters/c"), ["n": FieldValue.increment(Int64(1))])
            #expect(write.isIncrement)
            let conditioned = write.withPrecondition(updateTime: "2024-01-01T00:00:00Z")
            #expect(conditioned.documentName == write.documentName && !conditioned.isCreate)
            #expect(write.withPrecondition(updateTime: nil).isCreate)
        }
    }
}

/// Commits whose answer is lost after the server applied them, retried: each write takes effect once.
@Suite(.serialized) struct FirestoreLostAnswerTests {
    @Test func aCreateWhoseAnswerWasLostSucceedsOnce() async throws {
        try await withEmulators(services: .firestore) { env in
            let db = env.firestore()
            db.loseAnswers(ofNextCommits: 1)
            let ref = try await db.collection("books").addDocument(data: ["title": "Dune"])
            let books = try await env.firestore().collection("books").getDocuments()
            #expect(books.documents.map(\.documentID) == [ref.documentID])
            #expect(books.documents.first?.get("title") as? String == "Dune")
        }
    }

    @Test func anIncrementWhoseAnswerWasLostAddsOnce() async throws {
        try await withEmulators(services: .firestore) { env in
            let db = env.firestore()
            try await db.document("counters/c").setData(["n": 1])
            db.loseAnswers(ofNextCommits: 1)
            try await db.document("counters/c").updateData(["n": FieldValue.increment(Int64(2))])
            #expect(try await env.firestore().document("counters/c").getDocument().get("n") as? Int == 3)
            // A new document, created by its increment.
            db.loseAnswers(ofNextCommits: 1)
            try await db.document("counters/new").setData(["n": FieldValue.increment(Int64(5))], merge: true)
            #expect(try await env.firestore().document("counters/new").getDocument().get("n") as? Int == 5)
        }
    }

    @Test func aSetWhoseAnswerWasLostIsAppliedAndAcknowledged() async throws {
        try await withEmulators(services: .firestore) { env in
            let db = env.firestore()
            db.loseAnswers(ofNextCommits: 2)
            try await db.document("notes/n").setData(["text": "hi"])
            #expect(try await env.firestore().document("notes/n").getDocument().get("text") as? String == "hi")
            #expect(db.localWrites.pendingCount == 0)
        }
    }
}

let readableLockedRules = """
    rules_version = '2';
    service cloud.firestore {
      match /databases/{database}/documents {
        match /locked/{doc} { allow read: if true; allow write: if false; }
      }
    }
    """

/// The offline queue across a restart of the suite, with a listener open throughout.
@Suite(.serialized) struct FirestoreRestartTests {
    @Test func aListenerShowsWritesMadeWhileTheSuiteIsDownAndCatchesUp() async throws {
        var configuration = SuiteConfiguration.ephemeral(projectId: "demo-fs-restart", kinds: [.firestore])
        let first = try Suite.start(configuration, registry: clientTestRegistry)
        let port = try #require(first.port(of: .firestore))
        let db = Firestore(projectID: "demo-fs-restart")
        db.useEmulator(withHost: "127.0.0.1", port: port)
        let seen = Seen<Reported>()
        let registration = db.collection("tasks").addSnapshotListener(includeMetadataChanges: true) { snapshot, _ in
            guard let snapshot else { return }
            seen.add(Reported(
                ids: snapshot.documents.map(\.documentID), changes: snapshot.documentChanges.map(\.type),
                pending: snapshot.metadata.hasPendingWrites, fromCache: snapshot.metadata.isFromCache))
        }
        defer { registration.remove() }
        try await waitUntil { seen.last == Reported(ids: [], changes: [], pending: false, fromCache: false) }
        first.shutdown()
        try await waitUntil { seen.last?.fromCache == true }
        let acknowledged = Seen<Bool>()
        db.document("tasks/t1").setData(["title": "offline"]) { acknowledged.add($0 == nil) }
        try await waitUntil { seen.last == Reported(ids: ["t1"], changes: [.added], pending: true, fromCache: true) }

        configuration.listeners[.firestore] = ListenAddress(port: port, isFixed: true)
        try await withSuite(configuration, registry: clientTestRegistry) { _ in
            try await waitUntil(seconds: 20) { acknowledged.all == [true] }
            // Seen once under the whole suite's load: still not current after 10 s (unexplained;
            // the reports so far say how far it got).
            try await waitUntil(seconds: 10, state: "reports: \(seen.all)") {
                seen.last == Reported(ids: ["t1"], changes: [], pending: false, fromCache: false)
            }
            let other = Firestore(projectID: "demo-fs-restart")
            other.useEmulator(withHost: "127.0.0.1", port: port)
            try await other.document("tasks/t2").setData(["title": "other"])
            try await waitUntil { seen.last?.ids == ["t1", "t2"] }
            try await other.document("tasks/t1").delete()
            try await waitUntil { seen.last?.ids == ["t2"] && seen.last?.changes == [.removed] }
        }
    }
}
