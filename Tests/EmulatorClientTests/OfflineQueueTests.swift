import EmulatorClient
import EmulatorSuite
import Foundation
import Synchronization
import Testing

/// Writes made while the suite is down wait, in order, and reach it once it is back.
@Suite(.serialized) struct OfflineQueueTests {
    @Test func writesMadeWhileTheSuiteIsDownAreSentInOrderWhenItReturns() async throws {
        var configuration = SuiteConfiguration.ephemeral(projectId: "demo-offline", kinds: [.firestore, .database])
        let first = try Suite.start(configuration)
        let firestorePort = try #require(first.port(of: .firestore))
        let databasePort = try #require(first.port(of: .database))
        first.shutdown()

        let db = Firestore(projectID: "demo-offline")
        db.useEmulator(withHost: "127.0.0.1", port: firestorePort)
        let rtdb = Database.database(url: "http://127.0.0.1:\(databasePort)?ns=demo-offline-default-rtdb")
        let acknowledged = Acknowledgements()
        try db.collection("books").document("queued").setData(
            from: Book(title: "Offline", numberOfPages: 1, author: "Nobody"))
        writeWhileOffline(db, rtdb, acknowledged)
        try await Task.sleep(for: .milliseconds(300))
        #expect(acknowledged.names.isEmpty)

        configuration.listeners[.firestore] = ListenAddress(port: firestorePort, isFixed: true)
        configuration.listeners[.database] = ListenAddress(port: databasePort, isFixed: true)
        try await withSuite(configuration) { _ in
            // The clients retry with backoff (1 s, ×1.3, at most 30 s), counted from when the
            // suite went down; a loaded machine starts the suite again late in that schedule.
            try await waitUntil(seconds: 35) { acknowledged.names.count == 2 }
            #expect(acknowledged.names.sorted() == ["database", "firestore"])
            #expect(try await db.document("books/queued").getDocument(as: Book.self).title == "Offline")
            #expect(try await db.document("counters/c").getDocument().get("n") as? Int == 2)
            #expect(try await rtdb.reference(withPath: "counters/c").getData().value as? Int == 2)
        }
    }

    /// Synchronous, as the guides' code is: each call returns at once.
    private func writeWhileOffline(_ db: Firestore, _ rtdb: Database, _ acknowledged: Acknowledgements) {
        db.document("counters/c").setData(["n": 1])
        db.document("counters/c").setData(["n": 2]) { error in
            if error == nil { acknowledged.add("firestore") }
        }
        rtdb.reference(withPath: "counters/c").setValue(1)
        rtdb.reference(withPath: "counters/c").setValue(2) { error, _ in
            if error == nil { acknowledged.add("database") }
        }
    }
}

final class Acknowledgements: Sendable {
    private let list = Mutex<[String]>([])
    var names: [String] { list.withLock { $0 } }
    func add(_ name: String) { list.withLock { $0.append(name) } }
}
