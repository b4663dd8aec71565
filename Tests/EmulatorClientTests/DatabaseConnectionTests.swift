import EmulatorClient
import EmulatorSuite
import EmulatorTesting
import Foundation
import Synchronization
import Testing

/// Values an observer saw, in order.
final class Seen<T: Sendable>: Sendable {
    private let list = Mutex<[T]>([])
    var all: [T] { list.withLock { $0 } }
    var last: T? { list.withLock { $0.last } }
    func add(_ value: T) { list.withLock { $0.append(value) } }
}

/// The Realtime Database on one WebSocket: listens, latency compensation, the offline queue,
/// reconnection.
@Suite(.serialized) struct DatabaseConnectionTests {
    @Test func observersSeeAnotherClientsAddsChangesAndRemovalsOnOneSocket() async throws {
        try await withDatabase { db in
            let other = otherClient(of: db)
            let items = db.reference(withPath: "items")
            let log = Seen<String>()
            items.observe(.childAdded) { log.add("+\($0.key ?? ""):\($0.value ?? "")") }
            items.observe(.childChanged) { log.add("~\($0.key ?? ""):\($0.value ?? "")") }
            items.observe(.childRemoved) { log.add("-\($0.key ?? "")") }
            let top = Seen<[String]>()
            items.queryOrderedByValue().queryLimited(toLast: 2).observe(.value) { s in
                top.add(s.children.compactMap(\.key))
            }
            try await waitUntil { top.last == [] }
            try await other.reference(withPath: "items/a").setValue(1)
            try await waitUntil { log.all == ["+a:1"] }
            try await other.reference(withPath: "items/b").setValue(5)
            try await other.reference(withPath: "items/a").setValue(7)
            try await waitUntil { log.all == ["+a:1", "+b:5", "~a:7"] }
            try await other.reference(withPath: "items/c").setValue(6)
            try await waitUntil { top.last == ["c", "a"] }
            try await other.reference(withPath: "items/a").removeValue()
            try await waitUntil { log.last == "-a" }
            try await waitUntil { top.last == ["b", "c"] }
            #expect(db.webSocketConnectionCount == 1)
            items.removeAllObservers()
        }
    }

    @Test func aWriteShowsAtOnceAndAReadWhileOfflineComesFromTheCache() async throws {
        try await withDatabase { db in
            let ref = db.reference(withPath: "profile/name")
            try await ref.setValue("ada")
            let seen = Seen<String?>()
            ref.observe(.value) { seen.add($0.value as? String) }
            try await waitUntil { seen.all == ["ada"] }
            db.goOffline()
            let acknowledged = Seen<String>()
            ref.setValue("lovelace") { error, _ in acknowledged.add(error.map { "\($0)" } ?? "ok") }
            // The observer sees the write before any server could have answered it.
            try await waitUntil { seen.all == ["ada", "lovelace"] }
            #expect(db.pendingWriteCount == 1)
            #expect(try await ref.getData().value as? String == "lovelace")
            try await Task.sleep(for: .milliseconds(200))
            #expect(acknowledged.all.isEmpty)
            let other = otherClient(of: db)
            #expect(try await other.reference(withPath: "profile/name").getData().value as? String == "ada")
            db.goOnline()
            try await waitUntil { acknowledged.all == ["ok"] }
            #expect(db.pendingWriteCount == 0)
            #expect(try await other.reference(withPath: "profile/name").getData().value as? String == "lovelace")
            #expect(seen.all == ["ada", "lovelace"])
        }
    }

    @Test func aReadWhileOfflineWithoutCacheFails() async throws {
        try await withDatabase { db in
            try await db.reference(withPath: "x").setValue(1)
            db.goOffline()
            await #expect(throws: DatabaseError.self) { try await db.reference(withPath: "y").getData() }
        }
    }

    @Test func aRefusedWriteIsTakenBackOutOfTheView() async throws {
        let rules = #"{"rules": {".read": true, "open": {".write": true}}}"#
        try await withEmulators(services: .database, databaseRules: rules) { env in
            let db = env.database(authToken: aliceIDToken)
            let ref = db.reference(withPath: "locked/a")
            let seen = Seen<Int?>()
            ref.observe(.value) { seen.add($0.value as? Int) }
            try await waitUntil { seen.all == [nil] }
            let refused: String? = await completion { done in
                ref.setValue(1) { error, _ in done((error as? DatabaseError)?.message) }
            }
            #expect(refused == "Permission denied")
            try await waitUntil { seen.all == [nil, 1, nil] }
        }
    }

