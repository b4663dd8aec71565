import EmulatorClient
import Foundation
import Synchronization
import Testing

/// `.info/connected` follows the Database's WebSocket connection.
@Suite(.serialized) struct InfoConnectedTests {
    @Test func itFollowsGoOfflineGoOnlineAndADroppedSocket() async throws {
        try await withDatabase { db in
            let states = Mutex<[Bool]>([])
            let connected = db.reference(withPath: ".info/connected")
            let handle = connected.observe(.value) { snapshot in
                if let value = snapshot.value as? Bool { states.withLock { $0.append(value) } }
            }
            try await waitUntil { states.withLock { $0.last == true } }
            #expect(try await connected.getData().value as? Bool == true)
            db.goOffline()
            try await waitUntil { states.withLock { $0.last == false } }
            db.goOnline()
            try await waitUntil { states.withLock { $0.last == true } }
            db.simulateConnectionLoss()
            try await waitUntil { states.withLock { $0.count >= 5 && $0.last == true } }
            connected.removeObserver(withHandle: handle)
            #expect(states.withLock { $0 } == [false, true, false, true, false, true])
            db.goOffline()
            try await Task.sleep(for: .milliseconds(100))
            #expect(states.withLock { $0.count } == 6)
        }
    }

    @Test func aSingleEventGivesTheCurrentState() async throws {
        try await withDatabase { db in
            let first: Bool? = await completion { done in
                db.reference(withPath: ".info/connected").observeSingleEvent(of: .value) { done($0.value as? Bool) }
            }
            #expect(first == false)
        }
    }
}