    @Test func aDroppedConnectionListensAgainAndSendsWhatWaited() async throws {
        try await withDatabase { db in
            let other = otherClient(of: db)
            let shared = db.reference(withPath: "shared")
            let seen = Seen<Int?>()
            shared.child("n").observe(.value) { seen.add($0.value as? Int) }
            try await waitUntil { seen.all == [nil] }
            db.simulateConnectionLoss()
            shared.child("mine").setValue("queued", withCompletionBlock: nil)
            try await other.reference(withPath: "shared/n").setValue(2)
            try await waitUntil { seen.last == 2 }
            #expect(try await eventually {
                try await other.reference(withPath: "shared/mine").getData().value as? String == "queued"
            })
            #expect(db.webSocketConnectionCount == 2)
            try await other.reference(withPath: "shared/n").setValue(3)
            try await waitUntil { seen.last == 3 }
        }
    }

    @Test func goOfflineKeepsObserversAndGoOnlineCatchesUp() async throws {
        try await withDatabase { db in
            let other = otherClient(of: db)
            let seen = Seen<Int?>()
            db.reference(withPath: "score").observe(.value) { seen.add($0.value as? Int) }
            try await waitUntil { seen.all == [nil] }
            db.goOffline()
            try await other.reference(withPath: "score").setValue(10)
            try await Task.sleep(for: .milliseconds(200))
            #expect(seen.all == [nil])
            db.goOnline()
            try await waitUntil { seen.all == [nil, 10] }
        }
    }

    @Test func transactionsCompareTheHashAndRetry() async throws {
        try await withDatabase { db in
            let other = otherClient(of: db)
            let counter = db.reference(withPath: "counter")
            try await counter.setValue(["n": 1, ".priority": "p"])
            let runs = Mutex(0)
            let (committed, snapshot) = try await counter.runTransactionBlock { current in
                let first = runs.withLock { r in
                    r += 1
                    return r == 1
                }
                if first {
                    // Another client changes the value between the read and the compare-and-set.
                    let done = DispatchSemaphore(value: 0)
                    other.reference(withPath: "counter/n").setValue(10) { _, _ in done.signal() }
                    done.wait()
                }
                let n = current.childData(byAppendingPath: "n").value as? Int ?? 0
                current.childData(byAppendingPath: "n").value = n + 1
                return .success(withValue: current)
            }
            #expect(committed)
            #expect(runs.withLock { $0 } == 2)
            #expect(snapshot.childSnapshot(forPath: "n").value as? Int == 11)
            #expect(try await other.reference(withPath: "counter/n").getData().value as? Int == 11)
        }
    }

    @Test func transactionsRaiseLocalEventsUnlessAskedNotTo() async throws {
        try await withDatabase { db in
            let ref = db.reference(withPath: "likes")
            try await ref.setValue(1)
            let seen = Seen<Int?>()
            ref.observe(.value) { seen.add($0.value as? Int) }
            try await waitUntil { seen.all == [1] }
            db.goOffline()
            let outcomes = Seen<Bool>()
            func add(_ n: Int) -> (MutableData) -> TransactionResult {
                { current in
                    current.value = (current.value as? Int ?? 0) + n
                    return .success(withValue: current)
                }
            }
            ref.runTransactionBlock(add(1)) { error, committed, _ in outcomes.add(error == nil && committed) }
            // Shown at once, while the server cannot have answered.
            try await waitUntil { seen.all == [1, 2] }
            ref.runTransactionBlock(add(10), andCompletionBlock: { error, committed, _ in outcomes.add(error == nil && committed) },
                withLocalEvents: false)
            try await Task.sleep(for: .milliseconds(200))
            #expect(seen.all == [1, 2])
            db.goOnline()
            // The second was proposed against the server's 1, so it retries against 2.
            try await waitUntil { outcomes.all == [true, true] && seen.last == 12 }
            #expect(try await otherClient(of: db).reference(withPath: "likes").getData().value as? Int == 12)
        }
    }

    @Test func localServerValuesAreEstimatedUntilTheServerAnswers() async throws {
        try await withDatabase { db in
            let ref = db.reference(withPath: "stats")
            try await ref.setValue(["count": 4])
            let seen = Seen<Int?>()
            ref.child("count").observe(.value) { seen.add($0.value as? Int) }
            try await waitUntil { seen.all == [4] }
            db.goOffline()
            ref.updateChildValues(["count": ServerValue.increment(2), "at": ServerValue.timestamp()], withCompletionBlock: nil)
            try await waitUntil { seen.all == [4, 6] }
            let at = try await ref.child("at").getData().value as? Int ?? 0
            #expect(abs(at - Int(Date().timeIntervalSince1970 * 1000)) < 60_000)
            db.goOnline()
            #expect(try await eventually { db.pendingWriteCount == 0 })
            #expect(try await otherClient(of: db).reference(withPath: "stats/count").getData().value as? Int == 6)
        }
    }
}

/// The offline queue across a restart of the suite, with an observer open throughout.
@Suite(.serialized) struct DatabaseRestartTests {
    @Test func writesMadeWhileTheSuiteIsDownShowAtOnceAndReachItWhenItReturns() async throws {
        var configuration = SuiteConfiguration.ephemeral(projectId: "demo-restart", kinds: [.database])
        let first = try Suite.start(configuration)
        let port = try #require(first.port(of: .database))
        let db = Database.database(url: "http://127.0.0.1:\(port)?ns=demo-restart-default-rtdb")
        let connected = Seen<Bool>()
        db.reference(withPath: ".info/connected").observe(.value) { if let b = $0.value as? Bool { connected.add(b) } }
        let seen = Seen<String?>()
        db.reference(withPath: "notes/n1").observe(.value) { seen.add($0.value as? String) }
        try await waitUntil { seen.all == [nil] && connected.last == true }
        first.shutdown()
        try await waitUntil { connected.last == false }
        let acknowledged = Seen<Bool>()
        db.reference(withPath: "notes/n1").setValue("written offline") { error, _ in acknowledged.add(error == nil) }
        db.reference(withPath: "notes/n2").setValue("second", withCompletionBlock: nil)
        try await waitUntil { seen.all == [nil, "written offline"] }

        configuration.listeners[.database] = ListenAddress(port: port, isFixed: true)
        try await withSuite(configuration) { _ in
            try await waitUntil(seconds: 40) { acknowledged.all == [true] && connected.last == true }
            let other = otherClient(of: db)
            #expect(try await other.reference(withPath: "notes/n1").getData().value as? String == "written offline")
            #expect(try await other.reference(withPath: "notes/n2").getData().value as? String == "second")
            try await other.reference(withPath: "notes/n1").setValue("from the other client")
            try await waitUntil { seen.last == "from the other client" }
            #expect(connected.all == [false, true, false, true] || connected.all == [true, false, true])
        }
        db.goOffline()
    }
}
